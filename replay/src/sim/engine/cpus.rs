//! What happens on a CPU: a woken task placed and enqueued (and the model asked whether it
//! preempts), the switch to the model's pick, a preemption, the per-CPU timer, the tick,
//! the idle pull, and re-arming the timers. Why apart from the tasks' side: this is where
//! the model is asked; the demand's bookkeeping is in `tasks.rs`.

use super::{Engine, Ev, State};
use crate::sim::model::{Dequeue, Enqueue};
use crate::sim::placement::{place, pull_choice, CpuView};
use crate::sim::schedule::{Left, Record};
use crate::sim::wall_clock::run_end;

impl Engine<'_> {
    /// Makes `task` runnable: placed, enqueued, and the CPU told (an idle one runs it, a busy
    /// one asks the model about preemption).
    pub(super) fn wake(&mut self, task: usize, waker: Option<usize>, how: Enqueue) {
        let cpu = match self.model.still_queued_on(task) {
            // Still queued where it may run (EEVDF's DELAY_DEQUEUE): woken in place.
            Some(cpu) if self.allowed[task].contains(&cpu) => cpu,
            held => {
                // Held on a CPU its mask no longer allows (pinned after its free bursts):
                // the dequeue completes there, as the kernel's `set_cpus_allowed` moves a
                // queued task off such a CPU, and it is placed within its mask.
                if let Some(cpu) = held {
                    self.model.dequeue(cpu, task, self.now, Dequeue::Migrate);
                }
                let view = CpuView {
                    cpus: &self
                        .cpus
                        .iter()
                        .map(|c| c.curr.is_some())
                        .collect::<Vec<_>>(),
                    model: &*self.model,
                };
                place(
                    &view,
                    self.last_cpu[task],
                    &self.allowed[task],
                    &self.llcs[self.llc_of[self.last_cpu[task]]],
                    how == Enqueue::New,
                )
            }
        };
        self.state[task] = State::Runnable;
        self.last_cpu[task] = cpu;
        self.model.enqueue(cpu, task, self.now, how);
        let waker_cpu =
            waker.and_then(|w| (self.state[w] == State::Running).then_some(self.last_cpu[w]));
        self.records.push(Record::Wakeup {
            ts: self.now,
            cpu,
            task: self.who(task),
            waker,
            waker_cpu,
            new: how == Enqueue::New,
        });
        if self.cpus[cpu].curr.is_none() {
            // An idle CPU runs the task once the traced cost of such a wakeup is paid.
            match self.demand.idle_wakeup_ns {
                0 => self.switch(cpu, None, Left::Blocked),
                cost => self.push(self.now + cost, Ev::IdleWake(cpu)),
            }
        } else {
            // The kernel reads its clock for the wakeup (and checks preemption) near
            // `sched_wakeup`, the traced lag after the `sched_waking` this wakeup is at.
            match self.demand.waking_wakeup_ns {
                0 => self.check_preempt(cpu, task, 0),
                lag => self.push(
                    self.now + lag,
                    Ev::WakeCheck(cpu, task, self.cpus[cpu].switches),
                ),
            }
        }
    }

    /// The preemption check of `task`'s wakeup onto busy `cpu`, `lag` after the wakeup.
    pub(super) fn check_preempt(&mut self, cpu: usize, task: usize, lag: u64) {
        if self.cpus[cpu]
            .curr
            .is_some_and(|c| self.state[c] == State::Running)
            && self.model.check_preempt_wakeup(cpu, task, self.now)
        {
            // (A task that is blocking or done and wakes its waiting peer on the way
            // out, `answer`, is switched out next anyway: there is nothing to preempt.)
            // The running task goes on until the traced delay of such a switch (timed
            // from the wakeup) is over.
            match self.demand.preempt_wakeup_ns.saturating_sub(lag) {
                0 => self.preempt(cpu),
                cost => self.push(self.now + cost, Ev::Resched(cpu, self.cpus[cpu].switches)),
            }
        }
    }

    /// `cpu`'s running task `prev` (if any) is off the CPU already in the model's view; the
    /// model picks the next, and an idle CPU first tries to pull a waiting task.
    pub(super) fn switch(&mut self, cpu: usize, prev: Option<usize>, left: Left) {
        let mut next = self.model.pick_next(cpu, self.now);
        if next.is_none() && self.pull(cpu) {
            next = self.model.pick_next(cpu, self.now);
        }
        self.cpus[cpu].curr = next;
        self.cpus[cpu].since = self.now;
        self.cpus[cpu].dirty = true;
        self.cpus[cpu].switches += 1;
        if let Some(n) = next {
            self.runs(cpu, n);
        }
        if prev.is_some() || next.is_some() {
            self.records.push(Record::Switch {
                ts: self.now,
                cpu,
                prev: prev.map(|p| self.who(p)),
                left,
                next: next.map(|n| self.who(n)),
            });
        }
    }

    /// `task` is switched in on `cpu` (a wall-bounded burst's time, and a burst's
    /// wall-clock budget, start at its first run).
    pub(super) fn runs(&mut self, cpu: usize, task: usize) {
        self.state[task] = State::Running;
        self.last_cpu[task] = cpu;
        if let Some(ns) = self.budget_after[task].take() {
            let burst = self.progress.bursts_done(task);
            self.push(self.now + ns, Ev::Budget(task, burst));
        }
        if let Some(ns) = self.stop_after[task].take() {
            let stop = self.now + ns;
            self.end_ns = self.end_ns.max(run_end(self.demand, stop));
            self.push(stop, Ev::Stop(task));
        }
    }

    /// The model asked for a reschedule of `cpu`'s running task.
    pub(super) fn preempt(&mut self, cpu: usize) {
        self.account(cpu);
        let Some(curr) = self.cpus[cpu].curr else {
            return;
        };
        if self.progress.burst_left(curr) == 0 {
            return self.burst_end(cpu, curr);
        }
        self.model.put_prev(cpu, curr, self.now);
        let next = self.model.pick_next(cpu, self.now);
        self.cpus[cpu].dirty = true;
        self.cpus[cpu].switches += 1;
        if next == Some(curr) {
            return;
        }
        self.state[curr] = State::Runnable;
        self.cpus[cpu].curr = next;
        if let Some(n) = next {
            self.runs(cpu, n);
        }
        self.records.push(Record::Switch {
            ts: self.now,
            cpu,
            prev: Some(self.who(curr)),
            left: Left::Preempted,
            next: next.map(|n| self.who(n)),
        });
    }

    pub(super) fn cpu_timer(&mut self, cpu: usize) {
        self.account(cpu);
        let Some(curr) = self.cpus[cpu].curr else {
            return;
        };
        self.cpus[cpu].dirty = true;
        if self.progress.burst_left(curr) == 0 {
            self.burst_end(cpu, curr);
        } else if self.model.slice_timer(cpu).is_some_and(|t| t <= self.now)
            && self.model.slice_timer_fired(cpu, self.now)
        {
            self.preempt(cpu);
        }
    }

    pub(super) fn tick(&mut self) {
        self.stats.ticks += 1;
        for cpu in 0..self.cpus.len() {
            let Some(curr) = self.cpus[cpu].curr else {
                continue;
            };
            self.account(cpu);
            self.cpus[cpu].dirty = true;
            if self.progress.burst_left(curr) == 0 {
                self.burst_end(cpu, curr);
            } else if self.model.tick(cpu, self.now) {
                self.preempt(cpu);
            }
        }
        // The periodic idle pull.
        for cpu in 0..self.cpus.len() {
            if self.cpus[cpu].curr.is_none() && self.pull(cpu) {
                self.switch(cpu, None, Left::Blocked);
            }
        }
        self.push(self.now + self.tick_ns, Ev::Tick);
    }

    /// An idle `dst` takes one waiting task (`placement::pull_choice`).
    pub(super) fn pull(&mut self, dst: usize) -> bool {
        let busy: Vec<bool> = self.cpus.iter().map(|c| c.curr.is_some()).collect();
        let view = CpuView {
            cpus: &busy,
            model: &*self.model,
        };
        let Some((src, task)) = pull_choice(&view, dst, &self.allowed, &self.llc_of) else {
            return false;
        };
        self.model.dequeue(src, task, self.now, Dequeue::Migrate);
        self.last_cpu[task] = dst;
        self.model.enqueue(dst, task, self.now, Enqueue::Migrated);
        self.stats.pulls += 1;
        true
    }

    /// Sets the timer of every CPU whose running task or model state changed: the earliest
    /// of its burst's end, its next release point and the model's slice timer.
    pub(super) fn rearm(&mut self) {
        for cpu in 0..self.cpus.len() {
            if !std::mem::take(&mut self.cpus[cpu].dirty) {
                continue;
            }
            self.cpus[cpu].timer_gen += 1;
            let Some(curr) = self.cpus[cpu].curr else {
                continue;
            };
            let mut at = self.now + self.progress.until_milestone(curr);
            if let Some(t) = self.model.slice_timer(cpu) {
                at = at.min(t.max(self.now));
            }
            let gen = self.cpus[cpu].timer_gen;
            self.push(at, Ev::CpuTimer(cpu, gen));
        }
    }
}
