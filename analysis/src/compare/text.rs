//! The comparison as fixed-width text (the default of `schedtrace compare`): the runs,
//! scope and worst waits, then one table per metric group with the value of every run,
//! its change against the baseline and the flag. Fits the width asked for (100 columns
//! by default) by splitting the runs into column groups; `--wide` shows every metric.

use super::grid::{blocks, legend, preamble, shown, wrap, Table};
use super::metrics::{Better, Metric, Unit};
use super::model::{Cell, Comparison};

/// How a comparison is laid out.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Task metrics shown, one block each (empty: the default set).
    pub task_metrics: Vec<&'static Metric>,
    /// Every metric, and no width limit.
    pub wide: bool,
    /// Line width limit (ignored with `wide`).
    pub width: usize,
}

impl Layout {
    pub fn width(&self) -> Option<usize> {
        (!self.wide).then_some(self.width.max(40))
    }
}

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
    out
}

fn direction(b: Better) -> &'static str {
    match b {
        Better::Higher => "higher is better",
        Better::Lower => "lower is better",
        Better::Neutral => "neutral (change unsigned, no flag)",
    }
}

/// `value change flag`: `12.35 +3.2% ^`; the baseline shows its value only.
fn text_cell(cell: &Cell, unit: Unit, better: Better, is_base: bool) -> String {
    let v = shown(cell, unit);
    if is_base {
        return format!("{v}      ");
    }
    let change = match (cell.change_pct, better) {
        (None, _) => "-".to_string(),
        (Some(c), Better::Neutral) => format!("{c:.1}%"),
        (Some(c), _) => format!("{c:+.1}%"),
    };
    format!("{v} {change:>7} {}", cell.flag.as_deref().unwrap_or(" "))
}
