//! What a simulation produces: the schedule as the kernel's tracepoints would have shown it
//! (switches, wakeups, exits), in time order, and counts of what the engine had to decide.

/// How the task leaving a CPU left it (the `prev_state` of `sched_switch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// Preempted, still runnable (`R+`).
    Preempted,
    /// Blocked (`S`).
    Blocked,
    /// Exited (`X`).
    Exited,
}

/// A task as a record names it: its demand id and the priority the model shows for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Who {
    pub task: usize,
    pub prio: i32,
}

/// One scheduling event of the predicted run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    /// `cpu` stops running `prev` (None: idle) and starts `next` (None: idle).
    Switch {
        ts: u64,
        cpu: usize,
        prev: Option<Who>,
        left: Left,
        next: Option<Who>,
    },
    /// `task` was made runnable on `cpu` by `waker` (None: a timer) running on `waker_cpu`;
    /// `new` for a forked task's first wakeup.
    Wakeup {
        ts: u64,
        cpu: usize,
        task: Who,
        waker: Option<usize>,
        waker_cpu: Option<usize>,
        new: bool,
    },
    /// `task` exited on `cpu`.
    Exit { ts: u64, cpu: usize, task: usize },
}

impl Record {
    pub fn ts(&self) -> u64 {
        match *self {
            Record::Switch { ts, .. } | Record::Wakeup { ts, .. } | Record::Exit { ts, .. } => ts,
        }
    }
}

/// What the engine did, beyond the records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Events taken off the engine's queue.
    pub events: u64,
    pub ticks: u64,
    /// Tasks moved by the idle pull.
    pub pulls: u64,
    /// Dependency blocks released because their waker ended before reaching the point
    /// that released them in the trace.
    pub released_at_waker_end: u64,
    /// Times a task stopped at a point where it woke its peer in the trace because the
    /// peer had not yet done the burst before that block (`answer_pending`).
    pub answer_waits: u64,
    /// Tasks still blocked on a dependency when the window ended.
    pub stuck_on_dependency: u64,
    /// Tasks whose demand was used up before the window ended (they sleep from then on).
    pub finished: u64,
}

/// The predicted run.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub records: Vec<Record>,
    pub stats: SimStats,
    /// The simulated window (the input's).
    pub start_ns: u64,
    pub end_ns: u64,
    /// The tick rate the model ran at.
    pub hz: u32,
    /// The tick grid's offset from the window start (from the seed).
    pub tick_offset_ns: u64,
}

impl Schedule {
    /// Each task's CPU time in the schedule (`tasks` = the demand's task count), from the
    /// switches; a task still running at the window's end counts up to it.
    pub fn runtimes(&self, tasks: usize) -> Vec<u64> {
        let mut ran = vec![0u64; tasks];
        let mut on: Vec<Option<(usize, u64)>> = Vec::new();
        for r in &self.records {
            if let Record::Switch {
                ts,
                cpu,
                prev,
                next,
                ..
            } = *r
            {
                if on.len() <= cpu {
                    on.resize(cpu + 1, None);
                }
                if let (Some(p), Some((t, since))) = (prev, on[cpu]) {
                    if p.task == t {
                        ran[t] += ts - since;
                    }
                }
                on[cpu] = next.map(|n| (n.task, ts));
            }
        }
        for (t, since) in on.into_iter().flatten() {
            ran[t] += self.end_ns.saturating_sub(since);
        }
        ran
    }
}
