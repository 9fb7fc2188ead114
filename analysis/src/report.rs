//! The report model: what `schedtrace analyze` prints and exports as JSON
//! (`schemas/report.schema.json`), and what `compare` reads back.
//!
//! Field names are a contract: add fields, never rename. Times are ns.

use crate::stats::Stats;

// Each concern's report fields are defined beside the code that computes them
// (`metrics/*`); the model gathers them here.
pub use crate::metrics::fairness::{ShortTermFairness, SystemFairness, TaskFairness};
pub use crate::metrics::idle_states::IdleStateRow;
pub use crate::metrics::latency::{TaskHistograms, TaskSamples};
pub use crate::metrics::placement::{
    cpulist, MigrationClasses, Placement, SystemAffinity, TaskAffinityRow, TopologyInfo,
};
pub use crate::metrics::preemption::{Preemption, SystemPreemption, Triple};
pub use crate::metrics::quality::{
    CpuCount, LostRow, Quality, SkippedRow, TimeJump, TIME_JUMPS_KEPT,
};
pub use crate::metrics::runqueue::{
    AffinityUse, LlcLoss, LooksPinned, Runqueue, WorkConservation, PINNED_KEPT, PINNED_MIN_SLICES,
};
pub use crate::metrics::wait_causes::{
    BehindRow, EndedBy, LongestWait, PieceKind, PlacementCost, Segment, WaitCauses,
};
pub use crate::window::Window;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// 2: statistics over no samples have null mean, percentiles, max and max_at; a
/// fairness ratio without entitlement is null. 3: adds `wait_causes` to tasks and system
/// (additive). Version-1 and 2 reports still load.
pub const SCHEMA_VERSION: u32 = 3;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub source: Source,
    pub window: Window,
    pub quality: Quality,
    pub tasks: Vec<TaskRow>,
    pub cpus: Vec<CpuRow>,
    /// System-wide totals and statistics (absent from reports written before it existed).
    #[serde(default)]
    pub system: System,
    /// `--series`: per-window time series (absent unless asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<crate::series::Series>,
    /// First and last event of the trace, before `--time` (what `--time` could select); not
    /// in the JSON (the window says what the numbers cover).
    #[serde(skip)]
    pub trace_span: Option<(u64, u64)>,
    /// `Config::records`: every wait and wakeup preemption (for `export`; not in the JSON),
    /// or why they were dropped.
    #[serde(skip)]
    pub records: Option<
        Result<Box<crate::metrics::records::EventRecords>, crate::metrics::records::RecordsError>,
    >,
}

/// Where the trace came from.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Source {
    pub path: String,
    /// `trace.dat`, `perf.data`, `text`, `perfetto`; null when not known.
    pub format: Option<String>,
    pub format_version: String,
    pub kernel_release: Option<String>,
    pub cpus: Option<u32>,
    pub clock: Option<String>,
    /// Scheduler family from the kernel release (metrics.md §8): "CFS", "EEVDF",
    /// "BFS family" or "unknown".
    #[serde(default = "unknown")]
    pub scheduler: String,
    /// The scheduler itself where the release says: "PDS", "BMQ", "MuQSS", "BFS",
    /// "sched_ext", else as `scheduler` ("CFS", "EEVDF", "BFS family", "unknown").
    #[serde(default = "unknown")]
    pub scheduler_name: String,
    /// Other metadata the reader found (trace-cmd version, hostname, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
    /// The CPU topology the affinity metrics used; null without one (then only
    /// CPU-level placement is reported).
    #[serde(default)]
    pub topology: Option<TopologyInfo>,
    /// Recorded by `schedtrace record`: its sidecar and the host facts it kept (HZ, the
    /// scheduler's feature flags and tunables); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<crate::recording::RecordingInfo>,
}

impl Report {
    /// Unknown task time as a share of all accounted time (CPU busy time plus unknown time),
    /// 0 when there is none. In f64: after a corrupt far-ahead timestamp (a time jump of the
    /// ledger) the sum in u64 ns can pass u64::MAX.
    pub fn unknown_share(&self) -> f64 {
        let busy: f64 = self.cpus.iter().map(|c| c.busy_ns as f64).sum();
        let known = busy + self.quality.unknown_ns as f64;
        if known > 0.0 {
            self.quality.unknown_ns as f64 / known
        } else {
            0.0
        }
    }
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Switches {
    /// Slices ended by blocking.
    pub voluntary: u64,
    /// Slices ended runnable (wakeup-preempt + preempt).
    pub involuntary: u64,
}

/// Slices by switch-out reason (metrics.md §3).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SwitchOut {
    pub block: u64,
    pub wakeup_preempt: u64,
    pub preempt: u64,
    pub exit: u64,
}

impl std::ops::AddAssign<&Switches> for Switches {
    /// Merges another task's (a group's member, or every task for the system row).
    fn add_assign(&mut self, o: &Switches) {
        self.voluntary += o.voluntary;
        self.involuntary += o.involuntary;
    }
}

impl std::ops::AddAssign<&SwitchOut> for SwitchOut {
    /// Merges another task's (a group's member).
    fn add_assign(&mut self, o: &SwitchOut) {
        self.block += o.block;
        self.wakeup_preempt += o.wakeup_preempt;
        self.preempt += o.preempt;
        self.exit += o.exit;
    }
}

/// One task (one pid lifetime), or a group of tasks after [`Report::select`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskRow {
    pub pid: i32,
    /// Process id; null when the trace does not say.
    pub tgid: Option<i32>,
    /// Last name seen (for a name group: the folded name).
    pub comm: String,
    /// Every name seen, in order (renames, exec).
    #[serde(default)]
    pub comms: Vec<String>,
    pub runtime_ns: u64,
    pub unknown_ns: u64,
    pub sleep_ns: u64,
    /// Switch-ins on another CPU than the previous slice's (metrics.md §3).
    pub migrations: u64,
    /// `sched_migrate_task` events: every move between runqueues, also while waiting (what the
    /// kernel's `se.nr_migrations` counts). 0 when the trace did not record that event.
    #[serde(default)]
    pub runqueue_moves: u64,
    pub wakeups: u64,
    pub switches: Switches,
    #[serde(default)]
    pub switch_out: SwitchOut,
    pub slices: Stats,
    pub wakeup_latency: Stats,
    pub preemption_wait: Stats,
    pub sched_delay: Stats,
    /// Wakeup preemptions caused and suffered (metrics.md §5).
    #[serde(default)]
    pub preemption: Preemption,
    /// Fairness (§7); absent when the task never competed (RT, outside `--fair-set`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fairness: Option<TaskFairness>,
    /// Cache affinity and placement (§6).
    #[serde(default)]
    pub affinity: TaskAffinityRow,
    /// The CPUs the task was allowed to use (cpulist; the last recorded set, else its
    /// `--affinity` rule's); absent when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_cpus: Option<String>,
    /// Log2 histograms of wakeup latency, preemption wait and slices.
    #[serde(default)]
    pub histograms: TaskHistograms,
    /// Every counted wait split by what its CPU ran (sums to `sched_delay.sum_ns`; empty in
    /// reports of schema version 2 and older).
    #[serde(default)]
    pub wait_causes: WaitCauses,
    /// `process` or `name` for a grouped row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// pids merged into this row when grouped (empty for a single task).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<i32>,
    /// False when the row merged tasks whose samples were not available (a report read
    /// back from JSON): its percentiles are then the largest of the members' (an upper
    /// bound); count, sum, mean and max stay exact.
    #[serde(default = "yes")]
    pub percentiles_exact: bool,
    /// The exact samples (not exported), so grouping keeps percentiles exact.
    #[serde(skip)]
    pub samples: Option<TaskSamples>,
}

fn unknown() -> String {
    "unknown".to_string()
}

fn yes() -> bool {
    true
}

/// One CPU (metrics.md §4).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CpuRow {
    pub cpu: u32,
    pub busy_ns: u64,
    pub idle_ns: u64,
    /// Time the CPU's occupant was not known (before its first switch, after lost events
    /// or a context-switch bug, until its next switch).
    #[serde(default)]
    pub unknown_ns: u64,
    /// busy / window length.
    #[serde(default)]
    pub utilization: f64,
    pub switches: u64,
    #[serde(default)]
    pub switches_per_sec: f64,
    #[serde(default)]
    pub context_switch_bugs: u64,
    #[serde(default)]
    pub lost_events: u64,
    /// Tasks waiting on this CPU's runqueue (§4).
    #[serde(default)]
    pub runqueue: Runqueue,
    #[serde(default)]
    pub wakeup_preemptions: u64,
    /// Jain's index of the fairness ratios of the tasks that competed on this CPU.
    #[serde(default)]
    pub fairness_jain: Option<f64>,
    /// Time in each idle state (`power:cpu_idle`), by state; left out without the event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub idle_states: Vec<IdleStateRow>,
}

/// The system-wide summary (JSON `system`): latency statistics over every task's exact
/// samples, switch, migration and wakeup totals, and the system-wide parts of §4–7.
/// Field names are a contract with `compare` (JSON pointers): add, never rename.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct System {
    /// Over all tasks' samples (nearest-rank on the exact merged values).
    pub wakeup_latency: Stats,
    pub preemption_wait: Stats,
    pub sched_delay: Stats,
    pub switches: Switches,
    /// `switch` events: the sum of `cpus[].switches`.
    pub context_switches: u64,
    pub context_switches_per_sec: f64,
    pub migrations: u64,
    pub migrations_per_sec: f64,
    /// Sum of busy time / (window × CPUs).
    pub utilization: f64,
    /// CPUs counted in `utilization` (the trace's CPU count, or the `-C` selection).
    pub cpus: u32,
    pub wakeups: u64,
    #[serde(default)]
    pub wakeup_preemption: SystemPreemption,
    #[serde(default)]
    pub fairness: SystemFairness,
    #[serde(default)]
    pub affinity: SystemAffinity,
    #[serde(default)]
    pub work_conservation: WorkConservation,
    /// The longest wait and the tasks starved longer than a threshold.
    #[serde(default)]
    pub worst_wait: WorstWait,
    /// Every task's wait causes added up (sums to `sched_delay.sum_ns`).
    #[serde(default)]
    pub wait_causes: WaitCauses,
}

impl TaskRow {
    /// A row with nothing counted yet (pid 0, no name): what a grouped row starts from.
    pub fn empty() -> TaskRow {
        TaskRow {
            pid: 0,
            tgid: None,
            comm: String::new(),
            comms: Vec::new(),
            runtime_ns: 0,
            unknown_ns: 0,
            sleep_ns: 0,
            migrations: 0,
            runqueue_moves: 0,
            wakeups: 0,
            switches: Switches::default(),
            switch_out: SwitchOut::default(),
            slices: Stats::default(),
            wakeup_latency: Stats::default(),
            preemption_wait: Stats::default(),
            sched_delay: Stats::default(),
            preemption: Preemption::default(),
            fairness: None,
            affinity: TaskAffinityRow::default(),
            allowed_cpus: None,
            histograms: TaskHistograms::default(),
            wait_causes: WaitCauses::default(),
            group: None,
            members: Vec::new(),
            percentiles_exact: true,
            samples: None,
        }
    }

    /// Recomputes the row's wait and slice statistics from `samples`.
    pub(crate) fn fill_waits(&mut self, samples: &mut TaskSamples) {
        let s = samples.stats();
        self.slices = s.slices;
        self.wakeup_latency = s.wakeup_latency;
        self.preemption_wait = s.preemption_wait;
        self.sched_delay = s.sched_delay;
        self.affinity.wakeup_latency_local = s.wakeup_latency_local;
        self.affinity.wakeup_latency_remote = s.wakeup_latency_remote;
        self.histograms = s.histograms;
    }
}

/// The longest waits of a run (metrics.md §3 sched delay: runnable and not running, from
/// a wakeup or a preemption until the next switch-in).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct WorstWait {
    /// The longest single wait of any task; null when no task waited.
    pub longest: Option<Wait>,
    /// Waits at least this long are listed in `starved`.
    pub threshold_ns: u64,
    /// Each task's longest wait when it reached `threshold_ns`, longest first.
    pub starved: Vec<Wait>,
}

/// One wait of one task.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Wait {
    pub pid: i32,
    pub comm: String,
    /// `wakeup latency` (woken, waiting to run) or `preemption wait` (preempted, waiting
    /// to run again).
    pub kind: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub len_ns: u64,
    /// len / window length (can exceed the `--time` window's share when the wait began
    /// before the window).
    pub share_of_window: f64,
}

impl Wait {
    /// (length in s, % of the window, start in s, end in s): the numbers a sentence about
    /// the wait shows.
    pub fn in_seconds(&self) -> (f64, f64, f64, f64) {
        (
            self.len_ns as f64 / 1e9,
            self.share_of_window * 100.0,
            self.start_ns as f64 / 1e9,
            self.end_ns as f64 / 1e9,
        )
    }
}
