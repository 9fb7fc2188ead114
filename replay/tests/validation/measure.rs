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
    /// The `compare` rate row (per second) counting the events this metric is a
    /// statistic of, in B's capture; `None` for a share (no events).
    pub events: Option<&'static str>,
}

pub const METRICS: [Metric; 6] = [
    Metric {
        key: "runtime-share",
        title: "share",
        rule: ErrorRule::Points,
        events: None,
    },
    Metric {
        key: "involuntary",
        title: "invol/s",
        rule: ErrorRule::Relative,
        events: Some("involuntary"),
    },
    Metric {
        key: "slice-p50",
        title: "slice p50",
        rule: ErrorRule::Relative,
        events: Some("switches"),
    },
    Metric {
        key: "preempting-wakeups",
        title: "preempt/wakeup",
        rule: ErrorRule::Relative,
        events: Some("wakeups"),
    },
    Metric {
        key: "wakeup-p50",
        title: "wakeup p50",
        rule: ErrorRule::Relative,
        events: Some("wakeups"),
    },
    Metric {
        key: "wakeup-p90",
        title: "wakeup p90",
        rule: ErrorRule::Relative,
        events: Some("wakeups"),
    },
];

/// One role's value of one metric: in B's capture, predicted, and in A's capture.
#[derive(Debug, Clone)]
pub struct RoleValue {
    pub role: String,
    pub real: Option<f64>,
    pub predicted: Option<f64>,
    pub null: Option<f64>,
    /// How many of the events the metric is a statistic of the role has in B's capture
    /// (wakeups, switches, involuntary switches); `None` for a share.
    pub real_events: Option<u64>,
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
            let window_s = c.runs[0].repeats[0].window_ns as f64 / 1e9;
            let values = METRICS
                .iter()
                .map(|m| {
                    c.tasks
                        .tasks
                        .iter()
                        .map(|role| {
                            let row = |key: &str| {
                                role.metrics
                                    .iter()
                                    .find(|r| r.key == key)
                                    .unwrap_or_else(|| panic!("compare has no task metric {key}"))
                            };
                            let cells = &row(m.key).cells;
                            // A rate times B's window: the count `compare` divided.
                            let real_events = m.events.map(|key| {
                                (row(key).cells[0].value.unwrap_or(0.0) * window_s).round() as u64
                            });
                            RoleValue {
                                role: role.name.clone(),
                                real: cells[0].value,
                                predicted: cells[1].value,
                                null: cells[2].value,
                                real_events,
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
