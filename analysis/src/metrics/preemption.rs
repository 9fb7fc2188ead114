//! Wakeup preemption (`docs/metrics.md` §5): a task woken onto a CPU that takes the CPU
//! from the task running there. Detected at each switch from the wakee's wait (it started
//! with a wakeup onto this CPU while the victim already ran here); counted per task (caused
//! / suffered), per CPU and per (waker, wakee, victim) names.

use crate::cpu::Occupant;
use ingest::Comm;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Where and when a waiting task was enqueued by its wakeup: the runqueue CPU the last
/// wakeup event of its wait set (-1 when unknown) and that event's time. The task state
/// machine gives it for a wait that started with a wakeup (timed or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Enqueue {
    pub(crate) cpu: i32,
    pub(crate) ts: u64,
}

/// Whether switching the victim out (in R/R+) for the wakee on `cpu` is a wakeup
/// preemption: the wakee's wait started with a wakeup onto `cpu` (`wakee`) that happened
/// while the victim was already running there (`victim_since`: since when the victim has
/// run on `cpu`, None when it was not running there).
#[inline]
pub(crate) fn is_wakeup_preemption(
    cpu: u32,
    victim_since: Option<u64>,
    wakee: Option<Enqueue>,
) -> bool {
    match (victim_since, wakee) {
        (Some(since), Some(e)) => e.cpu == cpu as i32 && since <= e.ts,
        _ => false,
    }
}

/// After a wakeup event of task `pid` at `now` (its wait's enqueue, if it is woken):
/// whether the runqueue's CPU ran another task then (the denominator of the §5 ratio);
/// `None` when the event did not set the wait's enqueue. `occupant` tells what a CPU runs.
#[inline]
pub(crate) fn target_busy(
    enqueue: Option<Enqueue>,
    pid: i32,
    now: u64,
    occupant: impl Fn(usize) -> Option<Occupant>,
) -> Option<bool> {
    let e = enqueue?;
    if e.ts != now || e.cpu < 0 {
        return None;
    }
    Some(match occupant(e.cpu as usize) {
        Some(Occupant::Task(p)) => p != pid,
        _ => false,
    })
}

/// Wakeup preemptions per (waker, wakee, victim) name, with the first and last time:
/// touched on every wakeup preemption, so hashed with FxHash (SipHash's flood resistance
/// buys nothing for task names here).
#[derive(Debug, Default)]
pub(crate) struct Triples(FxHashMap<(Comm, Comm, Comm), (u64, u64, u64)>);

impl Triples {
    pub(crate) fn add(&mut self, waker: Comm, wakee: Comm, victim: Comm, now: u64) {
        let seen = self
            .0
            .entry((waker, wakee, victim))
            .or_insert((0, now, now));
        seen.0 += 1;
        seen.2 = now;
    }

    /// The system row: `count` preemptions over `len_ns`, `busy` wakeups that found their
    /// CPU busy, every triple (most frequent first) and the ten most frequent.
    pub(crate) fn summary(&self, count: u64, busy: u64, len_ns: u64) -> SystemPreemption {
        let mut triples: Vec<Triple> = self
            .0
            .iter()
            .map(|((w, e, v), &(n, first, last))| Triple {
                waker: w.to_string_lossy(),
                wakee: e.to_string_lossy(),
                victim: v.to_string_lossy(),
                count: n,
                first_ns: first,
                last_ns: last,
            })
            .collect();
        triples.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| (&a.waker, &a.wakee, &a.victim).cmp(&(&b.waker, &b.wakee, &b.victim)))
        });
        let top_triples = triples.iter().take(10).cloned().collect();
        SystemPreemption {
            count,
            per_sec: if len_ns > 0 {
                count as f64 * 1e9 / len_ns as f64
            } else {
                0.0
            },
            busy_target_wakeups: busy,
            ratio_busy_target: (busy > 0).then(|| count as f64 / busy as f64),
            top_triples,
            triples,
        }
    }
}

/// Adds member `m`'s counts to a grouped row's.
pub(crate) fn merge(a: &mut Preemption, m: &Preemption) {
    a.caused += m.caused;
    a.suffered += m.suffered;
}

// ---- The report's wakeup-preemption fields.

/// Per task: wakeup preemptions caused (as the wakee) and suffered (as the victim).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Preemption {
    pub caused: u64,
    pub suffered: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Triple {
    pub waker: String,
    pub wakee: String,
    pub victim: String,
    pub count: u64,
    /// Times of its first and last wakeup preemption.
    #[serde(default)]
    pub first_ns: u64,
    #[serde(default)]
    pub last_ns: u64,
}

/// System-wide wakeup preemption (§5).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SystemPreemption {
    pub count: u64,
    pub per_sec: f64,
    /// Wakeups whose runqueue CPU ran another task at the wakeup.
    pub busy_target_wakeups: u64,
    /// count / busy_target_wakeups; null when there were none.
    pub ratio_busy_target: Option<f64>,
    /// The most frequent (waker, wakee, victim) names, most first.
    pub top_triples: Vec<Triple>,
    /// Every (waker, wakee, victim) triple, in the same order.
    #[serde(default)]
    pub triples: Vec<Triple>,
}

#[cfg(test)]
mod tests {
    use crate::stream::{other, switch, waking};
    use ingest::PrevState::{Runnable, Sleeping};

    fn count(events: &[ingest::Event]) -> crate::Report {
        crate::analyze_stream(events, crate::Config::default())
    }

    /// Task 2 is woken by 1 onto CPU 0 while 1 runs there, and takes the CPU from it.
    #[test]
    fn a_wakee_taking_the_cpu_from_its_runner_is_a_wakeup_preemption() {
        let r = count(&[
            switch(100, 0, 0, Runnable, 1),
            waking(200, 0, 1, 2, 0),
            switch(300, 0, 1, Runnable, 2),
            other(400, 0, 2),
        ]);
        let p = &r.system.wakeup_preemption;
        assert_eq!(
            (p.count, p.busy_target_wakeups, p.ratio_busy_target),
            (1, 1, Some(1.0))
        );
        let t = |pid| r.tasks.iter().find(|t| t.pid == pid).unwrap();
        assert_eq!((t(2).preemption.caused, t(1).preemption.suffered), (1, 1));
        assert_eq!(t(1).switch_out.wakeup_preempt, 1);
        let triple = &p.top_triples[0];
        assert_eq!(
            (
                &*triple.waker,
                &*triple.wakee,
                &*triple.victim,
                triple.count
            ),
            ("t1", "t2", "t1", 1)
        );
        assert_eq!(r.cpus[0].wakeup_preemptions, 1);
    }

    /// The runner blocked: the wakee ran on a CPU that was given up, not taken.
    #[test]
    fn a_blocking_runner_is_not_preempted() {
        let r = count(&[
            switch(100, 0, 0, Runnable, 1),
            waking(200, 0, 1, 2, 0),
            switch(300, 0, 1, Sleeping, 2),
            other(400, 0, 2),
        ]);
        assert_eq!(r.system.wakeup_preemption.count, 0);
        assert_eq!(r.system.wakeup_preemption.busy_target_wakeups, 1);
    }

    /// A task that started running after the wakeup was not the one the wakee found there.
    #[test]
    fn a_runner_that_arrived_after_the_wakeup_is_not_a_victim() {
        let r = count(&[
            switch(100, 0, 0, Runnable, 3),
            waking(150, 1, 4, 2, 0),
            switch(200, 0, 3, Sleeping, 1),
            switch(300, 0, 1, Runnable, 2),
            other(400, 0, 2),
        ]);
        assert_eq!(r.system.wakeup_preemption.count, 0);
    }
}
