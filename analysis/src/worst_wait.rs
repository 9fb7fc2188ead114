//! The worst waits of a run (report `system.worst_wait`): the longest time any task was
//! runnable and not running, and every task whose longest wait reached the starvation
//! threshold. Computed once at the end of the analysis so that `analyze` and `compare`
//! show the same facts.

use crate::report::{TaskRow, Window};
use serde::{Deserialize, Serialize};

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
