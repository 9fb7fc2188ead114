//! What one row of a comparison measures in one repeat: a set of task rows of one report
//! (a role, the workload, or every task) with their exact samples when the repeat was
//! analysed from a trace, and the workload totals that shares divide by.

use super::Repeat;
use crate::columns::compare::{Dist, Stat};
use crate::report::TaskSamples;
use crate::stats::{Samples, Stats};
use serde_json::Value;

/// Where a distribution lives in a task row and in its samples.
impl Dist {
    /// The task row's summary of it (JSON `STATS`).
    fn field(self) -> &'static str {
        match self {
            Dist::Wakeup => "wakeup_latency",
            Dist::Preemption => "preemption_wait",
            Dist::Slices => "slices",
            Dist::SchedDelay => "sched_delay",
        }
    }

    fn samples(self, s: &TaskSamples) -> Samples {
        match self {
            Dist::Wakeup => s.wakeup_latency(),
            Dist::Preemption => s.preemption_wait.clone(),
            Dist::Slices => s.slices.clone(),
            Dist::SchedDelay => s.sched_delay(),
        }
    }
}

/// A statistic of a summary or of samples.
impl Stat {
    fn of(self, s: &Stats) -> Option<f64> {
        if s.count == 0 {
            return None;
        }
        // The mean from sum / count, not the rounded `mean_ns`.
        Some(match self {
            Stat::Mean => s.sum_ns as f64 / s.count as f64,
            Stat::P50 => s.p50_ns as f64,
            Stat::P90 => s.p90_ns as f64,
            Stat::P99 => s.p99_ns as f64,
            Stat::Max => s.max_ns as f64,
        })
    }

    fn pointer(self) -> &'static str {
        match self {
            Stat::Mean => "mean_ns",
            Stat::P50 => "p50_ns",
            Stat::P90 => "p90_ns",
            Stat::P99 => "p99_ns",
            Stat::Max => "max_ns",
        }
    }
}

/// A set of tasks of one repeat.
pub(super) struct Subject<'a> {
    pub report: &'a Value,
    /// The task rows (JSON, as `analyze --json` writes them).
    pub rows: Vec<&'a Value>,
    /// Their samples, in the order of `rows`; `None` when any row lacks them (a repeat
    /// read from a JSON report).
    pub samples: Option<Vec<&'a TaskSamples>>,
    /// The workload's task rows (denominators of shares).
    pub workload: Vec<&'a Value>,
    /// The rows that are also in the workload (numerators of shares: a task outside the
    /// workload has no share of it).
    pub rows_in_workload: Vec<&'a Value>,
    pub window_ns: u64,
}

impl<'a> Subject<'a> {
    /// The tasks of `repeat` at `indices` (of its `tasks` array); `workload` likewise.
    pub(super) fn new(repeat: &'a Repeat, indices: &[usize], workload: &[usize]) -> Subject<'a> {
        let tasks = repeat.report["tasks"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let samples = repeat.samples.as_ref().and_then(|all| {
            indices
                .iter()
                .map(|&i| all.get(i).and_then(Option::as_ref))
                .collect::<Option<Vec<_>>>()
        });
        let at = |i: &usize| tasks.get(*i);
        let u64_at = |p: &str| {
            repeat
                .report
                .pointer(p)
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        Subject {
            report: &repeat.report,
            rows: indices.iter().filter_map(at).collect(),
            rows_in_workload: indices
                .iter()
                .filter(|i| workload.contains(i))
                .filter_map(at)
                .collect(),
            samples,
            workload: workload.iter().filter_map(at).collect(),
            window_ns: u64_at("/window/end_ns").saturating_sub(u64_at("/window/start_ns")),
        }
    }

    /// Sum of the numbers at `pointers` over the rows.
    pub(super) fn sum(&self, pointers: &[&str]) -> Option<f64> {
        sum_over(&self.rows, pointers)
    }

    /// The rows' share of the workload's sum at `pointer`.
    pub(super) fn share(&self, pointer: &str) -> Option<f64> {
        let part = sum_over(&self.rows_in_workload, &[pointer])?;
        let whole = sum_over(&self.workload, &[pointer])?;
        (whole != 0.0).then(|| part / whole)
    }

    pub(super) fn max(&self, pointer: &str) -> Option<f64> {
        self.rows
            .iter()
            .filter_map(|r| number(r, pointer))
            .reduce(f64::max)
    }

    /// `total` per second of the window.
    pub(super) fn per_sec(&self, total: f64) -> Option<f64> {
        (self.window_ns > 0).then(|| total * 1e9 / self.window_ns as f64)
    }

    /// Jain's index (Σx)² / (n Σx²) of the rows' fairness ratios (rows that competed).
    pub(super) fn jain(&self) -> Option<f64> {
        let ratios: Vec<f64> = self
            .rows
            .iter()
            .filter_map(|r| number(r, "/fairness/ratio"))
            .collect();
        let sum: f64 = ratios.iter().sum();
        let squares: f64 = ratios.iter().map(|x| x * x).sum();
        (squares > 0.0).then(|| sum * sum / (ratios.len() as f64 * squares))
    }

    /// `stat` of the rows' `dist`: exact from the samples, or from the one row's summary;
    /// for several rows without samples, mean and max stay exact and a percentile is the
    /// largest of the rows' (an upper bound: the second value says it is not exact).
    pub(super) fn dist(&self, dist: Dist, stat: Stat) -> (Option<f64>, bool) {
        if let Some(samples) = &self.samples {
            let parts: Vec<Samples> = samples.iter().map(|s| dist.samples(s)).collect();
            let refs: Vec<&Samples> = parts.iter().collect();
            return (stat.of(&Samples::union(&refs).stats()), true);
        }
        let field = |r: &Value, f: &str| number(r, &format!("/{}/{f}", dist.field()));
        match (stat, self.rows.as_slice()) {
            (_, []) => (None, true),
            (Stat::Mean, rows) => {
                let sum: Option<f64> = rows.iter().map(|r| field(r, "sum_ns")).sum();
                let count: Option<f64> = rows.iter().map(|r| field(r, "count")).sum();
                let mean = match (sum, count) {
                    (Some(s), Some(c)) if c > 0.0 => Some(s / c),
                    _ => None,
                };
                (mean, true)
            }
            (_, [row]) => (
                field(row, "count")
                    .filter(|&c| c > 0.0)
                    .and_then(|_| field(row, stat.pointer())),
                true,
            ),
            (_, rows) => {
                let counted = rows
                    .iter()
                    .filter(|r| field(r, "count").is_some_and(|c| c > 0.0));
                let top = counted
                    .filter_map(|r| field(r, stat.pointer()))
                    .reduce(f64::max);
                (top, stat == Stat::Max)
            }
        }
    }

    /// `stat` over every sample of every repeat; `None` unless all repeats have samples.
    pub(super) fn pooled(repeats: &[Subject], dist: Dist, stat: Stat) -> Option<f64> {
        let mut parts: Vec<Samples> = Vec::new();
        for r in repeats {
            parts.extend(r.samples.as_ref()?.iter().map(|s| dist.samples(s)));
        }
        let refs: Vec<&Samples> = parts.iter().collect();
        stat.of(&Samples::union(&refs).stats())
    }
}

/// Sum over `rows` of the numbers they have at `pointers` (a task that never competed has
/// no `fairness`); `None` when none has any.
fn sum_over(rows: &[&Value], pointers: &[&str]) -> Option<f64> {
    rows.iter()
        .flat_map(|r| pointers.iter().filter_map(move |p| number(r, p)))
        .reduce(|a, b| a + b)
}

/// The finite number at `pointer` of `v` (a report or a task row).
pub(crate) fn number(v: &Value, pointer: &str) -> Option<f64> {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
}
