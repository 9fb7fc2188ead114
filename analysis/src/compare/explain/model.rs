//! The `explain` section of a comparison as data (`schemas/compare.schema.json`,
//! docs/guide.md "compare --explain"): per role (and the `--workload` set), the change of
//! its total wait against the baseline split into what the waits' CPUs ran.
//!
//! Times are whole nanoseconds. With one repeat a side they are the reports' own sums;
//! with repeats they are means, each rounded by largest remainder so that the parts
//! still add up to the whole exactly (see [`super::apportion`]).

use crate::report::PieceKind;
use serde::{Deserialize, Serialize};

/// `explain` in the compare document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explain {
    /// What the numbers are, in words.
    pub method: String,
    /// The task table's roles in its order, then the workload (with `--workload`).
    pub subjects: Vec<ExplainedSubject>,
}

/// One role, or the workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExplainedSubject {
    /// The role key, or the `--workload` pattern.
    pub subject: String,
    /// True for the `--workload` set.
    pub workload: bool,
    /// One per label, in the order of `runs`.
    pub runs: Vec<RunWait>,
    /// One per label other than the baseline.
    pub changes: Vec<WaitChange>,
}

/// The subject's waits in one label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunWait {
    pub label: String,
    /// Repeats whose report splits the waits (schema 3 and later) and has the subject.
    pub repeats: usize,
    /// Mean total wait over those repeats (`sched_delay.sum_ns`); null when none has it.
    pub wait_ns: Option<i64>,
    /// The mean of each kind; they add up to `wait_ns`.
    pub enqueue_ns: Option<i64>,
    pub idle_ns: Option<i64>,
    pub behind_ns: Option<i64>,
    pub unknown_ns: Option<i64>,
    /// The subject's longest wait in this label (over its tasks and repeats), piece by
    /// piece summed: what a latency tail was made of. The reports keep the pieces of
    /// each task's longest wait only, so this is the one wait, not every wait of a tail.
    pub longest: Option<LongestMix>,
}

/// The pieces of one wait summed by kind and occupant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LongestMix {
    /// The task that waited, and the repeat's path.
    pub pid: Option<i64>,
    pub comm: String,
    pub path: String,
    pub start_ns: u64,
    pub len_ns: u64,
    pub enqueue_ns: u64,
    pub idle_ns: u64,
    pub behind_ns: u64,
    pub unknown_ns: u64,
    /// Behind whom, largest first: `role` is the occupant's role key.
    pub behind: Vec<MixOccupant>,
    /// The CPUs the wait sat on.
    pub cpus: Vec<u32>,
    /// Pieces the report left out (past its limit): their time is in none of the kinds.
    pub segments_left_out: u64,
}

/// Time behind one occupant in a [`LongestMix`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixOccupant {
    pub role: String,
    pub comm: String,
    pub ns: u64,
    /// The CPUs the wait sat on behind it.
    pub cpus: Vec<u32>,
}

/// One label against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitChange {
    pub label: String,
    /// Total wait (mean over repeats) in the baseline and in this label.
    pub base_wait_ns: i64,
    pub wait_ns: i64,
    /// `wait_ns - base_wait_ns` = the sum of `components[].change_ns`, exactly.
    pub change_ns: i64,
    /// Welch's p of the total's per-repeat values (null with fewer than two a side).
    pub p_value: Option<f64>,
    /// Ranked by |change_ns|, largest first; those that moved within the noise last.
    pub components: Vec<Component>,
}

/// One kind (or, for `behind`, one occupant role) of the change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Component {
    pub kind: PieceKind,
    /// For `behind`: who ran while the subject waited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupant: Option<Occupant>,
    pub base_ns: i64,
    pub ns: i64,
    pub change_ns: i64,
    /// `change_ns` in % of the subject's change (null when the change is 0).
    pub share_pct: Option<f64>,
    /// Welch's p of this component's per-repeat values (null with fewer than two a side).
    pub p_value: Option<f64>,
    /// True when p ≥ alpha: the component moved within the noise and is not ranked.
    pub noise: bool,
    /// 1 = explains the most of the change; null for noise.
    pub rank: Option<usize>,
}

/// Who a `behind` component waited behind: a role, matched across runs as the task table
/// matches tasks (`role` = the role key of the occupant's name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Occupant {
    /// The role key; `(others)` for the occupants past the ones each task row lists.
    pub role: String,
    /// True when the role is one of the task table's.
    pub in_task_table: bool,
    /// The occupant's task names in the baseline and in this label.
    pub base_comms: Vec<String>,
    pub comms: Vec<String>,
    /// The occupant role's median slice (`slices.p50_ns`; pooled over repeats) in the
    /// baseline and in this label: how long it held the CPU each time.
    pub base_slice_p50_ns: Option<f64>,
    pub slice_p50_ns: Option<f64>,
    /// The CPUs on which the subject's longest wait in this label sat behind it.
    pub cpus: Vec<u32>,
}
