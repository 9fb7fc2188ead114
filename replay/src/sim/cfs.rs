//! CFS as of Linux 6.1 (`kernel/sched/fair.c`): virtual runtime, a slice out of the
//! latency period by weight, tick preemption, wakeup preemption by granularity, sleeper
//! credit and the new-task debit. One runqueue per CPU, no group scheduling.
//!
//! The next buddy: a wakee that preempts becomes its runqueue's `next` whatever the
//! NEXT_BUDDY flag says (`check_preempt_wakeup` sets it on the preemption path), and the
//! pick takes it over the leftmost while it is not more than a wakeup granularity ahead
//! (`pick_next_entity`), so the wakee is what runs, not a task that waited longer.
//!
//! The core's clock rule: after a wakeup that asks for a reschedule, the switch reads the
//! clock of that wakeup (`rq_clock_skip_update` in `check_preempt_curr`), so the wakee is
//! charged the time from its wakeup on, not the waker that ran it (`fair_rq.rs`).
//!
//! SCHED_BATCH and SCHED_IDLE (`check_preempt_wakeup`, `set_load_weight`): an idle-policy
//! task weighs `WEIGHT_IDLEPRIO` (3) whatever its nice; a waking task that is not
//! idle-policy preempts an idle-policy running task at once (no granularity test, no
//! buddy); a waking batch or idle task never preempts.
//!
//! Simplified: NEXT_BUDDY's own marking (off in 6.1) and LAST_BUDDY (acts only from
//! `sched_nr_latency` tasks up) are not modelled, nor is a wakeup that finds a resched
//! already pending (the kernel then leaves the buddy alone); `calc_delta_fair` divides
//! exactly where the kernel uses a fixed-point inverse, a forked task starts from the
//! debit alone (not its parent's vruntime), and no load tracking (PELT): load is the sum
//! of the queued weights.

use super::fair_rq::FairRq;
use super::model::{
    slot, sysctl_factor, to_virtual, weight_of_nice, Dequeue, Enqueue, FairPolicy, ModelInfo,
    ModelName, SchedulerModel, WEIGHT_IDLEPRIO,
};

/// The tunables of 6.1 before scaling by the CPU count (`sysctl_sched_*`), and its feature
/// flags (`kernel/sched/features.h`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CfsParams {
    pub(crate) latency_ns: u64,
    pub(crate) min_granularity_ns: u64,
    pub(crate) wakeup_granularity_ns: u64,
    pub(crate) nr_latency: u64,
    pub(crate) gentle_fair_sleepers: bool,
    pub(crate) start_debit: bool,
    pub(crate) wakeup_preemption: bool,
}

impl CfsParams {
    /// 6.1's defaults, scaled for `cpus` online CPUs.
    pub(crate) fn linux_6_1(cpus: usize) -> CfsParams {
        let f = sysctl_factor(cpus);
        CfsParams {
            latency_ns: 6_000_000 * f,
            min_granularity_ns: 750_000 * f,
            wakeup_granularity_ns: 1_000_000 * f,
            nr_latency: 8,
            gentle_fair_sleepers: true,
            start_debit: true,
            wakeup_preemption: true,
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Entity {
    nice: i32,
    policy: FairPolicy,
    weight: u64,
    vruntime: i64,
    /// The CPU whose `min_vruntime` the vruntime is measured against.
    rq: usize,
    sum_exec: u64,
    /// `sum_exec` when last picked (the slice is measured from it).
    prev_sum_exec: u64,
    exec_start: u64,
    /// Enqueue order: equal vruntimes run first-in first-out, as the kernel's rbtree does.
    seq: u64,
}

pub(crate) struct Cfs {
    p: CfsParams,
    tasks: Vec<Entity>,
    rqs: Vec<FairRq>,
    /// Per CPU: the weight of the queued tasks and the running one.
    load: Vec<u64>,
    /// Per CPU: the next buddy (`cfs_rq->next`), cleared when it is picked or leaves.
    next: Vec<Option<usize>>,
    seq: u64,
}

impl Cfs {
    pub(crate) fn new(cpus: usize, p: CfsParams) -> Cfs {
        Cfs {
            p,
            tasks: Vec::new(),
            rqs: vec![FairRq::default(); cpus.max(1)],
            load: vec![0; cpus.max(1)],
            next: vec![None; cpus.max(1)],
            seq: 0,
        }
    }

    fn leftmost(&self, cpu: usize) -> Option<usize> {
        let t = &self.tasks;
        self.rqs[cpu]
            .queue
            .iter()
            .copied()
            .min_by_key(|&i| (t[i].vruntime, t[i].seq))
    }

    /// `wakeup_preempt_entity(curr, se) == 1`: `curr` leads `se` by more than the wakeup
    /// granularity in `se`'s virtual time.
    fn leads_by_more_than_gran(&self, curr: usize, se: usize) -> bool {
        let vdiff = self.tasks[curr].vruntime - self.tasks[se].vruntime;
        let gran = to_virtual(self.p.wakeup_granularity_ns, self.tasks[se].weight);
        vdiff > 0 && vdiff as u64 > gran
    }

    fn update_curr(&mut self, cpu: usize, now: u64) {
        if let Some(c) = self.rqs[cpu].curr {
            let e = &mut self.tasks[c];
            let delta = now.saturating_sub(e.exec_start);
            e.exec_start = now;
            e.sum_exec += delta;
            e.vruntime += to_virtual(delta, e.weight) as i64;
        }
        self.update_min_vruntime(cpu);
    }

    fn update_min_vruntime(&mut self, cpu: usize) {
        self.rqs[cpu].update_min_vruntime(|t| self.tasks[t].vruntime);
    }

    /// `sched_slice`: the period (latency, or `nr × min_granularity` past `nr_latency`
    /// tasks) shared by weight; `queued` says whether `task` is already counted.
    fn sched_slice(&self, cpu: usize, task: usize, queued: bool) -> u64 {
        let w = self.tasks[task].weight;
        let nr = self.rqs[cpu].nr_running() + u64::from(!queued);
        let load = self.load[cpu] + if queued { 0 } else { w };
        let period = if nr > self.p.nr_latency {
            nr * self.p.min_granularity_ns
        } else {
            self.p.latency_ns
        };
        ((u128::from(period) * u128::from(w)) / u128::from(load.max(1))) as u64
    }

    /// Moves a task's vruntime to `cpu`'s frame (a migration keeps its distance to
    /// `min_vruntime`).
    fn renormalize(&mut self, task: usize, cpu: usize) {
        let from = self.tasks[task].rq;
        if from != cpu {
            let shift = self.rqs[cpu].min_vruntime - self.rqs[from].min_vruntime;
            self.tasks[task].vruntime += shift;
            self.tasks[task].rq = cpu;
        }
    }

    /// `check_preempt_tick`: past its slice, or ahead of the leftmost by more than a slice
    /// after at least `min_granularity`.
    /// `check_preempt_wakeup`: the policy rules, then the wakeup granularity.
    fn wakeup_preempts(&mut self, cpu: usize, wakee: usize, now: u64) -> bool {
        let Some(curr) = self.rqs[cpu].curr else {
            return false;
        };
        // Idle-policy tasks are preempted by any other at once; batch and idle wakees
        // never preempt ("their preemption is driven by the tick").
        let (curr_policy, wakee_policy) = (self.tasks[curr].policy, self.tasks[wakee].policy);
        if curr_policy == FairPolicy::Idle && wakee_policy != FairPolicy::Idle {
            return true;
        }
        if wakee_policy != FairPolicy::Normal || !self.p.wakeup_preemption {
            return false;
        }
        self.update_curr(cpu, now);
        // `wakeup_preempt_entity`: the running task is ahead by more than the wakeup
        // granularity in the wakee's virtual time; the wakee then becomes the next buddy.
        let preempts = self.leads_by_more_than_gran(curr, wakee);
        if preempts {
            self.next[cpu] = Some(wakee);
        }
        preempts
    }

    fn check_preempt_tick(&self, cpu: usize, curr: usize) -> bool {
        let e = &self.tasks[curr];
        let ideal = self.sched_slice(cpu, curr, true);
        let ran = e.sum_exec - e.prev_sum_exec;
        if ran > ideal {
            return true;
        }
        if ran < self.p.min_granularity_ns {
            return false;
        }
        let Some(left) = self.leftmost(cpu) else {
            return false;
        };
        let delta = e.vruntime - self.tasks[left].vruntime;
        delta > 0 && delta as u64 > ideal
    }
}

impl SchedulerModel for Cfs {
    fn info(&self) -> ModelInfo {
        let p = &self.p;
        ModelInfo {
            name: ModelName::Cfs,
            follows: "CFS of Linux 6.1",
            version: 4,
            release: "6.1.0-predicted-cfs",
            parameters: vec![
                ("sched_latency_ns", p.latency_ns as i64),
                ("sched_min_granularity_ns", p.min_granularity_ns as i64),
                (
                    "sched_wakeup_granularity_ns",
                    p.wakeup_granularity_ns as i64,
                ),
                ("sched_nr_latency", p.nr_latency as i64),
                ("GENTLE_FAIR_SLEEPERS", i64::from(p.gentle_fair_sleepers)),
                ("START_DEBIT", i64::from(p.start_debit)),
                ("WAKEUP_PREEMPTION", i64::from(p.wakeup_preemption)),
                ("NEXT_BUDDY", 0),
                ("HRTICK", 0),
            ],
        }
    }

    fn add_task(&mut self, task: usize, nice: i32, _parent: Option<usize>) {
        let e = slot(&mut self.tasks, task);
        e.nice = nice;
        e.weight = weight_of_nice(nice);
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
        self.update_curr(cpu, now);
        self.renormalize(task, cpu);
        let min = self.rqs[cpu].min_vruntime;
        match how {
            Enqueue::New => {
                // START_DEBIT: a new task owes one virtual slice (`place_entity(initial)`).
                let debit = if self.p.start_debit {
                    to_virtual(self.sched_slice(cpu, task, false), self.tasks[task].weight)
                } else {
                    0
                };
                self.tasks[task].vruntime = min + debit as i64;
            }
            Enqueue::Wakeup { .. } => {
                // Sleeper credit: at most half a latency period (GENTLE_FAIR_SLEEPERS)
                // behind `min_vruntime`, never ahead of where it left off.
                let credit = if self.p.gentle_fair_sleepers {
                    self.p.latency_ns / 2
                } else {
                    self.p.latency_ns
                };
                let e = &mut self.tasks[task];
                e.vruntime = e.vruntime.max(min - credit as i64);
            }
            Enqueue::Migrated => {}
        }
        self.seq += 1;
        let e = &mut self.tasks[task];
        e.seq = self.seq;
        e.exec_start = now;
        self.load[cpu] += e.weight;
        self.rqs[cpu].queue.push(task);
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
        self.rqs[cpu].remove(task);
        if self.next[cpu] == Some(task) {
            self.next[cpu] = None;
        }
        self.load[cpu] -= self.tasks[task].weight;
        self.tasks[task].rq = cpu;
        self.update_min_vruntime(cpu);
    }

    fn put_prev(&mut self, cpu: usize, task: usize, now: u64) {
        let now = self.rqs[cpu].schedule_clock(now);
        self.update_curr(cpu, now);
        self.seq += 1;
        self.tasks[task].seq = self.seq;
        self.rqs[cpu].put_prev(task);
    }

    fn pick_next(&mut self, cpu: usize, now: u64) -> Option<usize> {
        let now = self.rqs[cpu].schedule_clock(now);
        self.rqs[cpu].skip_clock = false;
        let left = self.leftmost(cpu)?;
        // `pick_next_entity`: the next buddy unless it leads the leftmost by more than the
        // wakeup granularity; picking it clears it (`clear_buddies`).
        let next = match self.next[cpu] {
            Some(b) if !self.leads_by_more_than_gran(b, left) => b,
            _ => left,
        };
        if self.next[cpu] == Some(next) {
            self.next[cpu] = None;
        }
        self.rqs[cpu].set_next(next);
        let e = &mut self.tasks[next];
        e.exec_start = now;
        e.prev_sum_exec = e.sum_exec;
        Some(next)
    }

    fn tick(&mut self, cpu: usize, now: u64) -> bool {
        let now = self.rqs[cpu].event_clock(now);
        self.update_curr(cpu, now);
        match self.rqs[cpu].curr {
            Some(curr) if self.rqs[cpu].nr_running() > 1 => self.check_preempt_tick(cpu, curr),
            _ => false,
        }
    }

    fn check_preempt_wakeup(&mut self, cpu: usize, wakee: usize, now: u64) -> bool {
        let now = self.rqs[cpu].event_clock(now);
        let preempt = self.wakeup_preempts(cpu, wakee, now);
        // `check_preempt_curr`: the reschedule it asked for skips the switch's clock update.
        self.rqs[cpu].skip_clock |= preempt;
        preempt
    }

    fn queued(&self, cpu: usize) -> Vec<usize> {
        self.rqs[cpu].queue.clone()
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

    #[test]
    fn a_preempting_wakeup_charges_the_time_to_the_switch_to_the_wakee() {
        // One CPU: wakeup granularity 1 ms, sleeper credit 3 ms. S runs from 0. t=10: W
        // wakes, placed at max(0, min_vruntime 10 − 3) = 7, 3 ms behind S: more than the
        // granularity, it preempts. The switch comes 50 µs later, at 10.05, but skips its
        // clock update: S is put back with vS = 10 and W starts at the wakeup's clock, 10.
        // W blocks at 10.1, charged 0.1 ms: vW = 7.1 (without the skip, vS = 10.05 and
        // vW = 7.05).
        let mut m = Cfs::new(1, CfsParams::linux_6_1(1));
        m.add_task(0, 0, None);
        m.add_task(1, 0, None);
        let wake = Enqueue::Wakeup { slept_ns: 0 };
        m.enqueue(0, 0, 0, wake);
        assert_eq!(m.pick_next(0, 0), Some(0));
        m.enqueue(0, 1, 10 * MS, Enqueue::Wakeup { slept_ns: 10 * MS });
        assert_eq!(m.tasks[1].vruntime, 7 * MS as i64);
        assert!(m.check_preempt_wakeup(0, 1, 10 * MS));
        m.put_prev(0, 0, 10050 * US);
        assert_eq!(m.pick_next(0, 10050 * US), Some(1));
        assert_eq!(m.tasks[0].vruntime, 10 * MS as i64);
        m.dequeue(0, 1, 10100 * US, Dequeue::Sleep);
        assert_eq!(m.tasks[1].vruntime, 7100 * US as i64);
        // The next `__schedule` updates its clock again: S starts at 10.1.
        assert_eq!(m.pick_next(0, 10100 * US), Some(0));
        assert_eq!(m.tasks[0].exec_start, 10100 * US);
    }
}
