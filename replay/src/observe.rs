//! What the demand needs from the events that the analysis' timeline does not keep: forks
//! (who created a task, when), exits, each pid's priority, and the moments runnable tasks
//! were switched out (their tick grid tells HZ), and the delays of the wakeups that
//! preempted (`preempt_cost`) and from `sched_waking` to `sched_wakeup` (`waking_lag`). Fed
//! in the analysis' own pass (`analysis::pipeline::analyze_observing`), so the trace is
//! read once.

use crate::preempt_cost::PreemptCost;
use crate::waking_lag::WakingLag;
use ingest::{Event, EventKind, EventSink, TaskRef};
use std::collections::HashMap;

/// Runnable switch-outs kept for the HZ estimate: enough for a clear grid, bounded so a
/// long trace costs no more.
const MAX_PREEMPTIONS: usize = 1 << 16;

#[derive(Debug, Default)]
pub(crate) struct Observed {
    /// (child pid, parent pid, time), in trace order.
    pub(crate) forks: Vec<(i32, i32, u64)>,
    /// Per pid, the times of its `sched_process_exit`.
    pub(crate) exits: HashMap<i32, Vec<u64>>,
    /// Per pid, its priority from each time it changed.
    pub(crate) prios: HashMap<i32, Vec<(u64, i32)>>,
    /// (CPU, time) of switch-outs of runnable tasks.
    pub(crate) preemptions: Vec<(u32, u64)>,
    /// The latencies of the wakeups that preempted.
    pub(crate) preempt_cost: PreemptCost,
    /// The times from `sched_waking` to `sched_wakeup`.
    pub(crate) waking_lag: WakingLag,
}

impl Observed {
    /// The priority `pid` had last at or before `at_ns` (its first, if none before).
    pub(crate) fn prio_at(&self, pid: i32, at_ns: u64) -> Option<i32> {
        let changes = self.prios.get(&pid)?;
        let before = changes.partition_point(|&(ts, _)| ts <= at_ns);
        changes.get(before.saturating_sub(1)).map(|&(_, p)| p)
    }

    /// The last fork of `pid` at or before `at_ns`: (parent pid, time).
    pub(crate) fn fork_of(&self, pid: i32, at_ns: u64) -> Option<(i32, u64)> {
        self.forks
            .iter()
            .rev()
            .find(|&&(child, _, ts)| child == pid && ts <= at_ns)
            .map(|&(_, parent, ts)| (parent, ts))
    }

    /// The first exit of `pid` within `[from_ns, to_ns]`.
    pub(crate) fn exit_of(&self, pid: i32, from_ns: u64, to_ns: u64) -> Option<u64> {
        self.exits
            .get(&pid)?
            .iter()
            .copied()
            .find(|&ts| ts >= from_ns && ts <= to_ns)
    }

    fn prio(&mut self, task: &TaskRef, ts: u64) {
        if task.pid <= 0 || task.prio < 0 {
            return;
        }
        let changes = self.prios.entry(task.pid).or_default();
        if changes.last().is_none_or(|&(_, p)| p != task.prio) {
            changes.push((ts, task.prio));
        }
    }
}

impl EventSink for Observed {
    fn event(&mut self, event: &Event) {
        let ts = event.ts;
        self.preempt_cost.event(event);
        self.waking_lag.event(event);
        match &event.kind {
            EventKind::Switch {
                prev,
                prev_state,
                next,
            } => {
                self.prio(prev, ts);
                self.prio(next, ts);
                if prev_state.is_runnable()
                    && prev.pid > 0
                    && self.preemptions.len() < MAX_PREEMPTIONS
                {
                    self.preemptions.push((event.cpu, ts));
                }
            }
            EventKind::Waking { task, .. }
            | EventKind::Wakeup { task, .. }
            | EventKind::WakeupNew { task, .. }
            | EventKind::Migrate { task, .. } => self.prio(task, ts),
            EventKind::Fork {
                parent_pid,
                child_pid,
                ..
            } => self.forks.push((*child_pid, *parent_pid, ts)),
            EventKind::Exit { pid } => self.exits.entry(*pid).or_default().push(ts),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_in_force_at_a_time() {
        let mut o = Observed::default();
        o.prios.insert(7, vec![(10, 120), (50, 125)]);
        assert_eq!(o.prio_at(7, 5), Some(120));
        assert_eq!(o.prio_at(7, 10), Some(120));
        assert_eq!(o.prio_at(7, 49), Some(120));
        assert_eq!(o.prio_at(7, 50), Some(125));
        assert_eq!(o.prio_at(8, 50), None);
    }

    #[test]
    fn fork_and_exit_lookup() {
        let mut o = Observed {
            forks: vec![(5, 1, 100), (6, 1, 200), (5, 2, 900)],
            ..Default::default()
        };
        o.exits.insert(5, vec![500, 1500]);
        assert_eq!(o.fork_of(5, 150), Some((1, 100)));
        assert_eq!(o.fork_of(5, 1000), Some((2, 900)));
        assert_eq!(o.fork_of(5, 50), None);
        assert_eq!(o.exit_of(5, 900, 2000), Some(1500));
        assert_eq!(o.exit_of(5, 0, 400), None);
    }
}
