//! `compare --format markdown`: the same blocks as GitHub / wiki tables, each cell the
//! value with `norm [pct imp](CV)` and the flag.

use super::grid::{blocks, interpretation, legend, preamble, shown};
use super::lkml::lkml_cell;
use super::Layout;
use analysis::compare::model::Comparison;
use std::fmt::Write;

pub fn render(c: &Comparison, layout: &Layout) -> String {
    let mut out = String::new();
    for line in preamble(c, "", None) {
        let line = match line.strip_prefix("  ") {
            Some(rest) => format!("- {}", rest.trim_start()),
            None => format!("\n**{line}**\n"),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out.push('\n');
    for line in legend(c) {
        let _ = writeln!(out, "{line}");
    }
    for block in blocks(c, &layout.task_metrics, layout.wide) {
        let unit = block.unit.map_or(String::new(), |u| match u.shown() {
            "" => String::new(),
            s => format!(" ({s})"),
        });
        let _ = writeln!(
            out,
            "\n### {}{unit}: {}\n",
            block.title,
            interpretation(block.better)
        );
        let _ = write!(out, "| case |");
        for r in &c.runs {
            let _ = write!(out, " {} |", r.label.replace('|', "\\|"));
        }
        let _ = write!(out, "\n|---|");
        for _ in &c.runs {
            out.push_str("---:|");
        }
        out.push('\n');
        for (case, unit, row) in &block.rows {
            let _ = write!(out, "| {} |", case.replace('|', "\\|"));
            for cell in &row.cells {
                let _ = write!(
                    out,
                    " {} `{}` |",
                    shown(cell, *unit),
                    lkml_cell(cell).trim_end()
                );
            }
            out.push('\n');
        }
    }
    let why = super::why::lines(c, None);
    if layout.explain && !why.is_empty() {
        out.push_str("\n### Why: change of each role's wait, by what its CPU ran\n\n");
        for line in why {
            // A run's longest wait belongs to the sentences above it.
            let nest = if line.starts_with("    ") { "  " } else { "" };
            let _ = writeln!(out, "{nest}- {}", line.trim_start());
        }
    }
    out
}
