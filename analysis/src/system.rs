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
