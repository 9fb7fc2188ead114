//! Keeps the §4–7 accumulators (runqueue depth, work conservation, fairness, wakeup
//! preemption) in step with the task and CPU state changes the analyzer makes. The engine
//! calls these after every change; each is O(1) and delegates to the concern's module.
//! The timeline store's per-task log and per-event size check are kept here too.

use super::analyzer::{Analyzer, MAX_CPUS};
use crate::affinity::{Affinity, CpuSet};
use crate::cpu::Occupant;
use crate::interval::SwitchReason;
use crate::interval::TaskLog;
use crate::metrics::fairness::{Presence, PrioScale};
use crate::metrics::preemption;
use crate::metrics::records::{PreemptionRecord, WaitKind, WaitRecord};
use crate::metrics::wait_causes::WaitEnd;
use crate::timeline::{State, Task, Wait, RULE_NONE, RULE_UNDECIDED};
use crate::timeline_store::CHECK_EVERY;
use crate::FairSet;
use ingest::Comm;

impl Analyzer {
    /// The weight task `slot` competes with (0 = left out: RT, unknown prio, not in
    /// `--fair-set`).
    fn fair_weight(&mut self, slot: usize) -> u32 {
        let t = &mut self.tasks[slot];
        let scale = self.fairness.scale;
        // A recorded nice where the events' prio is ambiguous (docs/metrics.md §7).
        let recorded = match &self.recorded_nice {
            Some(n) if scale.prio_ambiguous() => n.at(t.pid, self.now),
            _ => None,
        };
        let weight = match recorded {
            Some(nice) => nice.map(PrioScale::weight_of_nice),
            None => scale.weight(t.prio),
        };
        let Some(w) = weight else {
            return 0;
        };
        if let Some(set) = &self.config.fair_set {
            if t.fair_member == 0 {
                let member = match set {
                    FairSet::Pids(pids) => pids.contains(&t.pid),
                    FairSet::Names(re) => re.is_match(&t.comm.to_string_lossy()),
                };
                t.fair_member = if member { 1 } else { 2 };
            }
            if t.fair_member != 1 {
                return 0;
            }
        }
        w
    }

    /// Applies task `slot`'s current state to the runqueue and fairness accounting.
    pub(crate) fn observe(&mut self, slot: usize) {
        let now = self.now;
        let mut new = self.tasks[slot].presence();
        if new.cpu >= MAX_CPUS as i32 {
            new = Presence::NONE;
        }
        let weight = self.fair_weight(slot);
        let t = &mut self.tasks[slot];
        let old = t.presence;
        if old == new && weight == t.fair_weight {
            return;
        }
        if old != new {
            let queued = (new.cpu >= 0 && !new.running).then_some(new.cpu as u32);
            self.waits.follow(slot, queued, now);
            let affinity = self.affinity.as_ref();
            let set_of = |id: u32| affinity.filter(|_| id != RULE_NONE).map(|a| a.set(id));
            if old.cpu >= 0 && !old.running {
                let set = set_of(t.wait_set);
                self.runqueues
                    .wait(old.cpu as u32, -1, now, &self.scope, set);
            }
            if new.cpu >= 0 && !new.running {
                t.wait_set = affinity.map_or(RULE_NONE, |a| allowed_id(a, t, now));
                let set = set_of(t.wait_set);
                self.runqueues
                    .wait(new.cpu as u32, 1, now, &self.scope, set);
            }
        }
        self.fairness
            .change(slot as u32, &mut t.fair, new, weight, now, &self.scope);
        t.presence = new;
        t.fair_weight = weight;
    }

    /// CPU `cpu`'s occupant was just set (switch, lost events): the tasks queued there
    /// close their piece behind the previous one, at the time the new one began.
    pub(crate) fn cpu_changed(&mut self, cpu: u32) {
        let c = &self.cpus[cpu as usize];
        self.waits.occupant_changed(cpu, c.occupant, c.since);
    }

    /// Task `slot` just became runnable at `now`: its wait's pieces start.
    pub(crate) fn wait_began(&mut self, slot: usize, now: u64) {
        let t = &self.tasks[slot];
        let State::Runnable { rq_cpu, wait } = t.state else {
            return;
        };
        // A wait started by `sched_waking` (or by a switch-out that a waking raced) has an
        // enqueue piece up to its `sched_wakeup`, if the trace has one.
        let awaiting = wait == Wait::Wakeup && self.waking_seen;
        let queued = (rq_cpu >= 0 && (rq_cpu as u32) < MAX_CPUS).then_some(rq_cpu as u32);
        self.waits.open(slot, t.pid, now, awaiting, queued);
    }

    /// Task `slot` was switched in on `cpu` at `now` after `prev_pid` (switched out for
    /// `prev_reason`): its wait's pieces are added up when the switch-in took a sched delay
    /// sample (`sampled`, from `Task::switch_in`), else dropped. Its wait has not been
    /// observed leaving the runqueue yet, so it is still settled up to `now` here.
    pub(crate) fn wait_ended(
        &mut self,
        slot: usize,
        now: u64,
        cpu: u32,
        sampled: bool,
        prev_pid: i32,
        prev_reason: Option<SwitchReason>,
    ) {
        if !sampled {
            self.waits.discard(slot);
            return;
        }
        let end = match (prev_pid, prev_reason) {
            (0, _) => WaitEnd::Idle,
            (_, Some(SwitchReason::Block)) => WaitEnd::OccupantBlocked,
            (_, Some(SwitchReason::WakeupPreempt)) => WaitEnd::WakeupPreemption,
            (_, Some(SwitchReason::Preempt)) => WaitEnd::OccupantPreempted,
            (_, Some(SwitchReason::Exit)) => WaitEnd::OccupantExited,
            (_, None) => WaitEnd::Unknown,
        };
        self.waits.end(slot, cpu, now, end);
    }

    /// Applies CPU `cpu`'s occupant (idle or not) to the work-conservation accounting.
    pub(crate) fn observe_cpu(&mut self, cpu: u32) {
        let idle = self.cpus[cpu as usize].occupant == Occupant::Idle;
        self.runqueues.set_idle(cpu, idle, self.now, &self.scope);
    }

    /// Whether switching `prev_slot` out for `next_slot` on `cpu` is a wakeup preemption.
    pub(crate) fn is_wakeup_preemption(
        &self,
        cpu: u32,
        prev_slot: usize,
        next_slot: usize,
    ) -> bool {
        preemption::is_wakeup_preemption(
            cpu,
            self.tasks[prev_slot].running_since(cpu),
            self.tasks[next_slot].wakeup_enqueue(),
        )
    }

    /// Counts a wakeup preemption for the wakee, the victim, the CPU and the triple.
    pub(crate) fn count_wakeup_preemption(&mut self, cpu: u32, victim: usize, wakee: usize) {
        self.tasks[wakee].preempt_caused += 1;
        self.tasks[victim].preempt_suffered += 1;
        self.cpus[cpu as usize].wakeup_preemptions += 1;
        self.count_in_series(crate::series::Count::WakeupPreemption, self.now, cpu);
        let waker_comm = match self.tasks[wakee].waker {
            0 => Some(Comm::from("<idle>")),
            p if p > 0 => self.find(p).map(|s| self.tasks[s].comm),
            _ => None,
        };
        if let Some(w) = waker_comm {
            self.triples
                .add(w, self.tasks[wakee].comm, self.tasks[victim].comm, self.now);
        }
        if let Some(records) = &mut self.records {
            let waker = self.tasks[wakee].waker;
            records.preemption(PreemptionRecord {
                ts_ns: self.now,
                cpu,
                waker_pid: (waker >= 0).then_some(waker),
                wakee_pid: self.tasks[wakee].pid,
                victim_pid: self.tasks[victim].pid,
            });
        }
    }

    /// Task `slot` is about to be switched in on `cpu` at `now`: records the wait it ends,
    /// under the rule `Task::switch_in` takes its sample by (a runnable task, counted).
    pub(crate) fn record_wait(&mut self, slot: usize, now: u64, cpu: u32) {
        let t = &self.tasks[slot];
        let State::Runnable { wait, .. } = t.state else {
            return;
        };
        if !self.scope.counts(now, cpu) {
            return;
        }
        let kind = match wait {
            Wait::Wakeup => WaitKind::Wakeup,
            Wait::Untimed => WaitKind::WakeupUntimed,
            Wait::Preempt => WaitKind::Preemption,
        };
        let woken = kind != WaitKind::Preemption;
        let record = WaitRecord {
            pid: t.pid,
            start_ns: t.since,
            end_ns: now,
            cpu,
            kind,
            waker_pid: (woken && t.waker >= 0).then_some(t.waker),
            waker_cpu: woken.then_some(t.waker_cpu),
            prev_cpu: t.last_run_cpu.filter(|_| woken),
            // Classified at the end, with the final topology.
            placement: None,
            waker_placement: None,
        };
        if let Some(records) = &mut self.records {
            records.wait(record);
        }
    }

    /// After a wakeup event set task `slot`'s runqueue CPU: notes whether that CPU was busy.
    pub(crate) fn note_target(&mut self, slot: usize) {
        let cpus = &self.cpus;
        let t = &self.tasks[slot];
        let busy = preemption::target_busy(t.wakeup_enqueue(), t.pid, self.now, |c| {
            cpus.get(c).map(|c| c.occupant)
        });
        if let Some(busy) = busy {
            self.tasks[slot].target_busy = busy;
            // Which CPUs it may use: its allowed CPUs where known (recorded, --affinity),
            // else the CPUs it has run on (docs/metrics.md §3a says what this misses).
            let now = self.now;
            let t = &mut self.tasks[slot];
            let target = t.wakeup_enqueue().map_or(-1, |e| e.cpu);
            let known = self.affinity.as_ref().and_then(|a| {
                let id = known_id(a, t, now)?;
                Some(a.set(id))
            });
            let ran = &t.affinity;
            let idle_allowed = self
                .cpus
                .iter()
                .enumerate()
                .filter(|&(c, cpu)| c as i32 != target && cpu.occupant == Occupant::Idle)
                .map(|(c, _)| c as u32)
                .filter(|&c| match known {
                    Some(set) => set.contains(c),
                    None => ran.ran_on(c),
                });
            self.waits.placed(slot, target, busy, idle_allowed);
        }
    }

    /// A log for a new task when the store records.
    pub(crate) fn new_log(&self) -> Option<Box<TaskLog>> {
        let drained = self.drain.is_some();
        let summed = self.series.is_some() && self.sum_series_in_pass;
        self.store.as_ref().and_then(|s| s.new_log(drained, summed))
    }

    /// Called for every event when the store is on: every [`CHECK_EVERY`] events, the
    /// intervals' heap size against the limit (past it, every log is dropped), or, when
    /// the intervals are drained, a drain.
    pub(crate) fn check_store(&mut self) {
        let Some(store) = &mut self.store else {
            return;
        };
        store.countdown -= 1;
        if store.countdown > 0 || !store.recording() {
            return;
        }
        store.countdown = self.drain.as_ref().map_or(CHECK_EVERY, |d| d.every);
        if self.drain.is_none() {
            store.enforce_limit(&mut self.tasks, self.now);
            let mut tasks = std::mem::take(&mut self.tasks);
            self.sum_series(&mut tasks);
            self.tasks = tasks;
            return;
        }
        // Drained, the store holds a few chunks at most: no limit to check.
        let mut tasks = std::mem::take(&mut self.tasks);
        self.drain_now(&mut tasks, false);
        self.tasks = tasks;
    }
}

/// The `--affinity` rule of task `t`'s name, decided once per name (a regex match).
fn rule_of(a: &Affinity, t: &mut Task) -> Option<u32> {
    if t.affinity_rule == RULE_UNDECIDED {
        t.affinity_rule = a.rule_for(&t.comm.to_string_lossy()).unwrap_or(RULE_NONE);
    }
    (t.affinity_rule != RULE_NONE).then_some(t.affinity_rule)
}

/// Task `t`'s allowed set at `now` when the model knows it (every-CPU sets included).
fn known_id(a: &Affinity, t: &mut Task, now: u64) -> Option<u32> {
    let rule = rule_of(a, t);
    a.known_id(t.pid, rule, now).map(|(id, _)| id)
}

/// The allowed set task `t` waits with at `now` ([`RULE_NONE`]: unconstrained, or unknown).
fn allowed_id(a: &Affinity, t: &mut Task, now: u64) -> u32 {
    let rule = rule_of(a, t);
    a.allowed_id(t.pid, rule, now)
        .map_or(RULE_NONE, |(id, _)| id)
}

impl Analyzer {
    /// **The CPUs task `slot` may use now** (the recording's, else its `--affinity` rule's;
    /// see [`crate::affinity`]), None when unknown or every CPU. For the engine's rules that
    /// ask whether a wait could have run elsewhere (idle-while-runnable uses it through
    /// `observe`; placement that cost a wait can ask it at the wakeup).
    #[allow(dead_code)] // The placement rule of issue 27 is its next user.
    pub(crate) fn allowed_cpus(&mut self, slot: usize) -> Option<&CpuSet> {
        let a = self.affinity.as_ref()?;
        let id = allowed_id(a, &mut self.tasks[slot], self.now);
        (id != RULE_NONE).then(|| a.set(id))
    }
}

#[cfg(test)]
mod tests {
    use crate::affinity::Affinity;
    use crate::stream::{named, switch_named, task};
    use crate::{Analyzer, Config};
    use ingest::EventSink;
    use ingest::PrevState::Runnable;
    use std::sync::Arc;

    /// The engine's question for a task: its name's rule, None for a task no rule names (or
    /// without any model).
    #[test]
    fn allowed_cpus_are_the_tasks_rule() {
        let rules = Affinity::from_rules(&["^spin$=1".into()]).unwrap();
        let config = Config {
            affinity: Some(Arc::new(rules)),
            ..Default::default()
        };
        let mut a = Analyzer::new(config);
        a.event(&switch_named(10, 1, task(0), Runnable, named(5, "spin")));
        a.event(&switch_named(20, 0, task(0), Runnable, named(6, "other")));
        let (spin, other) = (a.find(5).unwrap(), a.find(6).unwrap());
        assert_eq!(
            a.allowed_cpus(spin).map(|s| s.to_string()),
            Some("1".into())
        );
        assert_eq!(a.allowed_cpus(other), None);
        let mut none = Analyzer::new(Config::default());
        none.event(&switch_named(10, 1, task(0), Runnable, named(5, "spin")));
        let spin = none.find(5).unwrap();
        assert_eq!(none.allowed_cpus(spin), None);
    }
}
