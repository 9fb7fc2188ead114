//! Comparing runs (metrics.md §8): several traces or JSON reports, labelled by the user
//! or by scheduler family and kernel, repeats of one label averaged, every label
//! measured against a baseline.
//!
//! Data flows: inputs ([`load`]: a trace is analysed like `analyze` does, a JSON report
//! from `analyze --json` is read as it is) → labelled runs ([`runs`]) → [`Comparison`]
//! ([`build`], using the compare tables of the column catalogue,
//! [`crate::columns::compare`], read by [`read`], and the arithmetic in [`summary`]) →
//! JSON ([`model`], `schemas/compare.schema.json`); the text layouts of it are in the
//! `render` crate (`render::compare`).
//!
//! Reports read from files are handled as `serde_json::Value`s so that a report written by
//! an older or newer schedtrace still compares: a metric it lacks shows as `-` (null in
//! JSON). A caller holding typed reports hands them over as they are ([`ReportSource`]):
//! the comparison is the same.
//!
//! # Choices where metrics.md §8 leaves room
//!
//! - CV uses the sample standard deviation (divisor n - 1); with one repeat it is `-`.
//! - Change: `(value / base value - 1) * 100`, negated for lower-is-better metrics (so a
//!   latency that halves is +50 %, one that doubles is -100 %); for neutral metrics the
//!   size of the change, unsigned, never flagged.
//! - Flag: `|change| > threshold`, `|change| > 2 * max(CV label, CV base)` and, with two or
//!   more repeats on both sides, Welch's p < alpha; with one repeat the threshold alone
//!   decides (the output says "threshold-only").
//! - Percentiles are of the pooled samples of all repeats when the repeats were analysed
//!   from traces; their CV and p-value come from the per-repeat values.
//! - Plain files (no `LABEL=`) with the same automatic label are *not* merged as
//!   repeats: they get ` #2`, ` #3` suffixes. Two captures from one kernel are most often
//!   a before/after pair that must not be averaged away. Repeats are asked for
//!   explicitly: `LABEL=a.dat,b.dat`, a plain `a.dat,b.dat`, or the same `LABEL=` twice.
//! - Tasks are matched by role ([`matching`]): exact name by default. Within one run the
//!   tasks of one role are merged: sums, maxima, exact percentiles from their samples (an
//!   upper bound when read back from JSON reports, said in `percentiles_exact`).
//! - Totals are rates per second of window: runs need not be equally long.

mod build;
pub mod explain;
pub mod load;
pub mod matching;
pub mod model;
mod read;
mod runs;
pub mod significance;
mod source;
mod subject;
mod summary;

pub use build::{compare, Options};
pub use model::Comparison;
pub use runs::{assemble, RunSpec};
pub use source::ReportSource;

use serde_json::Value;

/// One trace or report of a run: a JSON report (`R` = [`Value`]) or a typed one.
#[derive(Debug, Clone)]
pub struct Repeat<R = Value> {
    /// As given by the user.
    pub path: String,
    /// The report (as `analyze --json` writes it, or typed).
    pub report: R,
    /// True when the input was a JSON report rather than a trace.
    pub from_json_report: bool,
    /// The exact samples of each row of `report["tasks"]` (a trace analysed here);
    /// `None` for a JSON report, and for a typed report, which keeps them in its rows
    /// (unless `from_json_report`).
    pub samples: Option<Vec<Option<crate::report::TaskSamples>>>,
}

/// A label and its repeats.
#[derive(Debug, Clone)]
pub struct Run<R = Value> {
    pub label: String,
    pub repeats: Vec<Repeat<R>>,
}

/// The scheduler's name (PDS, BMQ, CFS, ...) of a report: `/source/scheduler_name`, else
/// from `/source/kernel_release`, else the family.
pub fn scheduler_name_of<R: ReportSource>(report: &R) -> String {
    if let Some(s) = report.text("/source/scheduler_name") {
        return s.to_string();
    }
    match report.text("/source/kernel_release") {
        Some(release) => crate::scheduler_name(release),
        None => scheduler_of(report),
    }
}

/// The scheduler family of a report: `/source/scheduler` when the report has it, else
/// derived from `/source/kernel_release`.
pub fn scheduler_of<R: ReportSource>(report: &R) -> String {
    if let Some(s) = report.text("/source/scheduler") {
        return s.to_string();
    }
    // A report written before `source.scheduler` existed.
    report
        .text("/source/kernel_release")
        .map_or(crate::SchedulerFamily::Unknown, crate::scheduler_family)
        .name()
        .to_string()
}
