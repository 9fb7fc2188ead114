//! `compare --format lkml`: the layout scheduler patch mails use (mmtests-style blocks):
//! a legend, then per metric group a header with `Test`, `Units`, `Interpretation`,
//! `Statistic`, and one row per case with one column per run, each cell
//! `norm [pct imp](CV)` as in `1.05 [ -5.18]( 2.04)`, the flag after it.

use super::grid::{blocks, interpretation, legend, preamble, value, wrap, Table};
use super::Layout;
use analysis::compare::model::{Cell, Comparison};

const RULE: &str = "==================================================================";

pub fn render(c: &Comparison, layout: &Layout) -> String {
    let width = layout.width();
    let fit = |s: &str| width.map_or(s.to_string(), |w| wrap(s, w).join("\n"));
    let mut out = String::new();
    out.push_str("o Legend\n\n");
    for line in [
        "  [pct imp] is the change against the baseline in %, positive = improvement".to_string(),
        "  (CV) is the coefficient of variation over the repeats in % (- with one repeat)"
            .to_string(),
        "  norm is the value divided by the baseline's (Base, in the unit of the case)".to_string(),
    ]
    .into_iter()
    .chain(legend(c).into_iter().map(|l| format!("  {l}")))
    {
        out.push_str(&fit(&line));
        out.push('\n');
    }
    out.push('\n');
    for line in preamble(c, "o ", width) {
        out.push_str(&line);
        out.push('\n');
    }
    let why = super::why::lines(c, width);
    if layout.explain && !why.is_empty() {
        out.push_str("\no Why: change of each role's wait, by what its CPU ran\n");
        for line in why {
            out.push_str(&line);
            out.push('\n');
        }
    }
    for block in blocks(c, &layout.task_metrics, layout.wide) {
        let units = match block.unit.map(|u| u.shown()) {
            None => "Normalized to the baseline; Base in the unit the case names".to_string(),
            Some("") => "Normalized to the baseline; Base as a plain number".to_string(),
            Some(u) => format!("Normalized to the baseline; Base in {u}"),
        };
        let statistic = if block
            .rows
            .iter()
            .any(|(_, _, r)| r.cells.iter().any(|c| c.pooled.is_some()))
        {
            "AMean (percentiles: of the pooled samples of all repeats)"
        } else {
            "AMean"
        };
        out.push('\n');
        for line in [
            RULE.to_string(),
            format!("Test          : {}", block.title),
            format!("Units         : {units}"),
            format!("Interpretation: {}", interpretation(block.better)),
            format!("Statistic     : {statistic}"),
            RULE.to_string(),
        ] {
            out.push_str(&fit(&line));
            out.push('\n');
        }
        let base = c.runs.iter().position(|r| r.label == c.base).unwrap_or(0);
        let table = Table {
            case_header: "Case:".into(),
            base_header: "Base".into(),
            headers: c
                .runs
                .iter()
                .map(|r| format!("{}[pct imp](CV)", r.label))
                .collect(),
            rows: block
                .rows
                .iter()
                .map(|(case, unit, row)| {
                    let base_value = row.cells[base]
                        .value
                        .map_or("-".into(), |v| value(unit.scale(v)));
                    (
                        case.clone(),
                        base_value,
                        row.cells.iter().map(lkml_cell).collect(),
                    )
                })
                .collect(),
        };
        table.render(width, " ", &mut out);
    }
    out
}

/// `1.05 [ -5.18]( 2.04) *`: normalized value, change in %, CV in %, flag (`-` where
/// not available). Large numbers drop decimals so that every cell keeps its width.
pub(super) fn lkml_cell(cell: &Cell) -> String {
    let norm = cell.normalized.map_or("    -".into(), |n| fixed(n, 5));
    let change = cell.change_pct.map_or("     -".into(), |p| fixed(p, 6));
    let cv = cell.cv_pct.map_or("    -".into(), |v| fixed(v, 5));
    let flag = cell.flag.as_deref().unwrap_or(" ");
    format!("{norm} [{change}]({cv}) {flag}")
}

/// `v` right-aligned in `width` with two decimals, fewer when it would not fit.
fn fixed(v: f64, width: usize) -> String {
    for decimals in [2, 1, 0] {
        let s = format!("{v:>width$.decimals$}");
        if s.len() <= width {
            return s;
        }
    }
    format!("{v:.0}")
}
