//! The system-wide summary of a report (JSON `system`, `/work/notes/system-json.md`):
//! latency statistics over every task's exact samples, switch, migration and wakeup
//! totals, and the system-wide parts of the §4–7 metrics.

use crate::report::{CpuRow, TaskRow, TaskSamples, Window};
use crate::stats::{Samples, Stats};
use serde::{Deserialize, Serialize};

/// Field names are a contract with `compare` (JSON pointers): add, never rename.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct System {
    /// Over all tasks' samples (nearest-rank on the exact merged values).
    pub wakeup_latency: Stats,
    pub preemption_wait: Stats,
    pub sched_delay: Stats,
    pub switches: crate::report::Switches,
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
    pub wakeup_preemption: crate::report_metrics::SystemPreemption,
    #[serde(default)]
    pub fairness: crate::report_metrics::SystemFairness,
    #[serde(default)]
    pub affinity: crate::report_metrics::SystemAffinity,
    #[serde(default)]
    pub work_conservation: crate::report_metrics::WorkConservation,
    /// The longest wait of the run and the tasks starved longer than a threshold.
    #[serde(default)]
    pub worst_wait: WorstWait,
}

/// Waits longer than this are called out as starvation: a runnable task is picked within
/// microseconds by an idle CPU, so a wait this long means other tasks ran on its CPU for
/// all of it (a scheduler's time slices are at most a few ms, BMQ/PDS ~4 ms, CFS ~3-24 ms).
pub const STARVATION_NS: u64 = 100_000_000;

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

/// The worst waits of `tasks` over `window`.
pub(crate) fn worst_wait(tasks: &[TaskRow], window: Window) -> WorstWait {
    let len = window.len_ns();
    let mut waits: Vec<Wait> = tasks
        .iter()
        .filter(|t| t.sched_delay.count > 0)
        .map(|t| {
            let d = &t.sched_delay;
            let p = &t.preemption_wait;
            let preempted = p.count > 0 && p.max_ns == d.max_ns && p.max_at_ns == d.max_at_ns;
            Wait {
                pid: t.pid,
                comm: t.comm.clone(),
                kind: if preempted {
                    "preemption wait"
                } else {
                    "wakeup latency"
                }
                .to_string(),
                start_ns: d.max_at_ns.saturating_sub(d.max_ns),
                end_ns: d.max_at_ns,
                len_ns: d.max_ns,
                share_of_window: if len > 0 {
                    d.max_ns as f64 / len as f64
                } else {
                    0.0
                },
            }
        })
        .collect();
    // Longest first; equal lengths by the earlier end, then pid, so the order is stable.
    waits.sort_by(|a, b| {
        b.len_ns
            .cmp(&a.len_ns)
            .then(a.end_ns.cmp(&b.end_ns))
            .then(a.pid.cmp(&b.pid))
    });
    WorstWait {
        longest: waits.first().cloned(),
        threshold_ns: STARVATION_NS,
        starved: waits
            .into_iter()
            .take_while(|w| w.len_ns >= STARVATION_NS)
            .collect(),
    }
}

/// Builds the system summary from the finished task and CPU rows. `cpu_count` is the
/// number of CPUs the window covers.
pub(crate) fn summarize(
    tasks: &[TaskRow],
    cpus: &[CpuRow],
    window: Window,
    cpu_count: u32,
) -> System {
    // One system-wide set at a time, each allocated at its exact size and dropped before
    // the next: these are the largest allocations of the whole analysis.
    let samples: Vec<&TaskSamples> = tasks.iter().filter_map(|t| t.samples.as_ref()).collect();
    let wakeup: Vec<&Samples> = samples
        .iter()
        .flat_map(|s| [&s.latency_local, &s.latency_remote])
        .collect();
    let preemption: Vec<&Samples> = samples.iter().map(|s| &s.preemption_wait).collect();
    let wakeup_latency = Samples::union(&wakeup).stats();
    let preemption_wait = Samples::union(&preemption).stats();
    // Sched delay = every wakeup latency, then every preemption wait (merge order as for
    // one task's: wakeups first).
    let sched_delay = Samples::union(&[wakeup, preemption].concat()).stats();
    let len = window.len_ns();
    let per_sec = |n: u64| {
        if len > 0 {
            n as f64 * 1e9 / len as f64
        } else {
            0.0
        }
    };
    let busy: u64 = cpus.iter().map(|c| c.busy_ns).sum();
    let context_switches = cpus.iter().map(|c| c.switches).sum();
    let migrations = tasks.iter().map(|t| t.migrations).sum();
    let capacity = len as f64 * cpu_count as f64;
    System {
        wakeup_latency,
        preemption_wait,
        sched_delay,
        switches: crate::report::Switches {
            voluntary: tasks.iter().map(|t| t.switches.voluntary).sum(),
            involuntary: tasks.iter().map(|t| t.switches.involuntary).sum(),
        },
        context_switches,
        context_switches_per_sec: per_sec(context_switches),
        migrations,
        migrations_per_sec: per_sec(migrations),
        utilization: if capacity > 0.0 {
            busy as f64 / capacity
        } else {
            0.0
        },
        cpus: cpu_count,
        wakeups: tasks.iter().map(|t| t.wakeups).sum(),
        ..System::default()
    }
}
