//! Per-CPU state: who the CPU is believed to run, since when and until when that is
//! confirmed, and the busy / idle / unknown time and switch counts of metrics.md §4.

use crate::scope::Scope;

/// What a CPU is believed to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Occupant {
    /// Before the CPU's first switch, after lost events, after a context-switch bug.
    Unknown,
    /// pid 0, the CPU's idle task.
    Idle,
    Task(i32),
}

impl Occupant {
    pub(crate) fn of_pid(pid: i32) -> Occupant {
        if pid == 0 {
            Occupant::Idle
        } else {
            Occupant::Task(pid)
        }
    }

    /// Whether `pid` (an event's current pid) is this occupant.
    pub(crate) fn is(self, pid: i32) -> bool {
        match self {
            Occupant::Unknown => false,
            Occupant::Idle => pid == 0,
            Occupant::Task(p) => p == pid,
        }
    }
}

/// One lost-event record of a CPU.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lost {
    pub(crate) ts: u64,
    pub(crate) count: Option<u64>,
    /// The CPU's previous event: the events may have been dropped anywhere after it.
    pub(crate) from: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct Cpu {
    pub(crate) occupant: Occupant,
    /// When the occupant's interval started (for busy / idle accounting).
    pub(crate) since: u64,
    /// Last time the occupant is known to have been on the CPU: its switch-in, or a later
    /// event of this CPU fired by it (or by an unnamed task, when the format does not say).
    pub(crate) confirmed: u64,
    /// Time of the CPU's latest event, None before its first.
    pub(crate) last_event: Option<u64>,
    pub(crate) busy_ns: u64,
    pub(crate) idle_ns: u64,
    pub(crate) unknown_ns: u64,
    pub(crate) switches: u64,
    pub(crate) bugs: u64,
    pub(crate) lost: Vec<Lost>,
    /// Wakeup preemptions on this CPU (§5).
    pub(crate) wakeup_preemptions: u64,
    /// Wakeups whose wakee ran here, where its waker ran (the diagonal of the waker CPU ×
    /// wakee CPU matrix; the rest is in the tasks' CPU pairs).
    pub(crate) local_wakeups: u64,
}

impl Default for Cpu {
    fn default() -> Cpu {
        Cpu::new()
    }
}

impl Cpu {
    pub(crate) fn new() -> Cpu {
        Cpu {
            occupant: Occupant::Unknown,
            since: 0,
            confirmed: 0,
            last_event: None,
            busy_ns: 0,
            idle_ns: 0,
            unknown_ns: 0,
            switches: 0,
            bugs: 0,
            lost: Vec::new(),
            wakeup_preemptions: 0,
            local_wakeups: 0,
        }
    }

    /// The number of lost records so far: a task's transition remembers it.
    #[inline]
    pub(crate) fn epoch(&self) -> u32 {
        self.lost.len() as u32
    }

    /// Adds `[since, now)` to the occupant's kind of time. `seen` is false before the
    /// CPU's first event, whose earlier time is not counted at all.
    fn close(&mut self, now: u64, scope: &Scope) {
        if self.last_event.is_none() {
            return;
        }
        let len = scope.clip(self.since, now);
        match self.occupant {
            Occupant::Unknown => self.unknown_ns += len,
            Occupant::Idle => self.idle_ns += len,
            Occupant::Task(_) => self.busy_ns += len,
        }
    }

    /// The CPU runs `occupant` from `now` on.
    pub(crate) fn set(&mut self, occupant: Occupant, now: u64, scope: &Scope) {
        self.close(now, scope);
        self.occupant = occupant;
        self.since = now;
        self.confirmed = now;
    }

    /// The occupant is known only until `at`; after it the CPU is unknown.
    pub(crate) fn lose_track(&mut self, at: u64, scope: &Scope) {
        let at = at.max(self.since);
        self.close(at, scope);
        self.occupant = Occupant::Unknown;
        self.since = at;
    }

    /// Closes the open interval at the end of the trace window.
    pub(crate) fn finish(&mut self, end: u64, scope: &Scope) {
        self.close(end, scope);
        self.since = end;
    }
}
