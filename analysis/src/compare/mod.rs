//! Comparing runs (metrics.md §8): several traces or JSON reports, labelled by the user
//! or by scheduler family and kernel, repeats of one label averaged, every label
//! measured against a baseline.
//!
//! Data flows: inputs ([`load`]: a trace is analysed like `analyze` does, a JSON report
//! from `analyze --json` is read as it is) → labelled runs ([`runs`]) → [`Comparison`]
//! ([`build`], using the metric tables in [`metrics`] and the arithmetic in
//! [`summary`]) → text ([`text`]) or JSON ([`model`], `schemas/compare.schema.json`).
//!
//! Reports are handled as `serde_json::Value`s so that a report written by an older or
//! newer schedtrace still compares: a metric it lacks shows as `-` (null in JSON).
//!
//! # Choices where metrics.md §8 leaves room
//!
//! - CV uses the sample standard deviation (divisor n - 1); with one repeat it is `-`.
//! - Change: `(mean / base mean - 1) * 100`, negated for lower-is-better metrics (so a
//!   latency that halves is +50 %, one that doubles is -100 %).
//! - Flag: `|change| > threshold` and `|change| > 2 * max(CV label, CV base)`, a missing
//!   CV counting as 0.
//! - Mean of a percentile over repeats is the mean of each repeat's percentile.
//! - Plain files (no `LABEL=`) with the same automatic label are *not* merged as
//!   repeats: they get ` #2`, ` #3` suffixes. Two captures from one kernel are most often
//!   a before/after pair that must not be averaged away. Repeats are asked for
//!   explicitly: `LABEL=a.dat,b.dat`, a plain `a.dat,b.dat`, or the same `LABEL=` twice.
//! - Tasks are matched by `comm` with trailing digits folded; within one run the tasks of
//!   one name are summed. Task metrics are totals per task and only those that merge
//!   exactly from report summaries (no per-task percentiles), so comparing JSON reports
//!   gives the same numbers as comparing the traces.

pub mod build;
pub mod load;
pub mod metrics;
pub mod model;
pub mod runs;
pub mod summary;
pub mod text;

pub use build::{compare, Options};
pub use model::Comparison;
pub use runs::{assemble, RunSpec};

use serde_json::Value;

/// One trace or report of a run.
#[derive(Debug, Clone)]
pub struct Repeat {
    /// As given by the user.
    pub path: String,
    /// The report (as `analyze --json` writes it).
    pub report: Value,
    /// True when the input was a JSON report rather than a trace.
    pub from_json_report: bool,
}

/// A label and its repeats.
#[derive(Debug, Clone)]
pub struct Run {
    pub label: String,
    pub repeats: Vec<Repeat>,
}

/// The scheduler family of a report: `/source/scheduler` when the report has it, else
/// derived from `/source/kernel_release`.
pub fn scheduler_of(report: &Value) -> String {
    if let Some(s) = report.pointer("/source/scheduler").and_then(Value::as_str) {
        return s.to_string();
    }
    // A report written before `source.scheduler` existed.
    report
        .pointer("/source/kernel_release")
        .and_then(Value::as_str)
        .map_or(crate::SchedulerFamily::Unknown, crate::scheduler_family)
        .name()
        .to_string()
}
