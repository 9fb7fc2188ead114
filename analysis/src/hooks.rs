//! Keeps the §4–7 accumulators (runqueue depth, work conservation, fairness) in step
//! with the task and CPU state changes the analyzer makes, and detects wakeup
//! preemptions (§5) at each switch. Every function here is O(1) per call.

use crate::analyzer::{Analyzer, MAX_CPUS};
use crate::cpu::Occupant;
use crate::timeline::{Presence, State, Wait};
use crate::FairSet;
use ingest::Comm;

impl Analyzer {
    /// The weight task `slot` competes with (0 = left out: RT, unknown prio, not in
    /// `--fair-set`).
    fn fair_weight(&mut self, slot: usize) -> u32 {
        let t = &mut self.tasks[slot];
        let Some(w) = self.fairness.scale.weight(t.prio) else {
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
            if old.cpu >= 0 && !old.running {
                self.runqueues.wait(old.cpu as u32, -1, now, &self.scope);
            }
            if new.cpu >= 0 && !new.running {
                self.runqueues.wait(new.cpu as u32, 1, now, &self.scope);
            }
        }
        self.fairness
            .change(slot as u32, &mut t.fair, new, weight, now, &self.scope);
        t.presence = new;
        t.fair_weight = weight;
    }

    /// Applies CPU `cpu`'s occupant (idle or not) to the work-conservation accounting.
    pub(crate) fn observe_cpu(&mut self, cpu: u32) {
        let idle = self.cpus[cpu as usize].occupant == Occupant::Idle;
        self.runqueues.set_idle(cpu, idle, self.now, &self.scope);
    }

    /// Whether switching `prev_slot` out (in R/R+) for `next_slot` on `cpu` is a wakeup
    /// preemption (§5): next's wait started with a wakeup onto `cpu` that happened while
    /// prev was already running there.
    pub(crate) fn is_wakeup_preemption(
        &self,
        cpu: u32,
        prev_slot: usize,
        next_slot: usize,
    ) -> bool {
        let next = &self.tasks[next_slot];
        let prev = &self.tasks[prev_slot];
        let woken = matches!(
            next.state,
            State::Runnable {
                wait: Wait::Wakeup | Wait::Untimed,
                ..
            }
        ) && next.wake_cpu == cpu as i32;
        woken && prev.state == (State::Running { cpu }) && prev.since <= next.wake_ts
    }

    /// Counts a wakeup preemption for the wakee, the victim, the CPU and the triple.
    pub(crate) fn count_wakeup_preemption(&mut self, cpu: u32, victim: usize, wakee: usize) {
        self.tasks[wakee].preempt_caused += 1;
        self.tasks[victim].preempt_suffered += 1;
        self.cpus[cpu as usize].wakeup_preemptions += 1;
        self.count_in_series(crate::series::Count::WakeupPreemption, self.now, cpu);
        let waker = self.tasks[wakee].waker;
        let waker_comm = match waker {
            0 => Some(Comm::from("<idle>")),
            p if p > 0 => self.find_task(p).map(|s| self.tasks[s].comm),
            _ => None,
        };
        if let Some(w) = waker_comm {
            let key = (w, self.tasks[wakee].comm, self.tasks[victim].comm);
            let now = self.now;
            let seen = self.triples.entry(key).or_insert((0, now, now));
            seen.0 += 1;
            seen.2 = now;
        }
    }

    /// After a wakeup event set task `slot`'s runqueue CPU at `now`: was that CPU running
    /// another task (the denominator of the §5 ratio)?
    pub(crate) fn note_target(&mut self, slot: usize) {
        let now = self.now;
        let t = &self.tasks[slot];
        let waiting = matches!(
            t.state,
            State::Runnable {
                wait: Wait::Wakeup | Wait::Untimed,
                ..
            }
        );
        if !waiting || t.wake_ts != now || t.wake_cpu < 0 {
            return;
        }
        let busy = match self.cpus.get(t.wake_cpu as usize).map(|c| c.occupant) {
            Some(Occupant::Task(p)) => p != t.pid,
            _ => false,
        };
        self.tasks[slot].target_busy = busy;
    }
}
