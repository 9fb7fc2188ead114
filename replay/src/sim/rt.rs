//! The real-time class above every model: SCHED_FIFO and SCHED_RR tasks (a traced
//! real-time task as FIFO, SCHED_DEADLINE as FIFO 99) run ahead of every fair task on
//! their CPU, as the kernel's `rt_sched_class` runs before `fair_sched_class` and Project C
//! queues priorities 0-99 below every normal level.
//!
//! Why a wrapper around the model and not a model's rule: the rules are the same under all
//! four kernels but for the RR slice, and a fair model never sees a real-time task, as the
//! kernel's fair class never does. [`WithRt`] is what the engine drives: it answers for
//! the real-time tasks and hands everything else to the model.
//!
//! The rules (`kernel/sched/rt.c` of 6.1 and 6.12; Project C v6.1-r4 `alt_core.c`,
//! `pds.h`, `bmq.h`): per CPU, the runnable real-time task with the lowest kernel priority
//! (`99 − rt_priority`) runs, first-in first-out within a priority; a waking real-time task
//! preempts a fair task at once and a real-time one of a lower priority
//! (`check_preempt_curr_rt`: `p->prio < rq->curr->prio`; Project C: it becomes the queue's
//! first); a preempted one stays at the head of its priority (it never leaves its list while
//! runnable); a fair wakee never preempts a real-time task. SCHED_RR: mainline counts the
//! slice in ticks (`task_tick_rt`: `RR_TIMESLICE` = 100 ms of ticks, then the task goes to
//! the tail of its priority if another task waits there); Project C ends it by the hrtick
//! after `sched_timeslice_ns` (`time_slice_expired`: requeued at the tail, FIFO only
//! renewed). SCHED_DEADLINE: Project C squashes it into SCHED_FIFO 99
//! (`__sched_setscheduler`), exactly what this does; mainline's deadline class (EDF with
//! runtime and period, above FIFO 99) is approximated by it.
//!
//! Not modelled: RT throttling (6.1: 95 % of each second; 6.12: the fair server's 50 ms
//! per second for fair tasks), mainline's real-time placement and push / pull
//! (`find_lowest_rq`: the engine's placement and idle pull move real-time tasks as they
//! move fair ones).

use super::model::{Dequeue, Enqueue, FairPolicy, ModelInfo, SchedulerModel};
use super::projectc::{RESCHED_NS, TIMESLICE_NS};
use crate::demand::Demand;
use crate::policy::SimClass;

/// How a SCHED_RR slice is counted and how long it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RrSlice {
    /// Mainline: this many ticks (`RR_TIMESLICE`, 100 ms at the kernel's HZ).
    Ticks(u64),
    /// Project C: this many ns, ended by the hrtick.
    Timer(u64),
}

impl RrSlice {
    /// Mainline's `RR_TIMESLICE` at `hz`: `100 * HZ / 1000` ticks.
    pub(crate) fn mainline(hz: u32) -> RrSlice {
        RrSlice::Ticks((u64::from(hz) / 10).max(1))
    }

    /// Project C's `sched_timeslice_ns`.
    pub(crate) fn project_c() -> RrSlice {
        RrSlice::Timer(TIMESLICE_NS)
    }

    fn full(self) -> u64 {
        match self {
            RrSlice::Ticks(n) | RrSlice::Timer(n) => n,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Rt {
    /// The kernel priority, 0 (rt_priority 99) to 98: lower runs first.
    prio: i32,
    rr: bool,
    /// What is left of an RR slice (ticks or ns, as [`RrSlice`] counts).
    left: u64,
    /// Its place in its priority's list: lower is nearer the head.
    seq: u64,
}

/// A scheduler model with the real-time class above it.
pub(crate) struct WithRt<'a> {
    fair: Box<dyn SchedulerModel + 'a>,
    /// Per task: its real-time state, None for a fair task.
    rt: Vec<Option<Rt>>,
    /// Per task: its fair policy (what the model is told).
    fair_policy: Vec<FairPolicy>,
    /// Per CPU: the runnable real-time tasks, the running one included.
    queues: Vec<Vec<usize>>,
    /// Per CPU: the running task of either class, as picked.
    curr: Vec<Option<usize>>,
    /// Per CPU: when the running real-time task's slice was last accounted.
    since: Vec<u64>,
    rr: RrSlice,
    seq: u64,
}

impl<'a> WithRt<'a> {
    pub(crate) fn new(
        fair: Box<dyn SchedulerModel + 'a>,
        demand: &Demand,
        cpus: usize,
        rr: RrSlice,
    ) -> WithRt<'a> {
        let mut rt = Vec::with_capacity(demand.tasks.len());
        let mut fair_policy = Vec::with_capacity(demand.tasks.len());
        for t in &demand.tasks {
            match t.sim_class() {
                SimClass::Fair { policy, .. } => {
                    rt.push(None);
                    fair_policy.push(policy);
                }
                SimClass::RealTime { rt_priority, rr } => {
                    rt.push(Some(Rt {
                        prio: 99 - rt_priority.clamp(1, 99) as i32,
                        rr,
                        left: 0,
                        seq: 0,
                    }));
                    fair_policy.push(FairPolicy::Normal);
                }
            }
        }
        WithRt {
            fair,
            rt,
            fair_policy,
            queues: vec![Vec::new(); cpus.max(1)],
            curr: vec![None; cpus.max(1)],
            since: vec![0; cpus.max(1)],
            rr,
            seq: 0,
        }
    }

    fn is_rt(&self, task: usize) -> bool {
        self.rt.get(task).is_some_and(Option::is_some)
    }

    fn rt(&mut self, task: usize) -> &mut Rt {
        self.rt[task].as_mut().expect("a real-time task")
    }

    /// The running real-time task of `cpu`, if the running task is one.
    fn rt_curr(&self, cpu: usize) -> Option<usize> {
        self.curr[cpu].filter(|&c| self.is_rt(c))
    }

    /// To the tail of its priority's list.
    fn requeue_at_tail(&mut self, task: usize) {
        self.seq += 1;
        let seq = self.seq;
        self.rt(task).seq = seq;
    }

    /// The real-time task that runs next on `cpu`.
    fn first(&self, cpu: usize) -> Option<usize> {
        let key = |t: &usize| {
            let r = self.rt[*t].expect("queued real-time tasks are real-time");
            (r.prio, r.seq)
        };
        self.queues[cpu].iter().copied().min_by_key(key)
    }

    /// Timer mode: takes the time `cpu`'s running real-time task ran since last accounted
    /// off its RR slice.
    fn account(&mut self, cpu: usize, now: u64) {
        let ran = now.saturating_sub(std::mem::replace(&mut self.since[cpu], now));
        if let (Some(c), RrSlice::Timer(_)) = (self.rt_curr(cpu), self.rr) {
            let r = self.rt(c);
            if r.rr {
                r.left = r.left.saturating_sub(ran);
            }
        }
    }

    /// An RR slice is used up: a new one, and to the tail of its priority; true when
    /// another task of that priority waits there (the kernel's `requeue_task_rt` test).
    fn rr_expired(&mut self, cpu: usize, task: usize) -> bool {
        let full = self.rr.full();
        let prio = self.rt(task).prio;
        self.rt(task).left = full;
        self.requeue_at_tail(task);
        self.queues[cpu]
            .iter()
            .any(|&q| q != task && self.rt[q].is_some_and(|r| r.prio == prio))
    }
}

impl SchedulerModel for WithRt<'_> {
    fn info(&self) -> ModelInfo {
        self.fair.info()
    }

    fn add_task(&mut self, task: usize, nice: i32, parent: Option<usize>) {
        if self.is_rt(task) {
            let full = self.rr.full();
            self.rt(task).left = full;
            return;
        }
        // A real-time parent is no fair task of the model's: the child starts afresh.
        let parent = parent.filter(|&p| !self.is_rt(p));
        self.fair.add_task(task, nice, parent);
        let policy = self.fair_policy[task];
        self.fair.set_policy(task, policy);
    }

    fn set_policy(&mut self, task: usize, policy: FairPolicy) {
        self.fair.set_policy(task, policy);
    }

    fn enqueue(&mut self, cpu: usize, task: usize, now: u64, how: Enqueue) {
        if self.is_rt(task) {
            self.requeue_at_tail(task);
            self.queues[cpu].push(task);
        } else {
            self.fair.enqueue(cpu, task, now, how);
        }
    }

    fn dequeue(&mut self, cpu: usize, task: usize, now: u64, how: Dequeue) {
        if self.curr[cpu] == Some(task) {
            self.account(cpu, now);
            self.curr[cpu] = None;
        }
        if self.is_rt(task) {
            self.queues[cpu].retain(|&t| t != task);
        } else {
            self.fair.dequeue(cpu, task, now, how);
        }
    }

    fn put_prev(&mut self, cpu: usize, task: usize, now: u64) {
        self.account(cpu, now);
        self.curr[cpu] = None;
        // A real-time task keeps its place in its list (the head, unless its RR slice sent
        // it to the tail).
        if !self.is_rt(task) {
            self.fair.put_prev(cpu, task, now);
        }
    }

    fn pick_next(&mut self, cpu: usize, now: u64) -> Option<usize> {
        let next = match self.first(cpu) {
            Some(t) => Some(t),
            None => self.fair.pick_next(cpu, now),
        };
        self.curr[cpu] = next;
        self.since[cpu] = now;
        next
    }

    fn tick(&mut self, cpu: usize, now: u64) -> bool {
        let Some(c) = self.rt_curr(cpu) else {
            return self.fair.tick(cpu, now);
        };
        self.account(cpu, now);
        let rr = self.rt(c).rr;
        match self.rr {
            // `task_tick_rt`: an RR task's slice is counted down tick by tick.
            RrSlice::Ticks(_) if rr => {
                let r = self.rt(c);
                r.left = r.left.saturating_sub(1);
                r.left == 0 && self.rr_expired(cpu, c)
            }
            RrSlice::Ticks(_) => false,
            // Project C's tick sees a used-up slice as the hrtick does.
            RrSlice::Timer(_) => self.slice_timer_fired(cpu, now),
        }
    }

    fn check_preempt_wakeup(&mut self, cpu: usize, wakee: usize, now: u64) -> bool {
        match (self.rt[wakee], self.curr[cpu]) {
            (Some(w), Some(c)) => self.rt[c].is_none_or(|r| w.prio < r.prio),
            (Some(_), None) => true,
            (None, Some(c)) if self.is_rt(c) => false,
            (None, _) => self.fair.check_preempt_wakeup(cpu, wakee, now),
        }
    }

    fn slice_timer(&self, cpu: usize) -> Option<u64> {
        let Some(c) = self.rt_curr(cpu) else {
            return self.fair.slice_timer(cpu);
        };
        let r = self.rt[c]?;
        match self.rr {
            RrSlice::Timer(_) if r.rr => Some(self.since[cpu] + r.left),
            _ => None,
        }
    }

    fn slice_timer_fired(&mut self, cpu: usize, now: u64) -> bool {
        let Some(c) = self.rt_curr(cpu) else {
            return self.fair.slice_timer_fired(cpu, now);
        };
        self.account(cpu, now);
        // Project C: less than `RESCHED_NS` left counts as used up.
        let r = self.rt(c);
        r.rr && r.left < RESCHED_NS && self.rr_expired(cpu, c)
    }

    fn queued(&self, cpu: usize) -> Vec<usize> {
        // Placement asks at every wakeup: no copy when no real-time task waits.
        if self.queues[cpu].iter().all(|&t| Some(t) == self.curr[cpu]) {
            return self.fair.queued(cpu);
        }
        let mut rt: Vec<usize> = self.queues[cpu]
            .iter()
            .copied()
            .filter(|&t| Some(t) != self.curr[cpu])
            .collect();
        rt.sort_by_key(|&t| self.rt[t].map(|r| (r.prio, r.seq)));
        rt.extend(self.fair.queued(cpu));
        rt
    }

    fn still_queued_on(&self, task: usize) -> Option<usize> {
        if self.is_rt(task) {
            None
        } else {
            self.fair.still_queued_on(task)
        }
    }

    fn prio(&self, task: usize) -> i32 {
        match self.rt[task] {
            Some(r) => r.prio,
            None => self.fair.prio(task),
        }
    }
}
