//! The traced cost of a wakeup preemption: how long a wakee that takes the CPU from the
//! running task still waits. The kernel decides the preemption in the wakeup (it sets
//! `need_resched`), but the waker runs on to its next preemption point (the return to
//! user space, a `cond_resched`) and the switch path takes its time: on the fixtures' VMs
//! tens of µs, the same order as a ping-pong's whole burst. A model that switches at the
//! wakeup's nanosecond gives such a wakee no latency at all.
//!
//! Measured as the analysis measures wakeup latency (from the wait's start: `sched_waking`,
//! else `sched_wakeup`, to the switch-in) over the wakeups that preempted (docs/metrics.md
//! §5: woken onto a CPU whose running task had run there since before the wakeup, and
//! switched in as that task leaves runnable). The median, not the mean: a halted vCPU
//! makes a few of them milliseconds long.
//!
//! Why not from the analysis' per-event records (`Config::records`, joining each
//! `PreemptionRecord` to the wakee's `WaitRecord` that ended at it): they give the same
//! samples (the same median on every fixture), but they keep every wait of the trace to
//! its end, where this keeps a bounded sample; on `bench/`'s 1 GB trace that was about
//! 30 % more peak memory for the whole replay (bench/README.md).

use ingest::{Event, EventKind};
use std::collections::HashMap;

/// Samples kept: plenty for a median, bounded so a long trace costs no more. When full,
/// every other one is dropped and only every other preempting wakeup kept from then on, so
/// the samples stay spread over the whole trace: the first ones alone are its opening,
/// whose delays need not be the rest's.
const MAX_SAMPLES: usize = 1 << 16;

/// A task's wait being measured: its start, and where and when its wakeup enqueued it.
#[derive(Debug, Clone, Copy)]
struct Wait {
    start_ns: u64,
    enqueue: Option<(u32, u64)>,
}

/// A bounded sample of durations spread over the whole trace, for a median (also
/// `waking_lag.rs`'s).
#[derive(Debug)]
pub(crate) struct Samples {
    /// Every `stride`-th duration, at most `cap` of them.
    kept: Vec<u64>,
    cap: usize,
    stride: u64,
    /// Durations seen.
    seen: u64,
}

impl Default for Samples {
    fn default() -> Samples {
        Samples::with_cap(MAX_SAMPLES)
    }
}

impl Samples {
    fn with_cap(cap: usize) -> Samples {
        Samples {
            kept: Vec::new(),
            cap: cap.max(2),
            stride: 1,
            seen: 0,
        }
    }

    /// One duration (the sampling of [`MAX_SAMPLES`]).
    pub(crate) fn push(&mut self, ns: u64) {
        self.seen += 1;
        if !self.seen.is_multiple_of(self.stride) {
            return;
        }
        self.kept.push(ns);
        if self.kept.len() == self.cap {
            // The kept ones are numbers `stride`, `2 * stride`, ...: keep the even multiples.
            let mut i = 0;
            self.kept.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            self.stride *= 2;
        }
    }

    /// The median of the kept ones (the upper one of an even count); 0 when none.
    pub(crate) fn median_ns(&self) -> u64 {
        let mut s = self.kept.clone();
        if s.is_empty() {
            return 0;
        }
        let mid = s.len() / 2;
        *s.select_nth_unstable(mid).1
    }
}

/// Fed every event of the trace in order ([`PreemptCost::event`]).
#[derive(Debug, Default)]
pub(crate) struct PreemptCost {
    /// Per CPU: the running task and since when it runs there.
    running: Vec<Option<(i32, u64)>>,
    waits: HashMap<i32, Wait>,
    /// The latencies of the preempting wakeups.
    samples: Samples,
}

impl PreemptCost {
    pub(crate) fn event(&mut self, event: &Event) {
        let ts = event.ts;
        match &event.kind {
            EventKind::Waking { task, .. } if task.pid > 0 => {
                self.waits.entry(task.pid).or_insert(Wait {
                    start_ns: ts,
                    enqueue: None,
                });
            }
            EventKind::Wakeup { task, target_cpu } if task.pid > 0 => {
                let w = self.waits.entry(task.pid).or_insert(Wait {
                    start_ns: ts,
                    enqueue: None,
                });
                w.enqueue = u32::try_from(*target_cpu).ok().map(|cpu| (cpu, ts));
            }
            EventKind::Switch {
                prev,
                prev_state,
                next,
            } => {
                let cpu = event.cpu as usize;
                if self.running.len() <= cpu {
                    self.running.resize(cpu + 1, None);
                }
                let victim = self.running[cpu].filter(|&(pid, _)| pid == prev.pid && pid > 0);
                if let (Some(w), true) = (self.waits.remove(&next.pid), prev_state.is_runnable()) {
                    let preempted = match (victim, w.enqueue) {
                        (Some((_, since)), Some((on, at))) => on == event.cpu && since <= at,
                        _ => false,
                    };
                    if preempted {
                        self.samples.push(ts.saturating_sub(w.start_ns));
                    }
                }
                self.running[cpu] = (next.pid > 0).then_some((next.pid, ts));
            }
            _ => {}
        }
    }

    /// The median latency of the wakeups that preempted; 0 when the trace has none.
    pub(crate) fn median_ns(&self) -> u64 {
        self.samples.median_ns()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ingest::{PrevState, TaskRef};

    fn task(pid: i32) -> TaskRef {
        TaskRef {
            pid,
            comm: ingest::Comm::from("t"),
            prio: 120,
        }
    }

    fn ev(ts: u64, cpu: u32, kind: EventKind) -> Event {
        Event {
            ts,
            cpu,
            current_pid: -1,
            kind,
        }
    }

    fn switch(ts: u64, cpu: u32, prev: i32, state: PrevState, next: i32) -> Event {
        ev(
            ts,
            cpu,
            EventKind::Switch {
                prev: task(prev),
                prev_state: state,
                next: task(next),
            },
        )
    }

    fn waking(ts: u64, cpu: u32, pid: i32) -> Event {
        ev(
            ts,
            cpu,
            EventKind::Waking {
                task: task(pid),
                target_cpu: cpu as i32,
            },
        )
    }

    fn wakeup(ts: u64, cpu: u32, pid: i32) -> Event {
        ev(
            ts,
            cpu,
            EventKind::Wakeup {
                task: task(pid),
                target_cpu: cpu as i32,
            },
        )
    }

    #[test]
    fn only_preempting_wakeups_count_from_the_waking() {
        let mut p = PreemptCost::default();
        let events = [
            // Task 1 runs on CPU 0 from 100.
            switch(100, 0, 0, PrevState::Runnable, 1),
            // 2 is woken onto CPU 0 at 200/210 and takes it at 250: 50 ns from the waking.
            waking(200, 0, 2),
            wakeup(210, 0, 2),
            switch(250, 0, 1, PrevState::Runnable, 2),
            // 1 runs again; 2 blocks.
            switch(300, 0, 2, PrevState::Sleeping, 1),
            // 3 is woken at 400 but 1 blocks (S) first: not a preemption.
            waking(400, 0, 3),
            wakeup(400, 0, 3),
            switch(470, 0, 1, PrevState::Sleeping, 3),
            // 4 is woken onto CPU 1 (idle) and runs at 600: not a preemption.
            waking(500, 0, 4),
            wakeup(520, 1, 4),
            switch(600, 1, 0, PrevState::Runnable, 4),
            // 1 woken onto CPU 0 at 700, preempts 3 at 790: 90 ns.
            waking(700, 1, 1),
            wakeup(705, 0, 1),
            switch(790, 0, 3, PrevState::Preempted, 1),
            // 5 woken at 800 onto CPU 0 before 2 ran there (2 starts at 850): not one.
            waking(800, 0, 5),
            wakeup(800, 0, 5),
            switch(850, 0, 1, PrevState::Sleeping, 2),
            switch(900, 0, 2, PrevState::Runnable, 5),
            // 6 preempts 5 after 30 ns.
            waking(1000, 0, 6),
            wakeup(1000, 0, 6),
            switch(1030, 0, 5, PrevState::Runnable, 6),
        ];
        for e in &events {
            p.event(e);
        }
        // Samples 50, 90, 30: the median is 50.
        assert_eq!(p.samples.kept, vec![50, 90, 30]);
        assert_eq!(p.median_ns(), 50);
        assert_eq!(PreemptCost::default().median_ns(), 0);
    }

    #[test]
    fn a_full_sample_thins_out_evenly() {
        let mut p = Samples::with_cap(4);
        for ns in 1..=10 {
            p.push(ns);
        }
        // Full at 4: 2 and 4 kept, then every 2nd: 6, 8; full again: 4 and 8, then every
        // 4th (none of 9 and 10).
        assert_eq!((p.kept.clone(), p.stride, p.seen), (vec![4, 8], 4, 10));
        p.push(11);
        p.push(12);
        assert_eq!(p.kept, vec![4, 8, 12]);
    }
}
