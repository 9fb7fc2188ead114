//! The worst waits of a run (report `system.worst_wait`): the longest time any task was
//! runnable and not running, and every task whose longest wait reached the starvation
//! threshold. Computed once at the end of the analysis so that `analyze` and `compare`
//! show the same facts.

use crate::report::{TaskRow, Window};
// The types live in the report model (which holds them); `analysis::worst_wait::*` still names them.
pub use crate::report::{Wait, WorstWait};

/// Waits longer than this are called out as starvation: a runnable task is picked within
/// microseconds by an idle CPU, so a wait this long means other tasks ran on its CPU for
/// all of it (a scheduler's time slices are at most a few ms, BMQ/PDS ~4 ms, CFS ~3-24 ms).
pub(crate) const STARVATION_NS: u64 = 100_000_000;

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
