//! The comparison as data: what `schedtrace compare --json` writes
//! (`schemas/compare.schema.json`) and what the text table is rendered from.
//!
//! Values are in the unit of the report they come from (`unit`: ns, 1/s, fraction,
//! number, count); `null` means not available (a metric missing from a report, a task
//! missing from a run, a CV with one repeat, a normalization by a zero baseline).

use serde::{Deserialize, Serialize};

pub const COMPARE_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub schema_version: u32,
    /// Label of the baseline run.
    pub base: String,
    /// A change is flagged when |change_pct| exceeds this and twice the larger CV.
    pub threshold_pct: f64,
    /// Which standard deviation the CVs use.
    pub stddev: String,
    pub runs: Vec<RunHeader>,
    pub system: Vec<MetricRow>,
    pub tasks: TaskTable,
}

/// One label: a run, measured once or repeated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    pub label: String,
    /// Scheduler family (metrics.md §8); several joined by " / " if repeats disagree.
    pub scheduler: String,
    /// Distinct kernel releases of the repeats.
    pub kernel_releases: Vec<String>,
    pub repeats: Vec<RepeatHeader>,
}

/// One trace (or JSON report) of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatHeader {
    pub path: String,
    /// `trace.dat`, `perf.data`, ... of the trace the report came from.
    pub format: Option<String>,
    /// True when the input was a JSON report written by `analyze --json`.
    pub from_json_report: bool,
    pub kernel_release: Option<String>,
    pub scheduler: String,
    pub window_ns: u64,
    /// Events read (all kinds).
    pub events: u64,
    /// Events the recorder reported lost (known counts).
    pub lost_events: u64,
    /// Loss records whose count was not known.
    pub lost_unknown: u64,
    pub context_switch_bugs: u64,
}

/// One metric across all labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    pub key: String,
    pub name: String,
    /// Unit of `values`, `mean`, `stddev`: ns, 1/s, fraction, number, count.
    pub unit: String,
    /// `higher` or `lower`: which direction is better.
    pub better: String,
    /// Where the value is read from in each report.
    pub source: String,
    /// One per label, in the order of `runs`.
    pub cells: Vec<Cell>,
}

/// One metric of one label against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub label: String,
    /// The value in each repeat (null where a repeat lacks it).
    pub values: Vec<Option<f64>>,
    /// Repeats with a value.
    pub n: usize,
    pub mean: Option<f64>,
    pub stddev: Option<f64>,
    pub cv_pct: Option<f64>,
    /// mean / baseline mean.
    pub normalized: Option<f64>,
    /// Change against the baseline in %, positive = better.
    pub change_pct: Option<f64>,
    /// `*` regression, `^` improvement, null otherwise.
    pub flag: Option<String>,
}

/// Tasks matched across runs by name pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskTable {
    /// `comm` with trailing digits folded (pids differ between runs).
    pub matched_by: String,
    /// Task metric that chose and ordered the tasks (largest mean in any run first).
    pub sort: String,
    pub top: usize,
    pub tasks: Vec<TaskComparison>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskComparison {
    /// The folded name.
    pub name: String,
    /// Labels in which at least one repeat has the task.
    pub present_in: Vec<String>,
    /// Every task metric, in the order of the task metric table.
    pub metrics: Vec<MetricRow>,
}
