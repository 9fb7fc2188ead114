//! The comparison as fixed-width text (pastes cleanly into a mail): a header per run,
//! the system table and one task table per chosen task metric. One row per metric and
//! label, so any number of labels fits in 90 columns.

use super::metrics::{TaskMetric, Unit, SYSTEM_METRICS, TASK_METRICS};
use super::model::{Cell, Comparison, MetricRow};
use std::fmt::Write;

const NAME_WIDTH: usize = 20;
const LABEL_WIDTH: usize = 28;

/// Renders `c`; the task tables show `task_metrics` (the sort metric first when empty).
pub fn render(c: &Comparison, task_metrics: &[&TaskMetric]) -> String {
    let mut out = String::new();
    runs(c, &mut out);
    let _ = writeln!(
        out,
        "\nbaseline: {}. change %: positive = better; flag `*` regression, `^` improvement\n\
         when |change| > {} % and > 2 x the larger CV (CV = sample stddev (n - 1) / mean).\n",
        c.base, c.threshold_pct
    );
    table_head("system", &mut out);
    for row in &c.system {
        let unit = SYSTEM_METRICS
            .iter()
            .find(|m| m.key == row.key)
            .map_or(Unit::Number, |m| m.unit);
        rows(&row.name, unit, row, &mut out);
    }
    let sort = TASK_METRICS.iter().find(|m| m.key == c.tasks.sort);
    let default = [sort.unwrap_or(&TASK_METRICS[0])];
    let shown: &[&TaskMetric] = if task_metrics.is_empty() {
        &default
    } else {
        task_metrics
    };
    for metric in shown {
        let _ = writeln!(
            out,
            "\ntasks: {} ({}); top {} by {}; names with trailing digits folded; - = not in the run",
            metric.name,
            unit_text(metric.unit),
            c.tasks.top,
            c.tasks.sort
        );
        table_head("task", &mut out);
        for task in &c.tasks.tasks {
            if let Some(row) = task.metrics.iter().find(|m| m.key == metric.key) {
                rows(&task.name, metric.unit, row, &mut out);
            }
        }
    }
    out
}

fn unit_text(unit: Unit) -> &'static str {
    match unit {
        Unit::Count => "count",
        Unit::Number => "number",
        u => u.shown(),
    }
}

fn runs(c: &Comparison, out: &mut String) {
    let _ = writeln!(
        out,
        " {:<w$} {:<10} {:<24} {:>3} {:>9} {:>9} {:>6}",
        "run",
        "scheduler",
        "kernel",
        "rep",
        "window s",
        "events",
        "lost",
        w = LABEL_WIDTH
    );
    let _ = writeln!(out, " {}", "-".repeat(LABEL_WIDTH + 66));
    let mut files = String::new();
    for run in &c.runs {
        for (i, r) in run.repeats.iter().enumerate() {
            let lost = if r.lost_unknown > 0 {
                format!("{}+?", r.lost_events)
            } else {
                r.lost_events.to_string()
            };
            let first = i == 0;
            let _ = writeln!(
                out,
                " {:<lw$} {:<10} {:<24} {:>3} {:>9.3} {:>9} {:>6}",
                if first {
                    cut(&run.label, LABEL_WIDTH)
                } else {
                    String::new()
                },
                cut(&r.scheduler, 10),
                cut(r.kernel_release.as_deref().unwrap_or("unknown"), 24),
                if first {
                    run.repeats.len().to_string()
                } else {
                    String::new()
                },
                r.window_ns as f64 / 1e9,
                r.events,
                lost,
                lw = LABEL_WIDTH
            );
            let _ = writeln!(
                files,
                "   {}{}: {}{}",
                run.label,
                if run.repeats.len() > 1 {
                    format!(" [{}]", i + 1)
                } else {
                    String::new()
                },
                r.path,
                if r.from_json_report {
                    " (JSON report)"
                } else {
                    ""
                },
            );
        }
    }
    let _ = write!(out, " files:\n{files}");
}

fn table_head(first: &str, out: &mut String) {
    let _ = writeln!(
        out,
        " {:<nw$} {:<4} {:<lw$} {:>2} {:>12} {:>6} {:>7} {:>8}",
        first,
        "unit",
        "run",
        "n",
        "mean",
        "cv %",
        "norm",
        "change %",
        nw = NAME_WIDTH,
        lw = LABEL_WIDTH
    );
    let _ = writeln!(out, " {}", "-".repeat(NAME_WIDTH + LABEL_WIDTH + 46));
}

/// One line per label; the metric name and unit only on the first.
fn rows(name: &str, unit: Unit, row: &MetricRow, out: &mut String) {
    for (i, cell) in row.cells.iter().enumerate() {
        let first = i == 0;
        let mut line = String::new();
        let _ = write!(
            line,
            " {:<nw$} {:<4} {:<lw$} {:>2} {:>12} {:>6} {:>7} {:>8} {}",
            if first {
                cut(name, NAME_WIDTH)
            } else {
                String::new()
            },
            if first { unit.shown() } else { "" },
            cut(&cell.label, LABEL_WIDTH),
            cell.n,
            cell.mean.map_or("-".into(), |m| value(unit.scale(m))),
            cell.cv_pct.map_or("-".into(), |v| format!("{v:.1}")),
            cell.normalized.map_or("-".into(), |v| format!("{v:.3}")),
            change(cell),
            cell.flag.as_deref().unwrap_or(""),
            nw = NAME_WIDTH,
            lw = LABEL_WIDTH
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

fn change(cell: &Cell) -> String {
    match cell.change_pct {
        None => "-".into(),
        Some(0.0) => "0.0".into(),
        Some(c) => format!("{c:+.1}"),
    }
}

/// About five significant digits without exponent noise.
fn value(v: f64) -> String {
    let a = v.abs();
    // Whole numbers (counts) and large values without decimals.
    if (v.fract() == 0.0 && a < 1e15) || a >= 10_000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// `s` cut to `width` characters with a `~` in the middle: the start names the
/// scheduler, the end tells kernel builds apart.
fn cut(s: &str, width: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= width {
        return s.to_string();
    }
    let head = (width - 1) / 2;
    let tail = width - 1 - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('~');
    out.extend(&chars[chars.len() - tail..]);
    out
}
