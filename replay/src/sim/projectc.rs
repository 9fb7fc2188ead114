//! What PDS and BMQ share in Project C v6.1-r4 (`kernel/sched/alt_core.c`): one queue per
//! CPU of priority levels, first-in first-out within a level, the running task kept in the
//! queue at its level; time slices of `sched_timeslice_ns` (4 << 20 ns) ended precisely by
//! the hrtick timer; a task with less than `RESCHED_NS` (100 << 10 ns) left counts as
//! expired; a wakee preempts only when it becomes the queue's first task. The two differ in
//! how a task's level is computed and changed ([`Policy`]: `pds.rs`, `bmq.rs`).
//!
//! SCHED_BATCH and SCHED_IDLE are normal tasks at their nice here (no weights, and a
//! wakee that becomes the first task preempts whatever its policy): BMQ only keeps them
//! from a negative boost (`boost_task`); the real-time policies are the levels below 100,
//! above every normal one, which the engine's real-time class (`rt.rs`) runs.
//!
//! Simplified: a level-0 queue of PDS keeps enqueue order only (the kernel splices tasks
//! that fall below its time edge in level order); no `sched_yield`, no SMT or cpumask
//! preferences in placement (the engine's rule places every model's tasks).

use super::model::{slot, Dequeue, Enqueue, FairPolicy, ModelInfo, SchedulerModel};

/// `sched_timeslice_ns`: 4 << 20 ns (4.19 ms; the default of the boot option).
pub(crate) const TIMESLICE_NS: u64 = 4 << 20;
/// `RESCHED_NS`: a slice with less left than this is as good as used up.
pub(crate) const RESCHED_NS: u64 = 100 << 10;

/// A task's Project C state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Task {
    pub(crate) nice: i32,
    pub(crate) policy: FairPolicy,
    pub(crate) time_slice: u64,
    /// PDS: the virtual deadline, in units of 2^22 ns.
    pub(crate) deadline: u64,
    /// BMQ: the boost, -7 (most boosted) ..= 7.
    pub(crate) boost: i32,
    /// When it last ran (`last_ran`: accounted up to).
    pub(crate) last_ran: u64,
    /// When it was last switched in (`rq->last_ts_switch`).
    pub(crate) switched_in: u64,
    /// Enqueue order: FIFO within a level.
    pub(crate) seq: u64,
    pub(crate) parent: Option<usize>,
}

/// Where PDS and BMQ differ.
pub(crate) trait Policy {
    /// The model's name, parameters and flags.
    fn info(&self) -> ModelInfo;
    /// The queue level of `t` at `now` (lower runs first).
    fn level(&self, t: &Task, now: u64) -> i64;
    /// A new slice after expiry (`time_slice_expired`); `queued` when still runnable.
    fn expired(&self, t: &mut Task, now: u64, queued: bool);
    /// A forked task's first enqueue (`sched_task_fork`).
    fn forked(&self, t: &mut Task, now: u64);
    /// A wakeup (`sched_task_ttwu`).
    fn woken(&self, _t: &mut Task, _now: u64) {}
    /// The running task blocks (`sched_task_deactivate`).
    fn blocks(&self, _t: &mut Task, _now: u64) {}
    /// The priority its trace events show.
    fn prio(&self, t: &Task) -> i32;
}

#[derive(Debug, Clone, Default)]
struct Rq {
    /// Runnable tasks, the running one included.
    tasks: Vec<usize>,
    curr: Option<usize>,
}

/// The shared runqueue machinery over a [`Policy`].
pub(crate) struct ProjectC<P: Policy> {
    pub(crate) policy: P,
    pub(crate) tasks: Vec<Task>,
    rqs: Vec<Rq>,
    seq: u64,
}

impl<P: Policy> ProjectC<P> {
    pub(crate) fn new(cpus: usize, policy: P) -> ProjectC<P> {
        ProjectC {
            policy,
            tasks: Vec::new(),
            rqs: vec![Rq::default(); cpus.max(1)],
            seq: 0,
        }
    }

    fn first(&self, cpu: usize, now: u64) -> Option<usize> {
        let t = &self.tasks;
        self.rqs[cpu]
            .tasks
            .iter()
            .copied()
            .min_by_key(|&i| (self.policy.level(&t[i], now), t[i].seq))
    }

    fn move_to_tail(&mut self, task: usize) {
        self.seq += 1;
        self.tasks[task].seq = self.seq;
    }

    fn update_curr(&mut self, cpu: usize, now: u64) {
        if let Some(c) = self.rqs[cpu].curr {
            let t = &mut self.tasks[c];
            let ran = now.saturating_sub(t.last_ran);
            t.time_slice = t.time_slice.saturating_sub(ran);
            t.last_ran = now;
        }
    }

    /// `check_curr` at a reschedule: a used-up slice is renewed (and, still queued, the
    /// task goes to the tail of its new level).
    fn check_curr(&mut self, task: usize, now: u64, queued: bool) {
        if self.tasks[task].time_slice < RESCHED_NS {
            self.tasks[task].time_slice = TIMESLICE_NS;
            self.policy.expired(&mut self.tasks[task], now, queued);
            if queued {
                self.move_to_tail(task);
            }
        }
    }

    pub(crate) fn add_task(&mut self, task: usize, nice: i32, parent: Option<usize>) {
        let t = slot(&mut self.tasks, task);
        t.nice = nice;
        t.time_slice = TIMESLICE_NS;
        t.parent = parent;
    }

    pub(crate) fn enqueue(&mut self, cpu: usize, task: usize, now: u64, how: Enqueue) {
        self.update_curr(cpu, now);
        match how {
            Enqueue::New => {
                // The parent's slice is shared with the child (`sched_fork`).
                let parent = self.tasks[task].parent.filter(|&p| p < self.tasks.len());
                let half = parent.map_or(TIMESLICE_NS, |p| self.tasks[p].time_slice / 2);
                if let Some(p) = parent {
                    self.tasks[p].time_slice = half;
                }
                let t = &mut self.tasks[task];
                t.time_slice = if half < RESCHED_NS {
                    TIMESLICE_NS
                } else {
                    half
                };
                self.policy.forked(t, now);
            }
            Enqueue::Wakeup { .. } => self.policy.woken(&mut self.tasks[task], now),
            Enqueue::Migrated => {}
        }
        self.move_to_tail(task);
        self.rqs[cpu].tasks.push(task);
    }

    pub(crate) fn dequeue(&mut self, cpu: usize, task: usize, now: u64, how: Dequeue) {
        self.update_curr(cpu, now);
        let rq = &mut self.rqs[cpu];
        rq.tasks.retain(|&t| t != task);
        if rq.curr == Some(task) {
            rq.curr = None;
            if how == Dequeue::Sleep {
                self.policy.blocks(&mut self.tasks[task], now);
            }
            self.check_curr(task, now, false);
        }
    }

    pub(crate) fn put_prev(&mut self, cpu: usize, task: usize, now: u64) {
        self.update_curr(cpu, now);
        self.rqs[cpu].curr = None;
        self.check_curr(task, now, true);
    }

    pub(crate) fn pick_next(&mut self, cpu: usize, now: u64) -> Option<usize> {
        let next = self.first(cpu, now)?;
        self.rqs[cpu].curr = Some(next);
        let t = &mut self.tasks[next];
        t.last_ran = now;
        t.switched_in = now;
        Some(next)
    }

    pub(crate) fn tick(&mut self, cpu: usize, now: u64) -> bool {
        self.update_curr(cpu, now);
        self.rqs[cpu]
            .curr
            .is_some_and(|c| self.tasks[c].time_slice < RESCHED_NS)
    }

    pub(crate) fn check_preempt_wakeup(&mut self, cpu: usize, _wakee: usize, now: u64) -> bool {
        self.update_curr(cpu, now);
        self.first(cpu, now) != self.rqs[cpu].curr
    }

    /// The hrtick: the running task's slice ends at this time.
    pub(crate) fn slice_timer(&self, cpu: usize) -> Option<u64> {
        let c = self.rqs[cpu].curr?;
        let t = &self.tasks[c];
        Some(t.last_ran + t.time_slice)
    }

    pub(crate) fn queued(&self, cpu: usize) -> Vec<usize> {
        let rq = &self.rqs[cpu];
        rq.tasks
            .iter()
            .copied()
            .filter(|&t| Some(t) != rq.curr)
            .collect()
    }
}

impl<P: Policy> SchedulerModel for ProjectC<P> {
    fn info(&self) -> ModelInfo {
        self.policy.info()
    }
    fn add_task(&mut self, task: usize, nice: i32, parent: Option<usize>) {
        ProjectC::add_task(self, task, nice, parent)
    }
    fn set_policy(&mut self, task: usize, policy: FairPolicy) {
        self.tasks[task].policy = policy;
    }
    fn enqueue(&mut self, cpu: usize, task: usize, now: u64, how: Enqueue) {
        ProjectC::enqueue(self, cpu, task, now, how)
    }
    fn dequeue(&mut self, cpu: usize, task: usize, now: u64, how: Dequeue) {
        ProjectC::dequeue(self, cpu, task, now, how)
    }
    fn put_prev(&mut self, cpu: usize, task: usize, now: u64) {
        ProjectC::put_prev(self, cpu, task, now)
    }
    fn pick_next(&mut self, cpu: usize, now: u64) -> Option<usize> {
        ProjectC::pick_next(self, cpu, now)
    }
    fn tick(&mut self, cpu: usize, now: u64) -> bool {
        ProjectC::tick(self, cpu, now)
    }
    fn check_preempt_wakeup(&mut self, cpu: usize, wakee: usize, now: u64) -> bool {
        ProjectC::check_preempt_wakeup(self, cpu, wakee, now)
    }
    fn slice_timer(&self, cpu: usize) -> Option<u64> {
        ProjectC::slice_timer(self, cpu)
    }
    /// The hrtick fired: the slice is used up (the same test as the tick's).
    fn slice_timer_fired(&mut self, cpu: usize, now: u64) -> bool {
        ProjectC::tick(self, cpu, now)
    }
    fn queued(&self, cpu: usize) -> Vec<usize> {
        ProjectC::queued(self, cpu)
    }
    fn prio(&self, task: usize) -> i32 {
        self.policy.prio(&self.tasks[task])
    }
}
