//! The comparison as data: what `schedtrace compare --json` writes
//! (`schemas/compare.schema.json`) and what the text, LKML and markdown layouts render.
//!
//! Values are in the unit of the report they come from (`unit`: ns, 1/s, fraction,
//! number); `null` means not available (a metric missing from a report, a task missing
//! from a run, a CV with one repeat, a normalization by a zero baseline).

use crate::worst_wait::WorstWait;
use serde::{Deserialize, Serialize};

pub(crate) const COMPARE_SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub schema_version: u32,
    /// Label of the baseline run.
    pub base: String,
    /// A change is flagged when |change_pct| exceeds this, twice the larger CV and (with
    /// repeats) p < alpha.
    pub threshold_pct: f64,
    pub alpha: f64,
    /// Which standard deviation the CVs use.
    pub stddev: String,
    pub significance: Significance,
    pub scope: ScopeInfo,
    pub runs: Vec<RunHeader>,
    pub system: Vec<MetricRow>,
    pub tasks: TaskTable,
    /// Why each role (and the workload) waited more or less than in the baseline
    /// (`compare --explain`); absent from comparisons written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<super::explain::model::Explain>,
}

/// How changes are tested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Significance {
    pub test: String,
    pub confidence_interval: String,
    pub bootstrap_resamples: usize,
    pub bootstrap_seed: u64,
    /// Where the shown value of a percentile row comes from.
    pub percentiles: String,
    /// True when every percentile came from exact samples (false: some are upper bounds
    /// of merged tasks read back from JSON reports).
    pub percentiles_exact: bool,
}

/// What the numbers cover.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScopeInfo {
    /// The analysis options applied to every trace (`--time`, `--fair-set`, ...).
    pub analysis: Vec<String>,
    /// `--comm`: the task table shows only tasks whose name matches.
    pub comm: Option<String>,
    /// `--workload`: the system rows cover only the tasks it names.
    pub workload: Option<String>,
    /// The tasks the system rows are computed over, in words.
    pub system_rows_cover: String,
    /// What idle-while-runnable counts.
    pub idle_while_runnable: String,
    /// The tasks runtime and weight shares divide by.
    pub shares_of: String,
}

/// One label: a run, measured once or repeated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    pub label: String,
    /// Scheduler name (PDS, BMQ, CFS, EEVDF, ...); several joined by " / " if repeats disagree.
    pub scheduler: String,
    /// Scheduler family (metrics.md §8): CFS, EEVDF, BFS family, unknown.
    pub family: String,
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
    pub family: String,
    pub window_start_ns: u64,
    pub window_ns: u64,
    /// Events read (all kinds).
    pub events: u64,
    /// Events the recorder reported lost (known counts).
    pub lost_events: u64,
    /// Loss records whose count was not known.
    pub lost_unknown: u64,
    pub context_switch_bugs: u64,
    /// The longest wait and the starved tasks of this repeat (from its report).
    pub worst_wait: WorstWait,
}

/// One metric across all labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    pub key: String,
    pub name: String,
    /// Unit of the values: ns, 1/s, fraction, number.
    pub unit: String,
    /// `higher`, `lower` or `neutral`.
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
    /// Mean of `values`.
    pub mean: Option<f64>,
    /// A percentile over every sample of every repeat (null for other metrics, or when
    /// a repeat came from a JSON report without samples).
    pub pooled: Option<f64>,
    /// What is shown and compared: `pooled` when there is one, else `mean`.
    pub value: Option<f64>,
    pub stddev: Option<f64>,
    pub cv_pct: Option<f64>,
    /// value / baseline value.
    pub normalized: Option<f64>,
    /// Change against the baseline in %, positive = better; for neutral rows the size of
    /// the change, |normalized - 1| × 100.
    pub change_pct: Option<f64>,
    /// Welch's t-test p-value of the per-repeat values against the baseline's (null
    /// with fewer than two repeats on either side, and for the baseline).
    pub p_value: Option<f64>,
    /// 95 % bootstrap interval of change_pct (directional rows with repeats).
    pub ci_pct: Option<[f64; 2]>,
    /// `*` regression, `^` improvement, null otherwise.
    pub flag: Option<String>,
    /// `neutral`, `threshold-only` (one repeat) or `threshold, 2 x CV, p < alpha`.
    pub flag_basis: String,
}

/// Tasks matched across runs by role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskTable {
    /// How a task name becomes its role key.
    pub matched_by: String,
    pub aliases: Vec<[String; 2]>,
    /// Task metric that chose and ordered the roles (largest value in any run first).
    pub sort: String,
    pub top: usize,
    pub tasks: Vec<TaskComparison>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskComparison {
    /// The role key.
    pub name: String,
    /// Labels in which at least one repeat has the role.
    pub present_in: Vec<String>,
    /// The task names that played the role, per label.
    pub members: Vec<RoleMembers>,
    /// Every task metric, in the order of the task metric table.
    pub metrics: Vec<MetricRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoleMembers {
    pub label: String,
    pub comms: Vec<String>,
}
