//! The validation table in markdown, as docs/replay-validation.md holds it.

use super::errors::{cells, CellError};
use super::measure::{ErrorRule, Pair, METRICS};
use std::fmt::Write;

/// An error as the table shows it: points and small percentages to a tenth, the rest whole.
pub fn shown(e: f64) -> String {
    if e.is_infinite() {
        "∞".into()
    } else if e < 10.0 {
        format!("{e:.1}")
    } else {
        format!("{e:.0}")
    }
}

fn cell_text(c: Option<CellError>) -> String {
    match c {
        None => "·".into(),
        Some(c) => {
            let mark = if c.beats_null() { " ✓" } else { "" };
            format!("{} / {}{mark}", shown(c.predicted), shown(c.null))
        }
    }
}

/// The pairs' table and the counts the aims are about.
pub fn markdown(pairs: &[Pair]) -> String {
    let mut s = String::new();
    let _ = write!(s, "| workload | A → B |");
    for m in &METRICS {
        let unit = match m.rule {
            ErrorRule::Points => "pts",
            ErrorRule::Relative => "%",
        };
        let _ = write!(s, " {} ({unit}) |", m.title);
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---|".repeat(METRICS.len()));
    s.push('\n');
    for p in pairs {
        let _ = write!(
            s,
            "| {} | {} → {} |",
            p.workload,
            p.from.model.as_str(),
            p.to.model.as_str()
        );
        for c in cells(p) {
            let _ = write!(s, " {} |", cell_text(c));
        }
        s.push('\n');
    }
    s.push('\n');
    let cross: Vec<CellError> = pairs
        .iter()
        .filter(|p| p.from.dir != p.to.dir)
        .flat_map(cells)
        .flatten()
        .collect();
    let exact = cross.iter().filter(|c| c.null_exact()).count();
    let beaten = cross.iter().filter(|c| c.beats_null()).count();
    let counted = cross.len() - exact;
    let _ = writeln!(
        s,
        "Cross predictions (A ≠ B) beat the null prediction in {beaten} of {counted} cells \
         ({:.0} %); {exact} more cells, where the null prediction is exact, cannot be beaten \
         and are not counted.",
        100.0 * beaten as f64 / counted.max(1) as f64
    );
    s.push('\n');
    s.push_str("| metric | cross cells beating the null |\n|---|---|\n");
    for (i, m) in METRICS.iter().enumerate() {
        let of = metric_cross_cells(pairs, i);
        let beaten = of.iter().filter(|c| c.beats_null()).count();
        let _ = writeln!(s, "| {} | {beaten} of {} |", m.title, of.len());
    }
    s
}

/// The cells of the cross predictions (A ≠ B) that the null prediction does not get exactly
/// right: the ones a prediction can beat.
fn cross_cells(pairs: &[Pair]) -> Vec<CellError> {
    pairs
        .iter()
        .filter(|p| p.from.dir != p.to.dir)
        .flat_map(cells)
        .flatten()
        .filter(|c| !c.null_exact())
        .collect()
}

/// The cross cells of metric number `metric` ([`METRICS`]) that a prediction can beat.
fn metric_cross_cells(pairs: &[Pair], metric: usize) -> Vec<CellError> {
    pairs
        .iter()
        .filter(|p| p.from.dir != p.to.dir)
        .filter_map(|p| cells(p)[metric])
        .filter(|c| !c.null_exact())
        .collect()
}

/// The cross predictions' share of cells beating the null prediction (cells the null gets
/// exactly right left out).
pub fn beaten_share(pairs: &[Pair]) -> f64 {
    let cross = cross_cells(pairs);
    cross.iter().filter(|c| c.beats_null()).count() as f64 / cross.len().max(1) as f64
}

/// The median of `v` (the upper one of an even count; ∞ sorts last).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The README's sentence (the identity shares, the cross predictions against the null) and,
/// per metric, the cross cells beating the null with the median error of the prediction and
/// of the null prediction over them.
pub fn summary(pairs: &[Pair], misses: usize) -> String {
    let share = |identity: bool| {
        pairs
            .iter()
            .filter(|p| (p.from.dir == p.to.dir) == identity)
            .filter_map(|p| cells(p)[0])
            .map(|c| c.predicted)
            .fold(0.0, f64::max)
    };
    let cross = cross_cells(pairs);
    let losing = cross.iter().filter(|c| !c.beats_null()).count();
    let mut s = format!(
        "  identity replays within {:.1} points of the kernel's runtime shares; cross predictions \
         beat the null prediction on {:.0} % of their cells (aim 80 %), the other {losing} \
         are listed with why; {misses} cells miss an aim.\n\n",
        share(true),
        100.0 * beaten_share(pairs)
    );
    s.push_str(
        "  | metric (cross predictions) | cells beating the null | median error: predicted | \
         null |\n  |---|---|---|---|\n",
    );
    for (i, m) in METRICS.iter().enumerate() {
        let of = metric_cross_cells(pairs, i);
        let beaten = of.iter().filter(|c| c.beats_null()).count();
        let unit = match m.rule {
            ErrorRule::Points => " pts",
            ErrorRule::Relative => " %",
        };
        let _ = writeln!(
            s,
            "  | {} | {beaten} of {} | {}{unit} | {}{unit} |",
            m.title,
            of.len(),
            shown(median(of.iter().map(|c| c.predicted).collect())),
            shown(median(of.iter().map(|c| c.null).collect())),
        );
    }
    s
}
