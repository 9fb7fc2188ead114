//! The comparison as fixed-width text (the default of `schedtrace compare`): the runs,
//! scope and worst waits, then one table per metric group with the value of every run,
//! its change against the baseline and the flag. Fits the width asked for (100 columns
//! by default) by splitting the runs into column groups; `--wide` shows every metric.

use super::grid::{blocks, legend, preamble, shown, wrap, Table};
use super::Layout;
use analysis::columns::{Direction, Unit};
use analysis::compare::model::{Cell, Comparison};

pub fn render(c: &Comparison, layout: &Layout) -> String {
    let width = layout.width();
    let mut out = String::new();
    for line in preamble(c, "", width) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    for line in legend(c) {
        for l in width.map_or(vec![line.clone()], |w| wrap(&line, w)) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    for block in blocks(c, &layout.task_metrics, layout.wide) {
        let unit = block.unit.map_or(String::new(), |u| match u.shown() {
            "" => String::new(),
            s => format!(" ({s})"),
        });
        let title = format!("\n{}{unit}: {}", block.title, direction(block.better));
        for l in width.map_or(vec![title.clone()], |w| wrap(&title, w)) {
            out.push_str(&l);
            out.push('\n');
        }
        let table = Table {
            case_header: if block.unit.is_some() {
                "role"
            } else {
                "metric"
            }
            .into(),
            base_header: String::new(),
            headers: c.runs.iter().map(|r| r.label.clone()).collect(),
            rows: block
                .rows
                .iter()
                .map(|(case, unit, row)| {
                    let cells = row
                        .cells
                        .iter()
                        .enumerate()
                        .map(|(i, cell)| {
                            text_cell(cell, *unit, block.better, c.runs[i].label == c.base)
                        })
                        .collect();
                    (case.clone(), String::new(), cells)
                })
                .collect(),
        };
        table.render(width, " ", &mut out);
    }
    let why = super::why::lines(c, width);
    if layout.explain && !why.is_empty() {
        out.push_str("\nWhy: change of each role's wait, by what its CPU ran\n");
        for line in why {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

fn direction(b: Direction) -> &'static str {
    match b {
        Direction::HigherIsBetter => "higher is better",
        Direction::LowerIsBetter => "lower is better",
        Direction::Neutral => "neutral (change unsigned, no flag)",
    }
}

/// `value change flag`: `12.35 +3.2% ^`; the baseline shows its value only.
fn text_cell(cell: &Cell, unit: Unit, better: Direction, is_base: bool) -> String {
    let v = shown(cell, unit);
    if is_base {
        return format!("{v}      ");
    }
    let change = match (cell.change_pct, better) {
        (None, _) => "-".to_string(),
        (Some(c), Direction::Neutral) => format!("{c:.1}%"),
        (Some(c), _) => format!("{c:+.1}%"),
    };
    format!("{v} {change:>7} {}", cell.flag.as_deref().unwrap_or(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(value: f64, change_pct: f64, flag: Option<&str>) -> Cell {
        Cell {
            label: "after".into(),
            values: vec![Some(value)],
            n: 1,
            mean: Some(value),
            pooled: None,
            value: Some(value),
            stddev: None,
            cv_pct: None,
            normalized: Some(1.0 + change_pct / 100.0),
            change_pct: Some(change_pct),
            p_value: None,
            ci_pct: None,
            flag: flag.map(str::to_string),
            flag_basis: "threshold-only".into(),
        }
    }

    /// A directional change is signed and carries its flag; a neutral one is unsigned; the
    /// baseline shows its value only (padded to the width of a change and flag).
    #[test]
    fn cells_show_value_signed_change_and_flag() {
        let us = Unit::NsAsUs;
        let worse = cell(12_345.0, -20.0, Some("*"));
        assert_eq!(
            text_cell(&worse, us, Direction::LowerIsBetter, false),
            "12.345  -20.0% *"
        );
        let better = cell(1.2, 20.0, Some("^"));
        assert_eq!(
            text_cell(
                &better,
                Unit::Number { decimals: 3 },
                Direction::HigherIsBetter,
                false
            ),
            "1.200  +20.0% ^"
        );
        assert_eq!(
            text_cell(
                &cell(120.5, 20.0, None),
                Unit::PerSec,
                Direction::Neutral,
                false
            ),
            "120.5   20.0%  "
        );
        assert_eq!(
            text_cell(&worse, us, Direction::LowerIsBetter, true),
            "12.345      "
        );
    }
}
