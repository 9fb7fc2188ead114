//! The discrete-event engine: a nanosecond clock, a queue of timed events (task starts,
//! timed wakeups, per-CPU timers, the tick), the CPUs' running tasks, and each task's
//! progress through its demand. The scheduling policy is the model's
//! ([`SchedulerModel`]); what is left here is what every kernel does alike: wakeup
//! placement (`placement.rs`), the idle pull and the bookkeeping of the demand.
//!
//! Split by side: `tasks.rs` moves a task through its demand (phases, releases of the
//! tasks waiting on it, its end), `cpus.rs` what happens on a CPU (placing a wakeup,
//! switching, preemption, the tick, the idle pull, the timers); this file holds the state
//! and the event loop that dispatches to both.
//!
//! Why a per-CPU timer with a generation: a running task's next milestone (its burst's end,
//! the point where it wakes a dependent task, a model's slice timer) moves whenever the CPU
//! changes hands; a new timer replaces the old one by bumping the generation, and a stale
//! one is dropped when it comes off the queue, which is cheaper than removing it.

mod cpus;
mod tasks;

use super::model::SchedulerModel;
use super::placement::llc_groups;
use super::progress::{Progress, Release};
use super::schedule::{Left, Record, Schedule, SimStats, Who};
use crate::demand::Demand;
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
    /// A task's wall-clock budget for a burst is up (the bursts it had done before it).
    Budget(usize, u32),
    /// An idle CPU that a wakeup was placed on runs it (the traced wakeup cost later).
    IdleWake(usize),
    /// A wakeup preemption takes effect (the traced delay later), unless the CPU has
    /// switched since it was decided (its switch count then).
    Resched(usize, u64),
    /// A wakeup's preemption check, the traced lag from `sched_waking` to `sched_wakeup`
    /// after it: the wakee and the CPU's switch count at the wakeup (void once the CPU
    /// switched: the task it would preempt has left).
    WakeCheck(usize, usize, u64),
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
    /// A burst's wall-clock budget (`TaskDemand::wall_budget`), armed when it first runs.
    budget_after: Vec<Option<u64>>,
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
    /// Per task: the release point it waits at for its peer's answer (`answer_pending`).
    waiting: Vec<Option<Release>>,
    /// Per task: the peer that woke it from a block since its last release point, if one
    /// did (`answer_pending`: it then slept for that peer's answer and has it).
    woken_by: Vec<Option<usize>>,
    /// Running tasks that reached such a point in the current event, to block after it.
    stalling: Vec<usize>,
    /// The tasks blocked at such a point.
    stalled: Vec<usize>,
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
            budget_after: vec![None; n],
            end_ns: demand.end_ns,
            allowed,
            pinned,
            cpus: vec![Cpu::default(); ncpu],
            llc_of,
            llcs,
            pending: VecDeque::new(),
            waiting: vec![None; n],
            woken_by: vec![None; n],
            stalling: Vec::new(),
            stalled: Vec::new(),
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
                Ev::Budget(task, burst) => self.budget_up(task, burst),
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
                Ev::WakeCheck(cpu, task, switches) => {
                    if self.cpus[cpu].switches == switches
                        && self.state[task] == State::Runnable
                        && self.last_cpu[task] == cpu
                    {
                        self.check_preempt(cpu, task, self.demand.waking_wakeup_ns);
                    }
                }
            }
            self.drain_pending();
            self.stall_waiting();
            self.wake_unanswered();
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
}
