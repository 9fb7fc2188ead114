//! The measurements: for one workload and every ordered pair of its kernels (A → B), B's
//! model run on A's capture, and `compare` of B's real capture, the prediction and A's
//! capture (the null prediction "B behaves like A"), role by role.
//!
//! Every number is what `schedtrace compare real=B.dat predicted=B.pftrace null=A.dat
//! --match … --workload …` computes (its task table, pooled percentiles of the exact samples):
//! roles, merges and metrics are `compare`'s, not restated here.

use super::cases::{Kernel, Workload};
use analysis::compare::{self, Repeat, Run};
use replay::sim::{simulate, SimOptions};
use std::path::Path;

/// How a metric's error is measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ErrorRule {
    /// |predicted − real| in percentage points (the value is a fraction).
    Points,
    /// |predicted − real| / real in %.
    Relative,
}

/// A metric of the validation: a row of `compare`'s task table.
pub struct Metric {
    /// The `compare` task metric key.
    pub key: &'static str,
    /// Column title in the table.
    pub title: &'static str,
    pub rule: ErrorRule,
}

pub const METRICS: [Metric; 6] = [
    Metric {
        key: "runtime-share",
        title: "share",
        rule: ErrorRule::Points,
    },
    Metric {
        key: "involuntary",
        title: "invol/s",
        rule: ErrorRule::Relative,
    },
    Metric {
        key: "slice-p50",
        title: "slice p50",
        rule: ErrorRule::Relative,
    },
    Metric {
        key: "preempting-wakeups",
        title: "preempt/wakeup",
        rule: ErrorRule::Relative,
    },
    Metric {
        key: "wakeup-p50",
        title: "wakeup p50",
        rule: ErrorRule::Relative,
    },
    Metric {
        key: "wakeup-p90",
        title: "wakeup p90",
        rule: ErrorRule::Relative,
    },
];

/// One role's value of one metric: in B's capture, predicted, and in A's capture.
#[derive(Debug, Clone)]
pub struct RoleValue {
    pub role: String,
    pub real: Option<f64>,
    pub predicted: Option<f64>,
    pub null: Option<f64>,
}

/// Every role's value of every metric for one pair.
pub struct Pair {
    pub workload: &'static str,
    pub from: Kernel,
    pub to: Kernel,
    /// Per metric of [`METRICS`], per role.
    pub values: Vec<Vec<RoleValue>>,
}

/// A capture read for the validation: its report (as `compare` loads it) and its demand.
struct Capture {
    kernel: Kernel,
    repeat: Repeat,
    demand: replay::demand::Demand,
}

fn run(label: &str, repeat: &Repeat) -> Run {
    Run {
        label: label.to_string(),
        repeats: vec![repeat.clone()],
    }
}

/// Every ordered pair of `w`'s kernels; predictions are written under `dir`.
pub fn pairs(w: &Workload, dir: &Path) -> Vec<Pair> {
    let captures: Vec<Capture> = w
        .kernels()
        .into_iter()
        .map(|kernel| {
            let path = w.trace(&kernel);
            let repeat = compare::load::load(&path, &Default::default()).unwrap();
            let demand = replay::extract(&path, &replay::Options::default())
                .unwrap()
                .demand;
            Capture {
                kernel,
                repeat,
                demand,
            }
        })
        .collect();
    let options = compare::Options {
        top: 100,
        matching: w.matching(),
        comm: Some(w.tasks()),
        workload: Some(w.tasks()),
        ..Default::default()
    };
    let mut out = Vec::new();
    for a in &captures {
        for b in &captures {
            let prediction = simulate(&a.demand, b.kernel.model, SimOptions::default()).unwrap();
            let file = dir.join(format!(
                "{}-{}-{}.pftrace",
                w.name, a.kernel.dir, b.kernel.dir
            ));
            replay::predicted::write_file(&a.demand, &prediction, &file).unwrap();
            let predicted = compare::load::load(&file, &Default::default()).unwrap();
            std::fs::remove_file(&file).ok();
            let runs = [
                run("real", &b.repeat),
                run("predicted", &predicted),
                run("null", &a.repeat),
            ];
            let c = compare::compare(&runs, &options).unwrap();
            let values = METRICS
                .iter()
                .map(|m| {
                    c.tasks
                        .tasks
                        .iter()
                        .map(|role| {
                            let row = role
                                .metrics
                                .iter()
                                .find(|r| r.key == m.key)
                                .unwrap_or_else(|| panic!("compare has no task metric {}", m.key));
                            RoleValue {
                                role: role.name.clone(),
                                real: row.cells[0].value,
                                predicted: row.cells[1].value,
                                null: row.cells[2].value,
                            }
                        })
                        .collect()
                })
                .collect();
            out.push(Pair {
                workload: w.name,
                from: a.kernel,
                to: b.kernel,
                values,
            });
        }
    }
    out
}
