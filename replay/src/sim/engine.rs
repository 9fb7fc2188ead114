//! The discrete-event engine: a nanosecond clock, a queue of timed events (task starts,
//! timed wakeups, per-CPU timers, the tick), the CPUs' running tasks, and each task's
//! progress through its demand. The scheduling policy is the model's
//! ([`SchedulerModel`]); what is left here is what every kernel does alike: wakeup
//! placement (`placement.rs`), the idle pull and the bookkeeping of the demand.
//!
//! Why a per-CPU timer with a generation: a running task's next milestone (its burst's end,
//! the point where it wakes a dependent task, a model's slice timer) moves whenever the CPU
//! changes hands; a new timer replaces the old one by bumping the generation, and a stale
//! one is dropped when it comes off the queue, which is cheaper than removing it.

use super::model::{Dequeue, Enqueue, SchedulerModel};
use super::placement::{llc_groups, place, pull_choice, CpuView};
use super::progress::{Progress, Release};
use super::schedule::{Left, Record, Schedule, SimStats, Who};
use super::wall_clock::{run_end, wall_bound, WallBound};
use crate::demand::{Demand, Phase, TaskEnd, Wake};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A timed event. The derive's order breaks ties at one timestamp only together with the
/// queue's sequence number, so the run is deterministic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A task's demand begins (its first wakeup or block).
    Start(usize),
    /// A timed block ends (generation of the task's sleep).
    TimedWake(usize, u64),
    /// A CPU's next milestone (generation of the CPU's timer).
    CpuTimer(usize, u64),
    /// The scheduler tick, on every CPU at once.
    Tick,
    /// A task's wall-bounded last burst reaches its traced end.
    Stop(usize),
    /// An idle CPU that a wakeup was placed on runs it (the traced wakeup cost later).
    IdleWake(usize),
    /// A wakeup preemption takes effect (the traced delay later), unless the CPU has
    /// switched since it was decided (its switch count then).
    Resched(usize, u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    NotStarted,
    Runnable,
    Running,
    Blocked,
    Done,
}

/// What entering a task's next phase led to.
enum Entered {
    Burst,
    Blocked,
    Done,
}

#[derive(Debug, Clone, Copy, Default)]
struct Cpu {
    curr: Option<usize>,
    /// When the running task's progress was last accounted.
    since: u64,
    timer_gen: u64,
    dirty: bool,
    /// Switches so far: a pending reschedule is void once the CPU switched (the kernel
    /// clears `need_resched` in `__schedule`).
    switches: u64,
}

pub(crate) struct Engine<'a> {
    demand: &'a Demand,
    model: Box<dyn SchedulerModel + 'a>,
    now: u64,
    seq: u64,
    queue: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    state: Vec<State>,
    progress: Progress<'a>,
    /// Last CPU of each task (placement's "previous CPU").
    last_cpu: Vec<usize>,
    blocked_at: Vec<u64>,
    sleep_gen: Vec<u64>,
    /// A wall-bounded burst's time, armed when it first runs.
    stop_after: Vec<Option<u64>>,
    /// Where the run ends: the trace's end, or later for a wall-bounded burst that ends
    /// later (`wall_clock::run_end`).
    end_ns: u64,
    /// The CPUs each task may run on now: every CPU during its free bursts, then `pinned`.
    allowed: Vec<Vec<usize>>,
    pinned: Vec<Vec<usize>>,
    cpus: Vec<Cpu>,
    llc_of: Vec<usize>,
    llcs: Vec<Vec<usize>>,
    /// Dependency blocks released while the engine was busy with something else:
    /// (wakee, waker), woken in order once the current event is done.
    pending: VecDeque<(usize, usize)>,
    tick_ns: u64,
    records: Vec<Record>,
    stats: SimStats,
}

impl<'a> Engine<'a> {
    pub(crate) fn new(
        demand: &'a Demand,
        model: Box<dyn SchedulerModel + 'a>,
        hz: u32,
    ) -> Engine<'a> {
        let ncpu = (demand.cpus as usize).max(1);
        let (llc_of, llcs) = llc_groups(&demand.llcs, ncpu);
        let pinned: Vec<Vec<usize>> = demand
            .tasks
            .iter()
            .map(|t| {
                let mut a: Vec<usize> = t
                    .cpus
                    .iter()
                    .map(|&c| c as usize)
                    .filter(|&c| c < ncpu)
                    .collect();
                a.sort_unstable();
                a.dedup();
                if a.is_empty() {
                    a = (0..ncpu).collect();
                }
                a
            })
            .collect();
        let allowed = pinned
            .iter()
            .zip(&demand.tasks)
            .map(|(a, t)| {
                if t.free_bursts > 0 {
                    (0..ncpu).collect()
                } else {
                    a.clone()
                }
            })
            .collect();
        let n = demand.tasks.len();
        Engine {
            demand,
            model,
            now: demand.start_ns,
            seq: 0,
            queue: BinaryHeap::new(),
            state: vec![State::NotStarted; n],
            progress: Progress::new(demand),
            last_cpu: pinned.iter().map(|a| a[0]).collect(),
            blocked_at: vec![0; n],
            sleep_gen: vec![0; n],
            stop_after: vec![None; n],
            end_ns: demand.end_ns,
            allowed,
            pinned,
            cpus: vec![Cpu::default(); ncpu],
            llc_of,
            llcs,
            pending: VecDeque::new(),
            tick_ns: 1_000_000_000 / u64::from(hz.max(1)),
            records: Vec::new(),
            stats: SimStats::default(),
        }
    }

    fn push(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Reverse((at, self.seq, ev)));
    }

    /// Runs the window and returns the schedule. `tick_offset` places the tick grid.
    pub(crate) fn run(mut self, hz: u32, tick_offset: u64) -> Schedule {
        let d = self.demand;
        for (id, t) in d.tasks.iter().enumerate() {
            // A task with no CPU time has nothing to ask of a scheduler.
            if t.bursts().next().is_none() {
                self.state[id] = State::Done;
                continue;
            }
            let parent = t.fork.and_then(|f| f.parent);
            self.model.add_task(id, t.model_nice(), parent);
            self.push(t.start_ns.max(d.start_ns), Ev::Start(id));
        }
        self.push(d.start_ns + tick_offset % self.tick_ns, Ev::Tick);
        while let Some(Reverse((at, _, ev))) = self.queue.pop() {
            if at > self.end_ns {
                break;
            }
            self.now = at;
            self.stats.events += 1;
            match ev {
                Ev::Start(task) => self.start(task),
                Ev::TimedWake(task, gen) => {
                    if self.sleep_gen[task] == gen && self.state[task] == State::Blocked {
                        self.wake_from_block(task, None);
                    }
                }
                Ev::CpuTimer(cpu, gen) => {
                    if self.cpus[cpu].timer_gen == gen {
                        self.cpu_timer(cpu);
                    }
                }
                Ev::Tick => self.tick(),
                Ev::Stop(task) => self.stop(task),
                Ev::IdleWake(cpu) => {
                    if self.cpus[cpu].curr.is_none() {
                        self.switch(cpu, None, Left::Blocked);
                    }
                }
                Ev::Resched(cpu, switches) => {
                    if self.cpus[cpu].switches == switches {
                        self.preempt(cpu);
                    }
                }
            }
            self.drain_pending();
            self.rearm();
        }
        self.stats.stuck_on_dependency = (0..d.tasks.len())
            .filter(|&t| self.state[t] == State::Blocked && self.progress.on_dependency(t))
            .count() as u64;
        Schedule {
            records: self.records,
            stats: self.stats,
            start_ns: d.start_ns,
            end_ns: self.end_ns,
            hz,
            tick_offset_ns: tick_offset % self.tick_ns,
        }
    }

    fn who(&self, task: usize) -> Who {
        Who {
            task,
            prio: self.model.prio(task),
        }
    }

    fn start(&mut self, task: usize) {
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
    fn enter_phase(&mut self, task: usize) -> Entered {
        loop {
            match self.demand.tasks[task]
                .phases
                .get(self.progress.phase(task))
            {
                None => return Entered::Done,
                Some(Phase::Burst { ns }) => {
                    let t = &self.demand.tasks[task];
                    match wall_bound(t, self.progress.phase(task), *ns) {
                        None => self.progress.begin_burst(task, *ns),
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
    fn stop(&mut self, task: usize) {
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

    /// A blocked task's block is over (its timer, or its waker got there).
    fn wake_from_block(&mut self, task: usize, waker: Option<usize>) {
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

    /// Makes `task` runnable: placed, enqueued, and the CPU told (an idle one runs it, a busy
    /// one asks the model about preemption).
    fn wake(&mut self, task: usize, waker: Option<usize>, how: Enqueue) {
        let cpu = match self.model.still_queued_on(task) {
            Some(cpu) => cpu,
            None => {
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
        } else if self.model.check_preempt_wakeup(cpu, task, self.now) {
            // The running task goes on until the traced delay of such a switch is over.
            match self.demand.preempt_wakeup_ns {
                0 => self.preempt(cpu),
                cost => self.push(self.now + cost, Ev::Resched(cpu, self.cpus[cpu].switches)),
            }
        }
    }

    /// Accounts the running task's progress on `cpu` up to now; releases the dependency
    /// blocks it reached.
    fn account(&mut self, cpu: usize) {
        let since = std::mem::replace(&mut self.cpus[cpu].since, self.now);
        if let Some(task) = self.cpus[cpu].curr {
            for r in self.progress.run(task, self.now - since) {
                self.release(r, task);
            }
        }
    }

    fn release(&mut self, r: Release, waker: usize) {
        if self.state[r.wakee] == State::Blocked && self.progress.at_phase(r.wakee, r.phase) {
            self.pending.push_back((r.wakee, waker));
        } else {
            self.progress.mark_released(r.wakee, r.phase);
        }
    }

    fn drain_pending(&mut self) {
        while let Some((wakee, waker)) = self.pending.pop_front() {
            if self.state[wakee] == State::Blocked {
                self.wake_from_block(wakee, Some(waker));
            }
        }
    }

    /// The task's burst is done: release who waits on it; past its free bursts it is held
    /// to its pinned CPUs from its next placement on (a next burst that follows on the CPU
    /// stays there until it leaves it).
    fn finish_burst(&mut self, task: usize) {
        for r in self.progress.end_burst(task) {
            self.release(r, task);
        }
        if self.progress.bursts_done(task) == self.demand.tasks[task].free_bursts {
            self.allowed[task] = self.pinned[task].clone();
        }
    }

    /// The running task on `cpu` used up its burst: on to its next phase.
    fn burst_end(&mut self, cpu: usize, task: usize) {
        self.finish_burst(task);
        match self.enter_phase(task) {
            // A dependency already released: the next burst follows on the CPU.
            Entered::Burst => self.cpus[cpu].dirty = true,
            Entered::Blocked => {
                self.model.dequeue(cpu, task, self.now, Dequeue::Sleep);
                self.switch(cpu, Some(task), Left::Blocked);
            }
            Entered::Done => {
                let exits = self.leave(cpu, task);
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
    fn leave(&mut self, cpu: usize, task: usize) -> bool {
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
    fn finish(&mut self, task: usize) {
        self.state[task] = State::Done;
        self.stats.finished += 1;
        for r in self.progress.release_all(task) {
            self.stats.released_at_waker_end += 1;
            self.release(r, task);
        }
    }

    fn finish_blocked(&mut self, task: usize) {
        self.finish(task);
        if matches!(self.demand.tasks[task].end, TaskEnd::Exit { .. }) {
            self.records.push(Record::Exit {
                ts: self.now,
                cpu: self.last_cpu[task],
                task,
            });
        }
    }

    /// `cpu`'s running task `prev` (if any) is off the CPU already in the model's view; the
    /// model picks the next, and an idle CPU first tries to pull a waiting task.
    fn switch(&mut self, cpu: usize, prev: Option<usize>, left: Left) {
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

    /// `task` is switched in on `cpu` (a wall-bounded burst's time starts at its first run).
    fn runs(&mut self, cpu: usize, task: usize) {
        self.state[task] = State::Running;
        self.last_cpu[task] = cpu;
        if let Some(ns) = self.stop_after[task].take() {
            let stop = self.now + ns;
            self.end_ns = self.end_ns.max(run_end(self.demand, stop));
            self.push(stop, Ev::Stop(task));
        }
    }

    /// The model asked for a reschedule of `cpu`'s running task.
    fn preempt(&mut self, cpu: usize) {
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

    fn cpu_timer(&mut self, cpu: usize) {
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

    fn tick(&mut self) {
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
    fn pull(&mut self, dst: usize) -> bool {
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
    fn rearm(&mut self) {
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
