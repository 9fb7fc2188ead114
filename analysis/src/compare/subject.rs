//! What one row of a comparison measures in one repeat: a set of task rows of one report
//! (a role, the workload, or every task) with their exact samples when the repeat was
//! analysed from a trace, and the workload totals that shares divide by.

use super::{Repeat, ReportSource};
use crate::columns::compare::{Dist, Stat};
use crate::report::TaskSamples;
use crate::stats::{Samples, Stats};

/// Where a distribution lives in a task's samples.
impl Dist {
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
pub(super) struct Subject<'a, R: ReportSource> {
    pub report: &'a R,
    /// The task rows (JSON, as `analyze --json` writes them, or typed).
    pub rows: Vec<&'a R::Task>,
    /// Their samples, in the order of `rows`; `None` when any row lacks them (a repeat
    /// read from a JSON report).
    pub samples: Option<Vec<&'a TaskSamples>>,
    /// The workload's task rows (denominators of shares).
    pub workload: Vec<&'a R::Task>,
    /// The rows that are also in the workload (numerators of shares: a task outside the
    /// workload has no share of it).
    pub rows_in_workload: Vec<&'a R::Task>,
    pub window_ns: u64,
}

impl<'a, R: ReportSource> Subject<'a, R> {
    /// The tasks of `repeat` at `indices` (of its `tasks` array); `workload` likewise.
    pub(super) fn new(
        repeat: &'a Repeat<R>,
        indices: &[usize],
        workload: &[usize],
    ) -> Subject<'a, R> {
        let tasks = repeat.report.tasks();
        let samples = match &repeat.samples {
            Some(all) => indices
                .iter()
                .map(|&i| all.get(i).and_then(Option::as_ref))
                .collect::<Option<Vec<_>>>(),
            // A typed report keeps each row's samples in the row (a trace analysed here;
            // one read back from a JSON report has none).
            None if R::CARRIES_SAMPLES && !repeat.from_json_report => indices
                .iter()
                .map(|&i| tasks.get(i).and_then(R::task_samples))
                .collect::<Option<Vec<_>>>(),
            None => None,
        };
        let at = |i: &usize| tasks.get(*i);
        let (start, end) = repeat.report.window();
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
            window_ns: end.saturating_sub(start),
        }
    }

    /// Sum of the numbers at `pointers` over the rows.
    pub(super) fn sum(&self, pointers: &[&str]) -> Option<f64> {
        sum_over::<R>(&self.rows, pointers)
    }

    /// The rows' share of the workload's sum at `pointer`.
    pub(super) fn share(&self, pointer: &str) -> Option<f64> {
        let part = sum_over::<R>(&self.rows_in_workload, &[pointer])?;
        let whole = sum_over::<R>(&self.workload, &[pointer])?;
        (whole != 0.0).then(|| part / whole)
    }

    pub(super) fn max(&self, pointer: &str) -> Option<f64> {
        self.rows
            .iter()
            .filter_map(|r| R::task_number(r, pointer))
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
            .filter_map(|r| R::task_number(r, "/fairness/ratio"))
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
        let field = |r: &R::Task, f: &str| R::task_stat(r, dist, f);
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
    pub(super) fn pooled(repeats: &[Subject<R>], dist: Dist, stat: Stat) -> Option<f64> {
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
fn sum_over<R: ReportSource>(rows: &[&R::Task], pointers: &[&str]) -> Option<f64> {
    rows.iter()
        .flat_map(|r| pointers.iter().filter_map(move |p| R::task_number(r, p)))
        .reduce(|a, b| a + b)
}
