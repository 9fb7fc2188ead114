//! Helpers shared by the `compare_*` tests: loading traces, building runs,
//! finding cells, and the expected arithmetic of metrics.md §8 written out again
//! (independently of `analysis::compare::summary`).
#![allow(dead_code)]

use analysis::compare::model::{Cell, Comparison, MetricRow};
use analysis::compare::{Repeat, Run};
use std::path::PathBuf;

pub fn shared(rel: &str) -> PathBuf {
    fixtures::trace(rel)
}

pub fn load(rel: &str) -> Repeat {
    analysis::compare::load::load(&shared(rel), &Default::default())
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

pub fn run(label: &str, repeats: Vec<Repeat>) -> Run {
    Run {
        label: label.into(),
        repeats,
    }
}

pub fn system_row<'a>(c: &'a Comparison, key: &str) -> &'a MetricRow {
    c.system
        .iter()
        .find(|r| r.key == key)
        .unwrap_or_else(|| panic!("no system metric {key}"))
}

pub fn task_row<'a>(c: &'a Comparison, task: &str, key: &str) -> &'a MetricRow {
    let t = c
        .tasks
        .tasks
        .iter()
        .find(|t| t.name == task)
        .unwrap_or_else(|| panic!("no task {task} in the task table"));
    t.metrics
        .iter()
        .find(|m| m.key == key)
        .unwrap_or_else(|| panic!("no task metric {key}"))
}

pub fn cell<'a>(row: &'a MetricRow, label: &str) -> &'a Cell {
    row.cells
        .iter()
        .find(|c| c.label == label)
        .unwrap_or_else(|| panic!("no cell {label} in {}", row.key))
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

pub fn assert_close(what: &str, got: Option<f64>, want: Option<f64>) {
    match (got, want) {
        (Some(g), Some(w)) => assert!(close(g, w), "{what}: got {g}, want {w}"),
        (None, None) => {}
        _ => panic!("{what}: got {got:?}, want {want:?}"),
    }
}

/// What one label's cell must hold given its repeat values and the baseline's,
/// computed here from the definitions: sample stddev, change signed so positive is better.
pub struct Expected {
    pub mean: Option<f64>,
    pub cv_pct: Option<f64>,
    pub normalized: Option<f64>,
    pub change_pct: Option<f64>,
    pub flag: Option<&'static str>,
}

fn mean_cv(values: &[f64]) -> (Option<f64>, Option<f64>) {
    if values.is_empty() {
        return (None, None);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 || mean == 0.0 {
        return (Some(mean), None);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (Some(mean), Some(var.sqrt() / mean.abs() * 100.0))
}

/// `better` is the row's direction (`higher`, `lower`, `neutral`); `shown` and
/// `base_shown` are the compared values when they are not the means (pooled percentiles).
pub fn expected(values: &[f64], base: &[f64], better: &str, threshold: f64) -> Expected {
    expected_shown(values, base, better, threshold, (None, None))
}

pub fn expected_shown(
    values: &[f64],
    base: &[f64],
    better: &str,
    threshold: f64,
    (shown, base_shown): (Option<f64>, Option<f64>),
) -> Expected {
    let (mean, cv) = mean_cv(values);
    let (bmean, bcv) = mean_cv(base);
    let (value, bvalue) = (shown.or(mean), base_shown.or(bmean));
    let normalized = match (value, bvalue) {
        (Some(m), Some(b)) if b != 0.0 => Some(m / b),
        _ => None,
    };
    let change_pct = normalized.map(|r| {
        let c = (r - 1.0) * 100.0;
        match better {
            "higher" => c,
            "lower" => -c,
            _ => c.abs(),
        }
    });
    let noise = 2.0 * cv.unwrap_or(0.0).max(bcv.unwrap_or(0.0));
    let flag = change_pct.filter(|_| better != "neutral").and_then(|c| {
        if c.abs() > threshold + 1e-9 && c.abs() > noise + 1e-9 {
            Some(if c > 0.0 { "^" } else { "*" })
        } else {
            None
        }
    });
    Expected {
        mean,
        cv_pct: cv,
        normalized,
        change_pct,
        flag,
    }
}

/// Checks `cell` against the independently computed expectation.
pub fn check_cell(what: &str, cell: &Cell, want: &Expected, is_base: bool) {
    assert_close(&format!("{what} mean"), cell.mean, want.mean);
    assert_close(&format!("{what} cv"), cell.cv_pct, want.cv_pct);
    assert_close(
        &format!("{what} normalized"),
        cell.normalized,
        want.normalized,
    );
    let change = if is_base {
        want.change_pct.map(|_| 0.0)
    } else {
        want.change_pct
    };
    assert_close(&format!("{what} change"), cell.change_pct, change);
    let flag = if is_base { None } else { want.flag };
    assert_eq!(cell.flag.as_deref(), flag, "{what} flag");
}

/// PDS named the massive_intr tasks `mintr0..2` and the spinner `mspin`.
pub const MI_ALIASES: [(&str, &str); 4] = [
    ("mintr0", "mi-work0"),
    ("mintr1", "mi-work1"),
    ("mintr2", "mi-work2"),
    ("mspin", "mi-spin"),
];

/// The options of the mi comparisons: PDS's names matched through [`MI_ALIASES`], the
/// system rows over the workload tasks.
pub fn mi_options() -> analysis::compare::Options {
    use analysis::compare::matching::{MatchBy, Matching};
    analysis::compare::Options {
        matching: Matching {
            by: MatchBy::Exact,
            aliases: MI_ALIASES
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        },
        workload: Some(regex::Regex::new("mi-|mintr|mspin").unwrap()),
        ..Default::default()
    }
}
