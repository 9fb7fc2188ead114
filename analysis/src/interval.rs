//! One closed interval of a task's timeline: its states, what ended it and why a slice
//! ends ([`SwitchReason`]: the state machine counts it, an interval's end records it),
//! and the per-task log that the task's state machine appends to while the trace is read
//! ([`TaskLog`], a few bytes an interval: see `codec`).
//!
//! Below both the task state machine ([`crate::timeline`]) and the store
//! ([`crate::timeline_store`]): each writes or reads these types, neither is imported here.

mod codec;
mod log;

use ingest::PrevState;
pub(crate) use log::{Cursor, TaskLog};

/// Why a slice ended (metrics.md §3 "switch-out reason").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchReason {
    /// Switched out in a non-runnable, non-dead state: a voluntary switch.
    Block,
    /// Switched out runnable because a task woken onto this CPU took it (§5).
    WakeupPreempt,
    /// Any other runnable switch-out: slice expiry, tick, yield.
    Preempt,
    /// The task's final switch-out.
    Exit,
}

impl SwitchReason {
    pub const ALL: [SwitchReason; 4] = [
        SwitchReason::Block,
        SwitchReason::WakeupPreempt,
        SwitchReason::Preempt,
        SwitchReason::Exit,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn of(state: PrevState) -> SwitchReason {
        match state {
            PrevState::Runnable | PrevState::Preempted => SwitchReason::Preempt,
            PrevState::Sleeping | PrevState::Blocked => SwitchReason::Block,
            PrevState::Dead => SwitchReason::Exit,
        }
    }
}

/// The thread states of a stored interval (Perfetto's `thread_state`, with the runnable
/// state split by what made the task runnable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThreadState {
    Running,
    /// Runnable after a wakeup (the wait is a wakeup latency when timed).
    RunnableWakeup,
    /// Runnable after being switched out runnable (a preemption wait).
    RunnablePreempted,
    Sleeping,
    /// Uninterruptible sleep (D).
    Blocked,
    /// Not known: after lost events, a context-switch bug, or a switch-in without a wakeup.
    Unknown,
}

/// What ended an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// Runnable (or unknown) to running.
    SwitchedIn,
    /// Running to not running, and why (metrics.md §3).
    SwitchedOut(SwitchReason),
    /// Sleeping or blocked to runnable.
    Woken,
    /// The task's state stopped being known (lost events, a context-switch bug).
    LostTrack,
    /// Still open at the end of the trace.
    TraceEnd,
}

/// One interval as the read API gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntervalView {
    pub start_ns: u64,
    pub dur_ns: u64,
    pub state: ThreadState,
    /// Running: the CPU. Runnable: the runqueue's CPU at the end of the wait (where it
    /// was switched in). Otherwise none.
    pub cpu: Option<u32>,
    pub end: EndReason,
    /// Runnable after a wakeup: the waking task (0 = an interrupt on an idle CPU), when known.
    pub waker_pid: Option<i32>,
    /// Runnable after a wakeup: false when its start was not observed (a `sched_wakeup`
    /// whose `sched_waking` is missing), so its length is no wakeup latency.
    pub latency_timed: bool,
}

impl IntervalView {
    pub fn end_ns(&self) -> u64 {
        self.start_ns + self.dur_ns
    }
}

/// What [`TaskLog::close`] stores; `None` state is a gap (dead time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fields {
    pub(crate) state: Option<ThreadState>,
    pub(crate) end: EndReason,
    pub(crate) cpu: Option<u32>,
    /// Negative pids are no waker: stored as none.
    pub(crate) waker: Option<i32>,
    pub(crate) untimed: bool,
}
