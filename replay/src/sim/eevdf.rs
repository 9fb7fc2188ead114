//! EEVDF as of Linux 6.12 (`kernel/sched/fair.c`, `features.h`): each task has a lag (the
//! service it is owed against the weighted average vruntime V) and a virtual deadline one
//! slice ahead of its vruntime; the CPU goes to the eligible task (vruntime not past V) with
//! the earliest deadline. One runqueue per CPU, no group scheduling.
//!
//! Features modelled, with 6.12's defaults: PLACE_LAG (a waking task keeps its lag, scaled
//! for the queue it joins), PLACE_DEADLINE_INITIAL (a new task's first deadline is half a
//! slice away), RUN_TO_PARITY (the running task keeps the CPU until its deadline moves),
//! PREEMPT_SHORT (a wakee with a shorter slice cuts through that), DELAY_DEQUEUE (a task
//! that blocks while not eligible stays queued until picked or woken, burning its negative
//! lag) with DELAY_ZERO (positive lag dropped when the delayed dequeue completes). With
//! HRTICK off a deadline is noticed at the next tick or scheduling event. The core's clock
//! rule is kept too: after a wakeup that asks for a reschedule, the switch reads the clock
//! of that wakeup (`rq_clock_skip_update`), so the wakee is charged the time from its
//! wakeup on, not the waker that ran it.
//!
//! SCHED_BATCH and SCHED_IDLE (`check_preempt_wakeup_fair`, `set_load_weight`): an
//! idle-policy task weighs `WEIGHT_IDLEPRIO` (3); a waking task that is not idle-policy
//! preempts an idle-policy running one at once, and a batch or idle wakee never preempts.
//!
//! Simplified: `calc_delta_fair` divides exactly; no PELT; an exiting task leaves at once
//! (the kernel may delay its dequeue too); all slices are the base slice (no
//! `sched_attr.sched_runtime`).

use super::fair_rq::FairRq;
use super::model::{
    slot, sysctl_factor, to_virtual, weight_of_nice, Dequeue, Enqueue, FairPolicy, ModelInfo,
    ModelName, SchedulerModel, WEIGHT_IDLEPRIO,
};

/// 6.12's tunable (`sysctl_sched_base_slice`: 0.7 ms before scaling; the `eevdf-6.12-vm`
/// capture's debugfs says `base_slice_ns: 2100000` with 4 CPUs) and feature flags.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EevdfParams {
    pub(crate) base_slice_ns: u64,
    /// TICK_NSEC: the lag clamp is at least one tick.
    pub(crate) tick_ns: u64,
    pub(crate) place_lag: bool,
    pub(crate) place_deadline_initial: bool,
    pub(crate) run_to_parity: bool,
    pub(crate) preempt_short: bool,
    pub(crate) delay_dequeue: bool,
    pub(crate) delay_zero: bool,
}

impl EevdfParams {
    /// 6.12's defaults for `cpus` online CPUs at `hz`.
    pub(crate) fn linux_6_12(cpus: usize, hz: u32) -> EevdfParams {
        EevdfParams {
            base_slice_ns: 700_000 * sysctl_factor(cpus),
            tick_ns: 1_000_000_000 / u64::from(hz.max(1)),
            place_lag: true,
            place_deadline_initial: true,
            run_to_parity: true,
            preempt_short: true,
            delay_dequeue: true,
            delay_zero: true,
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Entity {
    nice: i32,
    policy: FairPolicy,
    weight: u64,
    vruntime: i64,
    deadline: i64,
    vlag: i64,
    slice: u64,
    /// The deadline it had when last picked: RUN_TO_PARITY protects it until that moves
    /// (the kernel keeps it in `vlag` while the task runs).
    picked_deadline: Option<i64>,
    /// Blocked but still queued (DELAY_DEQUEUE), on this CPU.
    delayed_on: Option<usize>,
    exec_start: u64,
    seq: u64,
}

pub(crate) struct Eevdf {
    p: EevdfParams,
    tasks: Vec<Entity>,
    rqs: Vec<FairRq>,
    /// Per CPU: a reschedule asked for by `update_curr` (a deadline reached with others
    /// queued, or PREEMPT_SHORT's unprotected running task no longer eligible).
    resched: Vec<bool>,
    /// Per CPU: the task `put_prev` just put back, until the pick that follows: picked
    /// again, it keeps the protection it had (6.12's `put_prev_set_next_task` returns early
    /// when the pick is the previous task, so `set_next_entity` does not re-stash the
    /// deadline).
    put_back: Vec<Option<usize>>,
    seq: u64,
}

impl Eevdf {
    pub(crate) fn new(cpus: usize, p: EevdfParams) -> Eevdf {
        Eevdf {
            p,
            tasks: Vec::new(),
            rqs: vec![FairRq::default(); cpus.max(1)],
            resched: vec![false; cpus.max(1)],
            put_back: vec![None; cpus.max(1)],
            seq: 0,
        }
    }

    fn on_rq(&self, cpu: usize) -> impl Iterator<Item = usize> + '_ {
        self.rqs[cpu].on_rq()
    }

    /// (Σ w·(v − min_vruntime), Σ w) over the runqueue.
    fn sums(&self, cpu: usize) -> (i128, i128) {
        let base = self.rqs[cpu].min_vruntime;
        self.on_rq(cpu).fold((0, 0), |(s, l), t| {
            let e = &self.tasks[t];
            let w = i128::from(e.weight);
            (s + w * i128::from(e.vruntime - base), l + w)
        })
    }

    /// V, the weighted average vruntime (`avg_vruntime`, rounded down).
    fn avg_vruntime(&self, cpu: usize) -> i64 {
        let (sum, load) = self.sums(cpu);
        let base = self.rqs[cpu].min_vruntime;
        if load == 0 {
            return base;
        }
        base + sum.div_euclid(load) as i64
    }

    /// `entity_eligible`: vruntime not past V, compared without rounding.
    fn eligible(&self, cpu: usize, task: usize) -> bool {
        let (sum, load) = self.sums(cpu);
        let v = i128::from(self.tasks[task].vruntime - self.rqs[cpu].min_vruntime);
        sum >= v * load
    }

    fn update_min_vruntime(&mut self, cpu: usize) {
        self.rqs[cpu].update_min_vruntime(|t| self.tasks[t].vruntime);
    }

    /// Accounts the running task; a reached deadline gets a new one a slice ahead and asks
    /// for a reschedule when others are queued (`update_deadline`), and so does a running
    /// task RUN_TO_PARITY no longer protects once it is not eligible (`did_preempt_short`,
    /// with PREEMPT_SHORT).
    fn update_curr(&mut self, cpu: usize, now: u64) {
        let Some(c) = self.rqs[cpu].curr else {
            return;
        };
        let base = self.p.base_slice_ns;
        let e = &mut self.tasks[c];
        let delta = now.saturating_sub(e.exec_start);
        e.exec_start = now;
        e.vruntime += to_virtual(delta, e.weight) as i64;
        let mut reached = false;
        if e.vruntime >= e.deadline {
            e.slice = base;
            e.deadline = e.vruntime + to_virtual(e.slice, e.weight) as i64;
            reached = true;
        }
        self.update_min_vruntime(cpu);
        if self.rqs[cpu].queue.is_empty() {
            return;
        }
        let e = &self.tasks[c];
        let protected = e.picked_deadline == Some(e.deadline);
        if reached || (self.p.preempt_short && !protected && !self.eligible(cpu, c)) {
            self.resched[cpu] = true;
        }
    }

    /// `update_entity_lag`: V − v, clamped to ± max(2 slices, a tick) in the task's
    /// virtual time.
    fn update_lag(&mut self, cpu: usize, task: usize) {
        let v = self.avg_vruntime(cpu);
        let e = &self.tasks[task];
        let limit = to_virtual((2 * e.slice).max(self.p.tick_ns), e.weight) as i64;
        let lag = (v - e.vruntime).clamp(-limit, limit);
        self.tasks[task].vlag = lag;
    }

    /// `place_entity`: at V minus its lag, the lag scaled by (W + w) / W so that adding the
    /// task leaves it that far from the new average; deadline one virtual slice ahead.
    fn place(&mut self, cpu: usize, task: usize, initial: bool) {
        let v = self.avg_vruntime(cpu);
        let load: u64 = self.on_rq(cpu).map(|t| self.tasks[t].weight).sum();
        let e = &mut self.tasks[task];
        e.slice = self.p.base_slice_ns;
        let mut vslice = to_virtual(e.slice, e.weight) as i64;
        let mut lag = 0i64;
        if self.p.place_lag && load > 0 && e.vlag != 0 {
            lag = ((i128::from(e.vlag) * i128::from(load + e.weight)) / i128::from(load)) as i64;
        }
        e.vruntime = v - lag;
        if self.p.place_deadline_initial && initial {
            vslice /= 2;
        }
        e.deadline = e.vruntime + vslice;
    }

    /// `pick_eevdf`: the eligible task with the earliest deadline, the running one
    /// (`curr`, when still queued) kept while RUN_TO_PARITY protects it.
    fn pick_eevdf(&self, cpu: usize) -> Option<usize> {
        let rq = &self.rqs[cpu];
        let t = &self.tasks;
        let all: Vec<usize> = self.on_rq(cpu).collect();
        if all.len() <= 1 {
            return all.first().copied();
        }
        let curr = rq.curr.filter(|&c| self.eligible(cpu, c));
        if let Some(c) = curr {
            if self.p.run_to_parity && t[c].picked_deadline == Some(t[c].deadline) {
                return Some(c);
            }
        }
        let best = rq
            .queue
            .iter()
            .copied()
            .filter(|&q| self.eligible(cpu, q))
            .min_by_key(|&q| (t[q].deadline, t[q].seq));
        match (best, curr) {
            (Some(b), Some(c)) if t[c].deadline < t[b].deadline => Some(c),
            (Some(b), _) => Some(b),
            (None, Some(c)) => Some(c),
            // Rounding can leave no one eligible; the least vruntime is, in exact terms.
            (None, None) => all.into_iter().min_by_key(|&q| (t[q].vruntime, t[q].seq)),
        }
    }

    /// `check_preempt_wakeup_fair`, in its order: a reschedule already asked for (by the
    /// enqueue's `update_curr`) stands; then the policy rules; only then is the running
    /// task accounted, with the wakee queued (so a batch wakee never gets that far).
    fn wakeup_preempts(&mut self, cpu: usize, wakee: usize, now: u64) -> bool {
        if std::mem::take(&mut self.resched[cpu]) {
            return true;
        }
        let Some(curr) = self.rqs[cpu].curr else {
            return false;
        };
        // An idle-policy task is preempted by any other at once, never by an idle one;
        // batch and idle wakees do not preempt.
        let idle = |t: usize| self.tasks[t].policy == FairPolicy::Idle;
        if idle(curr) != idle(wakee) {
            return idle(curr);
        }
        if self.tasks[wakee].policy != FairPolicy::Normal {
            return false;
        }
        self.update_curr(cpu, now);
        if std::mem::take(&mut self.resched[cpu]) {
            return true;
        }
        if self.p.preempt_short && self.tasks[wakee].slice < self.tasks[curr].slice {
            self.tasks[curr].picked_deadline = None;
        }
        self.pick_eevdf(cpu) == Some(wakee)
    }

    fn remove(&mut self, cpu: usize, task: usize) {
        self.rqs[cpu].remove(task);
    }
}

impl SchedulerModel for Eevdf {
    fn info(&self) -> ModelInfo {
        let p = &self.p;
        ModelInfo {
            name: ModelName::Eevdf,
            follows: "EEVDF of Linux 6.12",
            version: 4,
            release: "6.12.0-predicted-eevdf",
            parameters: vec![
                ("sched_base_slice_ns", p.base_slice_ns as i64),
                ("TICK_NSEC", p.tick_ns as i64),
                ("PLACE_LAG", i64::from(p.place_lag)),
                (
                    "PLACE_DEADLINE_INITIAL",
                    i64::from(p.place_deadline_initial),
                ),
                ("RUN_TO_PARITY", i64::from(p.run_to_parity)),
                ("PREEMPT_SHORT", i64::from(p.preempt_short)),
                ("DELAY_DEQUEUE", i64::from(p.delay_dequeue)),
                ("DELAY_ZERO", i64::from(p.delay_zero)),
                ("HRTICK", 0),
            ],
        }
    }

    fn add_task(&mut self, task: usize, nice: i32, _parent: Option<usize>) {
        let e = slot(&mut self.tasks, task);
        e.nice = nice;
        e.weight = weight_of_nice(nice);
        e.slice = self.p.base_slice_ns;
    }

    fn set_policy(&mut self, task: usize, policy: FairPolicy) {
        let e = &mut self.tasks[task];
        e.policy = policy;
        if policy == FairPolicy::Idle {
            e.weight = WEIGHT_IDLEPRIO;
        }
    }

    fn enqueue(&mut self, cpu: usize, task: usize, now: u64, how: Enqueue) {
        let now = self.rqs[cpu].event_clock(now);
        if self.tasks[task].delayed_on.take().is_some() {
            // `requeue_delayed_entity`: still queued where it was; with DELAY_ZERO one
            // that is owed time by now is re-placed at zero lag (V): what it was owed
            // while it slept is dropped, as on the pick that completes a delayed dequeue.
            // 6.12's `enqueue_task_fair` gets here before any `update_curr`, so the lag
            // and V are measured with the running task's vruntime as of its last update:
            // the time it ran since is charged only at the wakeup check, after the wakee
            // is placed, which leaves the wakee behind it.
            self.update_lag(cpu, task);
            if self.p.delay_zero && self.tasks[task].vlag > 0 {
                self.tasks[task].vlag = 0;
                self.remove(cpu, task);
                self.place(cpu, task, false);
                self.rqs[cpu].queue.push(task);
            }
            return;
        }
        self.update_curr(cpu, now);
        self.place(cpu, task, how == Enqueue::New);
        self.seq += 1;
        let e = &mut self.tasks[task];
        e.seq = self.seq;
        e.exec_start = now;
        self.rqs[cpu].queue.push(task);
        self.update_min_vruntime(cpu);
    }

    fn dequeue(&mut self, cpu: usize, task: usize, now: u64, how: Dequeue) {
        // The running task blocking or exiting leaves in `__schedule`; a migration is
        // the balancer's, which updates the clock.
        let now = if self.rqs[cpu].curr == Some(task) && how != Dequeue::Migrate {
            self.rqs[cpu].schedule_clock(now)
        } else {
            self.rqs[cpu].event_clock(now)
        };
        self.update_curr(cpu, now);
        if how == Dequeue::Sleep && self.p.delay_dequeue && !self.eligible(cpu, task) {
            // Not eligible: stays queued, delayed, until picked or woken.
            self.remove(cpu, task);
            self.tasks[task].delayed_on = Some(cpu);
            self.rqs[cpu].queue.push(task);
            return;
        }
        self.update_lag(cpu, task);
        self.remove(cpu, task);
        self.tasks[task].delayed_on = None;
        self.update_min_vruntime(cpu);
    }

    fn put_prev(&mut self, cpu: usize, task: usize, now: u64) {
        let now = self.rqs[cpu].schedule_clock(now);
        self.update_curr(cpu, now);
        // Behind the tasks with an equal deadline: the kernel picks while the running task
        // is still current, and keeps it on a tie only if its deadline is strictly earlier.
        self.seq += 1;
        self.tasks[task].seq = self.seq;
        self.rqs[cpu].put_prev(task);
        self.put_back[cpu] = Some(task);
    }

    fn pick_next(&mut self, cpu: usize, now: u64) -> Option<usize> {
        let now = self.rqs[cpu].schedule_clock(now);
        self.rqs[cpu].skip_clock = false;
        self.resched[cpu] = false;
        let prev = self.put_back[cpu].take();
        loop {
            let next = self.pick_eevdf(cpu)?;
            self.remove(cpu, next);
            if self.tasks[next].delayed_on.take().is_some() {
                // Picked while delayed: the dequeue completes now (`dequeue_entities`
                // with DEQUEUE_DELAYED), DELAY_ZERO dropping a positive lag.
                self.rqs[cpu].queue.push(next);
                self.update_lag(cpu, next);
                self.remove(cpu, next);
                if self.p.delay_zero && self.tasks[next].vlag > 0 {
                    self.tasks[next].vlag = 0;
                }
                self.update_min_vruntime(cpu);
                continue;
            }
            self.rqs[cpu].curr = Some(next);
            let e = &mut self.tasks[next];
            e.exec_start = now;
            if prev != Some(next) {
                // `set_next_entity`: RUN_TO_PARITY protects the deadline it is picked with.
                e.picked_deadline = Some(e.deadline);
            }
            return Some(next);
        }
    }

    fn tick(&mut self, cpu: usize, now: u64) -> bool {
        let now = self.rqs[cpu].event_clock(now);
        self.update_curr(cpu, now);
        std::mem::take(&mut self.resched[cpu])
    }

    fn check_preempt_wakeup(&mut self, cpu: usize, wakee: usize, now: u64) -> bool {
        let now = self.rqs[cpu].event_clock(now);
        let preempt = self.wakeup_preempts(cpu, wakee, now);
        if preempt {
            self.rqs[cpu].skip_clock = true;
        }
        preempt
    }

    fn queued(&self, cpu: usize) -> Vec<usize> {
        let t = &self.tasks;
        self.rqs[cpu]
            .queue
            .iter()
            .copied()
            .filter(|&q| t[q].delayed_on.is_none())
            .collect()
    }

    fn still_queued_on(&self, task: usize) -> Option<usize> {
        self.tasks.get(task).and_then(|e| e.delayed_on)
    }

    fn prio(&self, task: usize) -> i32 {
        120 + self.tasks[task].nice
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const US: u64 = 1_000;
    const WAKE: Enqueue = Enqueue::Wakeup { slept_ns: 0 };

    /// One CPU at HZ 100 (slice 0.7 ms, lag clamp max(2 slices, 10 ms) = 10 ms), nice-0
    /// S (task 0) and W (task 1), and X (task 2) if asked. S runs from 0; at 9 ms W wakes
    /// with no lag at V = vS = 9 (deadline 9.7; S's renewed to 9.7 too) and wins the tie;
    /// at 9.5 W blocks at vW = 9.5 past V = 9.25: not eligible, its dequeue is delayed, S
    /// runs again with vS = 9 (its vruntime as of its last update, at 9).
    fn w_delayed_at_9_5_ms(with_x: bool) -> Eevdf {
        let mut m = Eevdf::new(1, EevdfParams::linux_6_12(1, 100));
        for t in 0..2 + usize::from(with_x) {
            m.add_task(t, 0, None);
        }
        m.enqueue(0, 0, 0, WAKE);
        assert_eq!(m.pick_next(0, 0), Some(0));
        m.enqueue(0, 1, 9 * MS, WAKE);
        assert!(m.check_preempt_wakeup(0, 1, 9 * MS));
        m.put_prev(0, 0, 9 * MS);
        assert_eq!(m.pick_next(0, 9 * MS), Some(1));
        m.dequeue(0, 1, 9500 * US, Dequeue::Sleep);
        assert_eq!(m.still_queued_on(1), Some(0));
        assert_eq!(m.pick_next(0, 9500 * US), Some(0));
        m
    }

    #[test]
    fn a_delayed_task_is_requeued_against_the_running_task_s_last_update() {
        // t=12: 6.12's enqueue_task_fair requeues a delayed task before any update_curr:
        // S's vruntime is still 9 (it ran 9.5-12 unaccounted), V = (9 + 9.5) / 2 = 9.25,
        // so W's lag is −0.25 ms: not owed anything, it stays at 9.5, deadline 9.7. The
        // wakeup check then accounts S: vS = 11.5 past its deadline (renewed to 12.2),
        // V = 10.5, S not eligible and W is: W preempts. Accounting S first would have
        // given W a lag of 1 ms and placed it level with S at 11.5, deadline 12.2.
        let mut m = w_delayed_at_9_5_ms(false);
        m.enqueue(0, 1, 12 * MS, WAKE);
        assert_eq!(m.still_queued_on(1), None);
        assert_eq!(m.tasks[1].vlag, -250 * US as i64);
        assert_eq!(m.tasks[1].vruntime, 9500 * US as i64);
        assert_eq!(m.tasks[1].deadline, 9700 * US as i64);
        assert!(m.check_preempt_wakeup(0, 1, 12 * MS));
        assert_eq!(m.tasks[0].vruntime, 11500 * US as i64);
        m.put_prev(0, 0, 12 * MS);
        assert_eq!(m.pick_next(0, 12 * MS), Some(1));
    }

    #[test]
    fn a_delayed_task_owed_time_is_placed_at_zero_lag() {
        // t=10.1: X wakes; S is accounted, vS = 9.6 (short of its 9.7 deadline); X, no
        // lag, at V = (9.6 + 9.5) / 2 = 9.55, deadline 10.25. S is not eligible against
        // V = (9.6 + 9.5 + 9.55) / 3 = 9.55; W (9.5, deadline 9.7) and X (9.55) are, and
        // W's deadline is the earliest: X does not preempt.
        let mut m = w_delayed_at_9_5_ms(true);
        m.enqueue(0, 2, 10100 * US, WAKE);
        assert_eq!(m.tasks[2].vruntime, 9550 * US as i64);
        assert!(!m.check_preempt_wakeup(0, 2, 10100 * US));
        // t=12: W requeued against S's 9.6 of 10.1: V = 9.55, W's lag 0.05 > 0. DELAY_ZERO
        // drops it: W at V of the others, (9.6 + 9.55) / 2 = 9.575, deadline 10.275.
        // Keeping the lag put W at 9.575 − 0.05 × 3 / 2 = 9.5.
        m.enqueue(0, 1, 12 * MS, WAKE);
        assert_eq!(m.still_queued_on(1), None);
        assert_eq!(m.tasks[1].vlag, 0);
        assert_eq!(m.tasks[1].vruntime, 9575 * US as i64);
        assert_eq!(m.tasks[1].deadline, 10275 * US as i64);
    }

    #[test]
    fn a_preempting_wakeup_charges_the_time_to_the_switch_to_the_wakee() {
        // One CPU at HZ 100, slice 0.7 ms. S runs from 0. t=1: W wakes; S is accounted
        // (vS = 1, deadline renewed to 1.7, unprotected), W placed at V = 1, deadline 1.7:
        // the tie goes to W, a reschedule. The switch comes 30 µs later, at 1.03, but the
        // `__schedule` skips its clock update: S is put back with vS = 1 and W starts at
        // the wakeup's clock, 1. W blocks at 1.1, charged 0.1 ms: vW = 1.1 (without the
        // skip, vS = 1.03 and vW = 1.07).
        let mut m = Eevdf::new(1, EevdfParams::linux_6_12(1, 100));
        m.add_task(0, 0, None);
        m.add_task(1, 0, None);
        m.enqueue(0, 0, 0, WAKE);
        assert_eq!(m.pick_next(0, 0), Some(0));
        m.enqueue(0, 1, MS, WAKE);
        assert!(m.check_preempt_wakeup(0, 1, MS));
        m.put_prev(0, 0, 1030 * US);
        assert_eq!(m.pick_next(0, 1030 * US), Some(1));
        assert_eq!(m.tasks[0].vruntime, MS as i64);
        m.dequeue(0, 1, 1100 * US, Dequeue::Sleep);
        assert_eq!(m.tasks[1].vruntime, 1100 * US as i64);
        // The next `__schedule` updates its clock again: S starts at 1.1.
        assert_eq!(m.pick_next(0, 1100 * US), Some(0));
        assert_eq!(m.tasks[0].exec_start, 1100 * US);
    }

    #[test]
    fn a_task_picked_again_is_not_protected_and_short_preempts_it_once_ahead() {
        // t=10.2 (a tick): vS = 9.7 reaches its deadline (renewed to 10.4): resched. The
        // pick finds S not eligible (V = (9.7 + 9.5) / 2 = 9.6) and W, delayed, eligible:
        // W's dequeue completes (lag 0.1 dropped, DELAY_ZERO) and S is picked again. As
        // the kernel's `put_prev_set_next_task` returns early for the same task, S keeps
        // the deadline it was protected with (9.7), not its new one: unprotected.
        let mut m = w_delayed_at_9_5_ms(true);
        assert!(m.tick(0, 10200 * US));
        m.put_prev(0, 0, 10200 * US);
        assert_eq!(m.pick_next(0, 10200 * US), Some(0));
        assert_eq!(m.still_queued_on(1), None);
        assert_eq!(m.tasks[0].deadline, 10400 * US as i64);
        assert_eq!(m.tasks[0].picked_deadline, Some(9700 * US as i64));
        // t=10.3: W wakes with no lag at V = vS = 9.8, deadline 10.5. S is eligible (level
        // with V) and its deadline 10.4 the earlier: W does not preempt.
        m.enqueue(0, 1, 10300 * US, WAKE);
        assert_eq!(m.tasks[1].vruntime, 9800 * US as i64);
        assert!(!m.check_preempt_wakeup(0, 1, 10300 * US));
        // t=10.35: X wakes. The enqueue's update_curr gives vS = 9.85 past V = 9.825: S,
        // unprotected and not eligible, is rescheduled (`did_preempt_short`), and the wakeup
        // check finds the reschedule pending. Protected again at 10.2 it would have kept
        // the CPU: the pick would be W (9.8, deadline 10.5), not X (9.825, 10.525).
        m.enqueue(0, 2, 10350 * US, WAKE);
        assert_eq!(m.tasks[2].vruntime, 9825 * US as i64);
        assert!(m.check_preempt_wakeup(0, 2, 10350 * US));
        m.put_prev(0, 0, 10350 * US);
        assert_eq!(m.pick_next(0, 10350 * US), Some(1));
    }
}
