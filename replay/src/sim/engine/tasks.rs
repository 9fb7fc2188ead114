//! A task's way through its demand: entering its next phase (a burst, a timed or
//! dependency block, its end), the releases of the tasks that wait on it, and its exit.
//! Why apart from the CPUs' side: these rules are the demand's, the same under every
//! model; the model is asked only through the CPU side (`cpus.rs`).

use super::{Engine, Entered, Ev, State};
use crate::demand::{Phase, TaskEnd, Wake};
use crate::sim::model::{Dequeue, Enqueue};
use crate::sim::progress::Release;
use crate::sim::schedule::{Left, Record};
use crate::sim::wall_clock::{clock_bound_next, wall_bound, WallBound};

impl Engine<'_> {
    pub(super) fn start(&mut self, task: usize) {
        if let Some(parent) = self.demand.tasks[task].fork.and_then(|f| f.parent) {
            if parent < self.last_cpu.len() && self.allowed[task].contains(&self.last_cpu[parent]) {
                self.last_cpu[task] = self.last_cpu[parent];
            }
        }
        let new = self.demand.tasks[task].fork.is_some();
        match self.enter_phase(task) {
            Entered::Burst => self.wake(
                task,
                None,
                if new {
                    Enqueue::New
                } else {
                    Enqueue::Wakeup { slept_ns: 0 }
                },
            ),
            Entered::Blocked => {}
            Entered::Done => self.finish_blocked(task),
        }
    }

    /// Moves `task` into its current phase: a burst to run, a block to wait out (timed, or
    /// until its waker gets there; one already released is passed through), or the end.
    pub(super) fn enter_phase(&mut self, task: usize) -> Entered {
        loop {
            let t = &self.demand.tasks[task];
            if let Some(phase) = clock_bound_next(t, self.progress.phase(task), self.now) {
                self.progress.set_phase(task, phase);
            }
            match t.phases.get(self.progress.phase(task)) {
                None => return Entered::Done,
                Some(Phase::Burst { ns }) => {
                    let t = &self.demand.tasks[task];
                    match wall_bound(t, self.progress.phase(task), *ns) {
                        None => match t.wall_budget {
                            // Busy until its budget is up (`budget_up`), whatever CPU
                            // that takes.
                            Some(b) => {
                                self.progress.begin_burst(task, u64::MAX / 4);
                                self.budget_after[task] = Some(b.budget_ns);
                            }
                            None => self.progress.begin_burst(task, *ns),
                        },
                        Some(WallBound::At(until)) if until <= self.now => {
                            self.progress.begin_burst(task, 0)
                        }
                        Some(bound) => {
                            self.progress.begin_burst(task, u64::MAX / 4);
                            match bound {
                                WallBound::At(until) => self.push(until, Ev::Stop(task)),
                                WallBound::After(ns) => self.stop_after[task] = Some(ns),
                                // Still running when the trace ended: here too.
                                WallBound::Never => {}
                            }
                        }
                    }
                    return Entered::Burst;
                }
                Some(Phase::Block { ns, wake }) => {
                    if let Wake::Dependency { .. } = wake {
                        if self.progress.take_released(task) {
                            self.progress.next_phase(task);
                            continue;
                        }
                    } else {
                        self.sleep_gen[task] += 1;
                        let gen = self.sleep_gen[task];
                        self.push(self.now + ns, Ev::TimedWake(task, gen));
                    }
                    self.state[task] = State::Blocked;
                    self.blocked_at[task] = self.now;
                    return Entered::Blocked;
                }
            }
        }
    }

    /// A wall-bounded burst's time is up: running, it ends now; queued, it leaves the queue.
    pub(super) fn stop(&mut self, task: usize) {
        match self.state[task] {
            State::Running => {
                let cpu = self.last_cpu[task];
                self.account(cpu);
                self.progress.cut_burst(task);
                self.burst_end(cpu, task);
            }
            State::Runnable => {
                let cpu = self.last_cpu[task];
                self.progress.cut_burst(task);
                self.finish_burst(task);
                self.leave(cpu, task);
            }
            _ => {}
        }
    }

    /// `task`'s wall-clock budget for its burst number `burst` is up: a running task's
    /// burst ends now (the budget is read to the traced bursts' ends, its way to the sleep
    /// included: `wall_budget.rs`); a waiting one has only its tail left, run when it next
    /// runs (its time ran out while it waited: the kernel's worker finds that when it
    /// resumes).
    pub(super) fn budget_up(&mut self, task: usize, burst: u32) {
        if self.progress.bursts_done(task) != burst {
            return;
        }
        match self.state[task] {
            State::Running => {
                let cpu = self.last_cpu[task];
                self.account(cpu);
                self.progress.cut_to(task, 0);
                self.cpus[cpu].dirty = true;
                self.burst_end(cpu, task);
            }
            State::Runnable => {
                let tail = self.demand.tasks[task].wall_budget.map_or(0, |b| b.tail_ns);
                self.progress.cut_to(task, tail);
            }
            _ => {}
        }
    }

    /// A blocked task's block is over (its timer, or its waker got there).
    pub(super) fn wake_from_block(&mut self, task: usize, waker: Option<usize>) {
        if waker.is_some() {
            self.woken_by[task] = waker;
        }
        self.progress.next_phase(task);
        match self.enter_phase(task) {
            Entered::Burst => {
                let slept_ns = self.now - self.blocked_at[task];
                self.wake(task, waker, Enqueue::Wakeup { slept_ns });
            }
            Entered::Blocked => {}
            Entered::Done => self.finish_blocked(task),
        }
    }

    /// Accounts the running task's progress on `cpu` up to now; releases the dependency
    /// blocks it reached.
    pub(super) fn account(&mut self, cpu: usize) {
        let since = std::mem::replace(&mut self.cpus[cpu].since, self.now);
        if let Some(task) = self.cpus[cpu].curr {
            for r in self.progress.run(task, self.now - since) {
                if self.answer_pending(task, r) {
                    self.progress.hold_at(task, r);
                    if self.waiting[task].replace(r).is_none() {
                        self.stalling.push(task);
                    }
                    break;
                }
                self.release(r, task);
            }
        }
    }

    /// Whether `waker`, at the point `r` where it woke its peer in the trace, must wait:
    /// the two woke each other in the trace (a request and its answer), the peer has not
    /// yet done the burst before the block `r` ends, and `waker` did not sleep and get
    /// woken by that peer since its previous point. In the trace the peer slept in that
    /// block whenever the waker got there (that is what a dependency is); the model got
    /// there first only because it ran the two in another order. A waker woken by the
    /// peer since its previous point slept for the answer and has it: the peer is only
    /// on its way from that wakeup to its block, as in the trace. One that was not (its
    /// last block was passed through, released before it got there) did its burst since
    /// the previous point with the peer's answer in hand (its read found the data), an
    /// answer the peer has not written yet. A wakeup of a task that is runnable is not
    /// traced, so this wait is in no demand.
    fn answer_pending(&self, waker: usize, r: Release) -> bool {
        self.progress.mutual(waker, r.wakee)
            && self.woken_by[waker] != Some(r.wakee)
            && matches!(self.state[r.wakee], State::Runnable | State::Running)
            && self.progress.phase(r.wakee) + 1 == r.phase
    }

    /// The wakers that reached a point their peer has not answered yet block there.
    pub(super) fn stall_waiting(&mut self) {
        while let Some(task) = self.stalling.pop() {
            if self.state[task] != State::Running || self.waiting[task].is_none() {
                // Switched out meanwhile: it stops at the point when it runs again.
                self.waiting[task] = None;
                continue;
            }
            let cpu = self.last_cpu[task];
            self.stats.answer_waits += 1;
            self.state[task] = State::Blocked;
            self.blocked_at[task] = self.now;
            self.stalled.push(task);
            self.model.dequeue(cpu, task, self.now, Dequeue::Sleep);
            self.switch(cpu, Some(task), Left::Blocked);
        }
    }

    /// `task` is done with the burst a stalled peer waited on (it blocks, or has no demand
    /// left): the peer wakes, woken by `task` as its answer would have woken it.
    pub(super) fn answer(&mut self, task: usize) {
        let mut i = 0;
        while i < self.stalled.len() {
            let w = self.stalled[i];
            if self.waiting[w].is_some_and(|r| r.wakee == task) {
                self.stalled.swap_remove(i);
                self.waiting[w] = None;
                self.woken_by[w] = Some(task);
                let slept_ns = self.now - self.blocked_at[w];
                self.wake(w, Some(task), Enqueue::Wakeup { slept_ns });
            } else {
                i += 1;
            }
        }
    }

    /// A stalled waker whose peer went elsewhere than the block it waits on (a timed
    /// block, its end): nothing will answer, it goes on.
    pub(super) fn wake_unanswered(&mut self) {
        let gone: Vec<usize> = self
            .stalled
            .iter()
            .filter_map(|&w| self.waiting[w].filter(|&r| !self.answer_pending(w, r)))
            .map(|r| r.wakee)
            .collect();
        for peer in gone {
            self.answer(peer);
        }
    }

    pub(super) fn release(&mut self, r: Release, waker: usize) {
        // Past a point: a wakeup before it answered nothing after it.
        self.woken_by[waker] = None;
        if self.state[r.wakee] == State::Blocked && self.progress.at_phase(r.wakee, r.phase) {
            self.pending.push_back((r.wakee, waker));
        } else {
            self.progress.mark_released(r.wakee, r.phase);
        }
    }

    pub(super) fn drain_pending(&mut self) {
        while let Some((wakee, waker)) = self.pending.pop_front() {
            if self.state[wakee] == State::Blocked {
                self.wake_from_block(wakee, Some(waker));
            }
        }
    }

    /// The task's burst is done: release who waits on it; past its free bursts it is held
    /// to its pinned CPUs from its next placement on (a next burst that follows on the CPU
    /// stays there until it leaves it).
    pub(super) fn finish_burst(&mut self, task: usize) {
        for r in self.progress.end_burst(task) {
            self.release(r, task);
        }
        if self.progress.bursts_done(task) == self.demand.tasks[task].free_bursts {
            self.allowed[task] = self.pinned[task].clone();
        }
    }

    /// The running task on `cpu` used up its burst: on to its next phase.
    pub(super) fn burst_end(&mut self, cpu: usize, task: usize) {
        self.finish_burst(task);
        match self.enter_phase(task) {
            // A dependency already released: the next burst follows on the CPU.
            Entered::Burst => self.cpus[cpu].dirty = true,
            Entered::Blocked => {
                self.answer(task);
                self.model.dequeue(cpu, task, self.now, Dequeue::Sleep);
                self.switch(cpu, Some(task), Left::Blocked);
            }
            Entered::Done => {
                let exits = self.leave(cpu, task);
                self.answer(task);
                self.switch(
                    cpu,
                    Some(task),
                    if exits { Left::Exited } else { Left::Blocked },
                );
            }
        }
    }

    /// A runnable or running task with no demand left leaves `cpu`'s runqueue for good
    /// (exiting when the trace saw it exit); true when it exits.
    pub(super) fn leave(&mut self, cpu: usize, task: usize) -> bool {
        let exits = matches!(self.demand.tasks[task].end, TaskEnd::Exit { .. });
        let how = if exits { Dequeue::Exit } else { Dequeue::Sleep };
        self.model.dequeue(cpu, task, self.now, how);
        self.finish(task);
        if exits {
            self.records.push(Record::Exit {
                ts: self.now,
                cpu,
                task,
            });
        }
        exits
    }

    /// A task with no demand left: its unreached release points are released now.
    pub(super) fn finish(&mut self, task: usize) {
        self.state[task] = State::Done;
        self.stats.finished += 1;
        for r in self.progress.release_all(task) {
            self.stats.released_at_waker_end += 1;
            self.release(r, task);
        }
    }

    pub(super) fn finish_blocked(&mut self, task: usize) {
        self.finish(task);
        if matches!(self.demand.tasks[task].end, TaskEnd::Exit { .. }) {
            self.records.push(Record::Exit {
                ts: self.now,
                cpu: self.last_cpu[task],
                task,
            });
        }
    }
}
