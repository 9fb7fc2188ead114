//! Each task's position in its demand (phase, what is left of its burst, bursts done) and
//! the dependency points it passes: where, in the trace, it woke another task.
//!
//! Why release points live with the waker: a dependency block of task B says "B was woken
//! when A had done k bursts and `into_ns` of the next"; the engine only knows A's progress
//! while A runs, so the points are sorted per waker and checked as A's progress is
//! accounted. A point A reaches before B blocks there is remembered, and B then passes
//! through that block without sleeping (the wakeup came first, as a pipe's data would),
//! unless A and B each woke the other in the trace: then A waits at the point for B
//! (`mutual`, `hold_at`; the engine's `answer_pending` says why).

use crate::demand::{Demand, Phase, Wake};
use std::collections::HashSet;

/// A dependency block of `wakee` (phase index `phase`) that its waker has reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Release {
    pub(crate) wakee: usize,
    pub(crate) phase: usize,
    after_bursts: u32,
    into_ns: u64,
}

pub(crate) struct Progress<'a> {
    demand: &'a Demand,
    phase: Vec<usize>,
    left: Vec<u64>,
    ran: Vec<u64>,
    bursts_done: Vec<u32>,
    /// Per waker, the points it releases, in the order it reaches them.
    releases: Vec<Vec<Release>>,
    next_release: Vec<usize>,
    /// (wakee, phase) released before the wakee got there.
    released: HashSet<(usize, usize)>,
    /// (a, b): each of the two has a dependency block woken by the other.
    mutual: HashSet<(usize, usize)>,
}

impl<'a> Progress<'a> {
    pub(crate) fn new(demand: &'a Demand) -> Progress<'a> {
        let n = demand.tasks.len();
        let mut releases: Vec<Vec<Release>> = vec![Vec::new(); n];
        let mut woken_by = HashSet::new();
        for (wakee, t) in demand.tasks.iter().enumerate() {
            for (phase, p) in t.phases.iter().enumerate() {
                if let Phase::Block {
                    wake:
                        Wake::Dependency {
                            task,
                            after_bursts,
                            into_ns,
                            ..
                        },
                    ..
                } = *p
                {
                    if task < n && task != wakee {
                        woken_by.insert((wakee, task));
                        releases[task].push(Release {
                            wakee,
                            phase,
                            after_bursts,
                            into_ns,
                        });
                    }
                }
            }
        }
        for r in &mut releases {
            r.sort_by_key(|r| (r.after_bursts, r.into_ns, r.wakee, r.phase));
        }
        let mutual = woken_by
            .iter()
            .filter(|&&(a, b)| woken_by.contains(&(b, a)))
            .copied()
            .collect();
        Progress {
            demand,
            phase: vec![0; n],
            left: vec![0; n],
            ran: vec![0; n],
            bursts_done: vec![0; n],
            releases,
            next_release: vec![0; n],
            released: HashSet::new(),
            mutual,
        }
    }

    /// Whether `a` and `b` each woke the other from a block in the trace (a request and
    /// its answer, as a ping-pong's).
    pub(crate) fn mutual(&self, a: usize, b: usize) -> bool {
        self.mutual.contains(&(a, b))
    }

    /// `task` stops at `r`, which `run` has just returned: `r` and the points after it
    /// count as not reached, so the next `run` returns them again.
    pub(crate) fn hold_at(&mut self, task: usize, r: Release) {
        let list = &self.releases[task];
        if let Some(i) = list[..self.next_release[task]]
            .iter()
            .rposition(|&x| x == r)
        {
            self.next_release[task] = i;
        }
    }

    pub(crate) fn phase(&self, task: usize) -> usize {
        self.phase[task]
    }

    pub(crate) fn at_phase(&self, task: usize, phase: usize) -> bool {
        self.phase[task] == phase
    }

    pub(crate) fn bursts_done(&self, task: usize) -> u32 {
        self.bursts_done[task]
    }

    /// Moves the task to `phase` (a task whose bursts follow the clock, `wall_clock.rs`).
    pub(crate) fn set_phase(&mut self, task: usize, phase: usize) {
        self.phase[task] = phase;
    }

    pub(crate) fn next_phase(&mut self, task: usize) {
        self.phase[task] += 1;
    }

    /// Whether the task's current phase is a dependency block.
    pub(crate) fn on_dependency(&self, task: usize) -> bool {
        matches!(
            self.demand.tasks[task].phases.get(self.phase[task]),
            Some(Phase::Block {
                wake: Wake::Dependency { .. },
                ..
            })
        )
    }

    pub(crate) fn begin_burst(&mut self, task: usize, ns: u64) {
        self.left[task] = ns;
        self.ran[task] = 0;
    }

    /// Ends the current burst now, whatever is left of it.
    pub(crate) fn cut_burst(&mut self, task: usize) {
        self.left[task] = 0;
    }

    /// Leaves at most `ns` of the current burst.
    pub(crate) fn cut_to(&mut self, task: usize, ns: u64) {
        self.left[task] = self.left[task].min(ns);
    }

    pub(crate) fn burst_left(&self, task: usize) -> u64 {
        self.left[task]
    }

    /// Whether the task's current (dependency) phase was released already; forgets it.
    pub(crate) fn take_released(&mut self, task: usize) -> bool {
        self.released.remove(&(task, self.phase[task]))
    }

    pub(crate) fn mark_released(&mut self, wakee: usize, phase: usize) {
        self.released.insert((wakee, phase));
    }

    /// `task` ran `ns` more (capped at its burst's end); the points it reached.
    pub(crate) fn run(&mut self, task: usize, ns: u64) -> Vec<Release> {
        let ns = ns.min(self.left[task]);
        self.left[task] -= ns;
        self.ran[task] += ns;
        self.reached(task)
    }

    /// `task` finished its burst: on to its next phase; the points it reached.
    pub(crate) fn end_burst(&mut self, task: usize) -> Vec<Release> {
        self.bursts_done[task] += 1;
        self.left[task] = 0;
        self.ran[task] = 0;
        self.phase[task] += 1;
        self.reached(task)
    }

    /// `task` has no demand left: every point it did not reach.
    pub(crate) fn release_all(&mut self, task: usize) -> Vec<Release> {
        let from = std::mem::replace(&mut self.next_release[task], self.releases[task].len());
        self.releases[task][from..].to_vec()
    }

    /// Running time until the task's next milestone: its burst's end or its next point.
    pub(crate) fn until_milestone(&self, task: usize) -> u64 {
        let mut ns = self.left[task];
        if let Some(r) = self.releases[task].get(self.next_release[task]) {
            if r.after_bursts == self.bursts_done[task] {
                ns = ns.min(r.into_ns.saturating_sub(self.ran[task]));
            } else if r.after_bursts < self.bursts_done[task] {
                ns = 0;
            }
        }
        ns
    }

    fn reached(&mut self, task: usize) -> Vec<Release> {
        let (done, ran) = (self.bursts_done[task], self.ran[task]);
        let list = &self.releases[task];
        let from = self.next_release[task];
        let mut to = from;
        while let Some(r) = list.get(to) {
            if r.after_bursts < done || (r.after_bursts == done && r.into_ns <= ran) {
                to += 1;
            } else {
                break;
            }
        }
        self.next_release[task] = to;
        list[from..to].to_vec()
    }
}
