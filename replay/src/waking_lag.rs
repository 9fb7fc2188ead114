//! The traced time from a wakeup's `sched_waking` to its `sched_wakeup`. The replay's
//! wakeups are at `sched_waking` (where the analysis starts a wait), but the kernel reads
//! its runqueue clock for the wakeup later, near `sched_wakeup` (`ttwu_queue` takes the
//! runqueue lock and updates the clock, then enqueues, checks preemption and traces the
//! wakeup): the running task is charged up to there, and after a preempting wakeup its
//! clock skip (`rq_clock_skip_update`) charges the wakee from there. The simulator checks
//! a wakeup's preemption that much after the wakeup (`sim/engine`).
//!
//! The median over every wakeup traced with both events (a halted vCPU makes a few of
//! them milliseconds long); 0 for a trace without `sched_waking`. A new task's first
//! wakeup (`sched_wakeup_new`) has no `sched_waking` and does not count.

use crate::preempt_cost::Samples;
use ingest::{Event, EventKind};
use std::collections::HashMap;

/// Fed every event of the trace in order ([`WakingLag::event`]).
#[derive(Debug, Default)]
pub(crate) struct WakingLag {
    /// Per pid: its last `sched_waking` not yet followed by its `sched_wakeup`.
    waking: HashMap<i32, u64>,
    lags: Samples,
}

impl WakingLag {
    pub(crate) fn event(&mut self, event: &Event) {
        match &event.kind {
            // A later waking replaces one whose wakeup was not traced (lost events).
            EventKind::Waking { task, .. } if task.pid > 0 => {
                self.waking.insert(task.pid, event.ts);
            }
            EventKind::Wakeup { task, .. } if task.pid > 0 => {
                if let Some(at) = self.waking.remove(&task.pid) {
                    self.lags.push(event.ts.saturating_sub(at));
                }
            }
            _ => {}
        }
    }

    /// The median time from `sched_waking` to `sched_wakeup`; 0 when none was traced.
    pub(crate) fn median_ns(&self) -> u64 {
        self.lags.median_ns()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ingest::{Comm, TaskRef};

    fn ev(ts: u64, pid: i32, waking: bool) -> Event {
        let task = TaskRef {
            pid,
            comm: Comm::from("t"),
            prio: 120,
        };
        let kind = if waking {
            EventKind::Waking {
                task,
                target_cpu: 0,
            }
        } else {
            EventKind::Wakeup {
                task,
                target_cpu: 0,
            }
        };
        Event {
            ts,
            cpu: 0,
            current_pid: -1,
            kind,
        }
    }

    #[test]
    fn median_lag_of_the_wakeups_with_both_events() {
        let mut l = WakingLag::default();
        assert_eq!(l.median_ns(), 0);
        for e in [
            // pid 1: 100 -> 118, 18 ns.
            ev(100, 1, true),
            ev(118, 1, false),
            // pid 2 and 3 interleaved: 200 -> 230 (30), 205 -> 212 (7).
            ev(200, 2, true),
            ev(205, 3, true),
            ev(212, 3, false),
            ev(230, 2, false),
            // A wakeup with no waking (pid 4): not counted.
            ev(300, 4, false),
            // pid 1's waking at 400 lost its wakeup; the one at 500 is timed: 540, 40 ns.
            ev(400, 1, true),
            ev(500, 1, true),
            ev(540, 1, false),
            // The idle task (pid 0) never counts.
            ev(600, 0, true),
            ev(700, 0, false),
            // pid 5: 800 -> 811, 11 ns.
            ev(800, 5, true),
            ev(811, 5, false),
        ] {
            l.event(&e);
        }
        // Lags 18, 30, 7, 40, 11: sorted 7, 11, 18, 30, 40, the median 18.
        assert_eq!(l.lags.median_ns(), 18);
        assert_eq!(l.median_ns(), 18);
        // A second wakeup without a new waking: not counted again; a sixth lag, 20, makes
        // the count even: 7, 11, 18, 20, 30, 40, the upper middle one 20.
        l.event(&ev(900, 5, false));
        l.event(&ev(1000, 6, true));
        l.event(&ev(1020, 6, false));
        assert_eq!(l.median_ns(), 20);
    }
}
