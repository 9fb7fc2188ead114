//! Scheduler metrics from the normalized event stream (`docs/metrics.md` §1–4, §9).
//!
//! Data flows one way: events → task timelines (`timeline`) and CPU states (`cpu`) in
//! one pass ([`Analyzer`], an [`ingest::EventSink`], which keeps one module per concern in
//! step: `metrics/`) → [`Report`] ([`report`]) →
//! shaped for the user ([`select`]) → JSON (serde), or text through the `render` crate,
//! which takes every column from the catalogue ([`columns`]).
//!
//! # Choices where `docs/metrics.md` leaves room
//!
//! - Percentiles: nearest-rank on the exact samples (`quality.percentile_method`).
//!   `max_at_ns` is when the longest interval *ended* (switch-in for waits, switch-out
//!   for slices).
//! - Slices are complete running intervals (observed switch-in and switch-out). Runtime
//!   also counts the open interval at the end of the trace; the running time before a
//!   task's first event (a first switch-out) is not counted anywhere.
//! - `--time`: intervals (runtime, sleep, unknown, busy, idle) are clipped to the window;
//!   counts and samples (switches, wakeups, migrations, slices, waits) are taken when the
//!   event that completes them is inside it, with their full length.
//! - `sched_waking` vs `sched_wakeup` is decided in the one pass: once a `sched_waking`
//!   has been seen, a `sched_wakeup` no longer starts a timed wait (a wakeup without its
//!   waking gives an untimed wait, counted in `quality.wakeup_latency_started_by.untimed`);
//!   before the first `sched_waking`, `sched_wakeup` starts them.
//! - A `sched_waking` that arrives while its task is still on a CPU (ttwu racing the
//!   task's own way to sleep) is remembered: the task's next blocking switch-out makes it
//!   runnable at once, and its wakeup latency is timed from that switch-out.
//! - A sleeping task switched in without an observed wakeup: the interval since it slept
//!   is `unknown`, not sleep (when it woke is not known).
//! - After lost events, a task stays `unknown` until its next switch, as §2 says; wakeups
//!   seen meanwhile are counted but not timed. The unknown time starts at the CPU's last
//!   event before the loss record (the events were dropped somewhere after it).
//! - Context-switch bugs (§9): the CPU's occupant is known until its last *confirmed*
//!   moment, its switch-in or a later event on that CPU fired by it (or by an unnamed
//!   task when the format does not say who was running). That occupant becomes `unknown`
//!   from there until its next switch; the switched-out task is `unknown` from the later
//!   of that moment and its own last transition. Each inconsistent switch counts once, on
//!   the CPU where it was seen.
//! - Utilization is busy / window length as §4 says; the CPU's `unknown_ns` (before its
//!   first switch, after losses and bugs) is reported beside it.
//! - A pid seen again in a `fork` after it was used starts a new task (pid reuse).
//!
//! ## §4–7 (wakeup preemption, fairness, affinity, work conservation)
//!
//! All computed in the same pass (the engine's `concerns` module keeps them in step with
//! every state change, O(1) per change; each concern lives in its own `metrics/` module);
//! CPU pairs are classified with the topology at [`Analyzer::finish`].
//!
//! - Wakeup preemption: a wait started by an untimed wakeup counts as a wakeup; the
//!   runqueue CPU "at that wakeup" is the `target_cpu` of the last `sched_wakeup` (else
//!   `sched_waking`) of the wait, and its time is that event's. The ratio's denominator
//!   counts, when the wait ends, wakeups whose runqueue CPU ran another task then.
//! - Local / remote wakeups: the waker's CPU is the CPU where the event that started the
//!   wait fired (`sched_waking`, else `sched_wakeup`/`_new`). Untimed wakeups are counted
//!   local/remote but give no latency sample.
//! - Fairness: weights from `prio` per the kernel's scale (`PrioScale`:
//!   mainline, PDS, BMQ with its untraced boost assumed +7). A task's runtime in the ratio
//!   is its running time while competing. Entitlement and runtime are clipped to `--time`
//!   and `-C`. Short-term windows start at the window start; only complete windows with at
//!   least two competing tasks count (one task is trivially fair). A task that loses
//!   track (lost events) leaves the competition when the loss is applied to it (lazily,
//!   at its next event), so its entitlement may run on a little past the loss.
//! - Work conservation: a CPU counts as idle only while it is known to run pid 0; CPUs
//!   never seen or unknown do not count. "Another CPU" excludes the idle CPU's own
//!   runqueue. Shares divide by window × the system's CPU count.
//! - Topology: the trace's own (perf.data) when it describes LLCs, else `--topology`.
//!   Without NUMA nodes, packages stand for nodes; with neither, a cross-LLC move is
//!   counted as `same_node`.
//!
//! ```no_run
//! let mut analyzer = analysis::Analyzer::new(analysis::Config::default());
//! let ingested = ingest::read_path("trace.dat".as_ref(), &mut analyzer).unwrap();
//! let report = analyzer.finish(&ingested, "trace.dat");
//! println!("{}", serde_json::to_string_pretty(&report).unwrap());
//! ```

#![warn(unreachable_pub)]

pub mod affinity;
pub mod columns;
pub mod compare;
mod cpu;
pub mod drain;
mod engine;
mod interval;
mod metrics;
/// Per-event records for the export (`Config::records`).
pub use metrics::records;
pub mod pipeline;
pub mod recording;
pub mod report;
mod scheduler;
mod scope;
pub mod select;
pub mod series;
mod series_sums;
pub mod stats;
mod timeline;
pub mod timeline_store;
pub mod topology_load;
mod window;
pub mod worst_wait;

pub use engine::Analyzer;
/// Why a slice ended (the timeline store's `EndReason::SwitchedOut` names it).
pub use interval::{EndReason, SwitchReason, ThreadState};
pub use metrics::fairness::PrioScale;
pub use report::{CpuRow, PieceKind, Quality, Report, Source, System, TaskRow, WaitCauses, Window};
pub use scheduler::{is_predicted, scheduler_family, scheduler_name, SchedulerFamily};
pub use select::{CommFilter, GroupBy, Selection, SortKey};
pub use stats::{Samples, Stats};
pub use timeline_store::{Timeline, TimelineOptions};

/// What to analyze.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// `--time`: ns, inclusive start, exclusive end. Intervals are clipped to it and
    /// counts taken only for events inside it; state before it is still tracked.
    pub time_window: Option<(u64, u64)>,
    /// `--time +A,+B`: `time_window` counts from the first event, not from 0.
    pub time_relative: bool,
    /// `-C`: only these CPUs in the per-CPU table, and only task time on them.
    pub cpus: Option<Vec<u32>>,
    /// `--topology`: CPU topology and where it came from ("file PATH", "host"). The
    /// trace's own topology, when it has one, comes first (metrics.md §6).
    pub topology: Option<(ingest::topology::Topology, String)>,
    /// `--fair-set`: only these tasks compete in the fairness metrics.
    pub fair_set: Option<FairSet>,
    /// Keep every task's intervals ([`timeline_store`]); off by default (it costs memory).
    pub timeline: Option<TimelineOptions>,
    /// `--series`: window length in ns of the per-window time series ([`series`]; they
    /// keep the timeline store during the pass, with its memory limit).
    pub series: Option<u64>,
    /// Keep every wait and wakeup preemption as a record ([`records`], for `export`),
    /// within this many heap bytes; off by default (`analyze` keeps only statistics).
    pub records: Option<u64>,
    /// Which CPUs each task may use ([`affinity`]): the `--affinity` rules, and the recorded
    /// sets that [`pipeline`] adds from the trace's sidecar. None: unknown for every task.
    pub affinity: Option<std::sync::Arc<affinity::Affinity>>,
    /// The recording's sidecar and where it was found ([`recording::find`]; set by
    /// [`pipeline`] per trace), for the report's `source.recording`.
    pub recording: Option<std::sync::Arc<(String, recording::Recording)>>,
}

/// The tasks that compete in the fairness metrics (metrics.md §7 "a user can restrict it").
#[derive(Debug, Clone)]
pub enum FairSet {
    Pids(Vec<i32>),
    /// Tasks whose name matches (unanchored regular expression).
    Names(regex::Regex),
}

impl FairSet {
    /// `pid,pid,...` or a name regular expression.
    pub fn parse(text: &str) -> Result<FairSet, String> {
        let pids: Result<Vec<i32>, _> = text.split(',').map(|p| p.trim().parse::<i32>()).collect();
        match pids {
            Ok(p) if !p.is_empty() => Ok(FairSet::Pids(p)),
            _ => regex::Regex::new(text)
                .map(FairSet::Names)
                .map_err(|e| format!("--fair-set: not a pid list nor a regular expression: {e}")),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            FairSet::Pids(p) => {
                let list: Vec<String> = p.iter().map(|x| x.to_string()).collect();
                format!("pids {}", list.join(","))
            }
            FairSet::Names(re) => format!("names matching /{}/", re.as_str()),
        }
    }
}

#[cfg(test)]
// Also compiled into the integration tests (`#[path]`), which need its builders `pub`.
#[allow(unreachable_pub)]
mod stream;

/// Runs the whole one-pass analysis over a hand-made stream (the unit tests beside each
/// concern check their rules through it, as a trace would exercise them).
#[cfg(test)]
fn analyze_stream(events: &[ingest::Event], config: Config) -> Report {
    use ingest::EventSink;
    let mut analyzer = Analyzer::new(config);
    for e in events {
        analyzer.event(e);
    }
    analyzer.finish(&ingest::Ingested::default(), "hand-made")
}
