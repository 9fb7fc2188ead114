//! One closed interval of a task's timeline in 16 bytes, the per-task log that the
//! task's state machine appends to while the trace is read, and why a slice ends
//! ([`SwitchReason`]: the state machine counts it, an interval's end records it).
//!
//! Below both the task state machine ([`crate::timeline`]) and the store
//! ([`crate::timeline_store`]): each writes or reads these types, neither is imported here.
//!
//! A task's intervals are contiguous (each transition ends one state and starts the
//! next at the same instant), so only the start is stored: an interval ends where the
//! next one starts, the last one at the log's `end_ns`. The other fields share one u64.

use ingest::PrevState;

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

/// A stored interval: its start, and state, end reason, CPU and waker packed in one u64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub(crate) struct Interval {
    pub(crate) start_ns: u64,
    bits: u64,
}

const _: () = assert!(std::mem::size_of::<Interval>() == 16);

// Bit layout of `Interval::bits`, low to high.
const STATE_BITS: u32 = 3;
const END_SHIFT: u32 = STATE_BITS;
const END_BITS: u32 = 3;
const UNTIMED_SHIFT: u32 = END_SHIFT + END_BITS;
const CPU_SHIFT: u32 = UNTIMED_SHIFT + 1;
const CPU_BITS: u32 = 15;
/// CPU numbers are below `engine::analyzer::MAX_CPUS` (2^14): the all-ones value means none.
const NO_CPU: u64 = (1 << CPU_BITS) - 1;
const WAKER_SHIFT: u32 = 32;
/// A gap: the task was dead (after its exit, before its pid was seen again without a fork).
const GAP: u64 = 7;

fn state_code(s: ThreadState) -> u64 {
    match s {
        ThreadState::Running => 0,
        ThreadState::RunnableWakeup => 1,
        ThreadState::RunnablePreempted => 2,
        ThreadState::Sleeping => 3,
        ThreadState::Blocked => 4,
        ThreadState::Unknown => 5,
    }
}

fn end_code(e: EndReason) -> u64 {
    match e {
        EndReason::SwitchedIn => 0,
        EndReason::SwitchedOut(r) => 1 + r.index() as u64,
        EndReason::Woken => 5,
        EndReason::LostTrack => 6,
        EndReason::TraceEnd => 7,
    }
}

/// What [`Interval::new`] stores; `None` state is a gap (dead time).
pub(crate) struct Fields {
    pub(crate) state: Option<ThreadState>,
    pub(crate) end: EndReason,
    pub(crate) cpu: Option<u32>,
    pub(crate) waker: Option<i32>,
    pub(crate) untimed: bool,
}

impl Interval {
    pub(crate) fn new(start_ns: u64, f: Fields) -> Interval {
        let state = f.state.map_or(GAP, state_code);
        let cpu = f.cpu.map_or(NO_CPU, |c| u64::from(c).min(NO_CPU - 1));
        let bits = state
            | end_code(f.end) << END_SHIFT
            | u64::from(f.untimed) << UNTIMED_SHIFT
            | cpu << CPU_SHIFT
            | u64::from(f.waker.unwrap_or(-1) as u32) << WAKER_SHIFT;
        Interval { start_ns, bits }
    }

    pub(crate) fn state(&self) -> Option<ThreadState> {
        Some(match self.bits & ((1 << STATE_BITS) - 1) {
            0 => ThreadState::Running,
            1 => ThreadState::RunnableWakeup,
            2 => ThreadState::RunnablePreempted,
            3 => ThreadState::Sleeping,
            4 => ThreadState::Blocked,
            5 => ThreadState::Unknown,
            _ => return None,
        })
    }

    pub(crate) fn cpu(&self) -> Option<u32> {
        let c = self.bits >> CPU_SHIFT & NO_CPU;
        (c != NO_CPU).then_some(c as u32)
    }

    fn end(&self) -> EndReason {
        match self.bits >> END_SHIFT & ((1 << END_BITS) - 1) {
            0 => EndReason::SwitchedIn,
            c @ 1..=4 => EndReason::SwitchedOut(SwitchReason::ALL[c as usize - 1]),
            5 => EndReason::Woken,
            6 => EndReason::LostTrack,
            _ => EndReason::TraceEnd,
        }
    }

    /// The interval's view, ending at `end_ns`; `None` for a gap.
    pub(crate) fn view(&self, end_ns: u64) -> Option<IntervalView> {
        let state = self.state()?;
        let waker = (self.bits >> WAKER_SHIFT) as u32 as i32;
        Some(IntervalView {
            start_ns: self.start_ns,
            dur_ns: end_ns - self.start_ns,
            state,
            cpu: self.cpu(),
            end: self.end(),
            waker_pid: (waker >= 0).then_some(waker),
            latency_timed: self.bits >> UNTIMED_SHIFT & 1 == 0,
        })
    }
}

/// The intervals of one task so far; `end_ns` is where the last one ended.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskLog {
    pub(crate) intervals: Vec<Interval>,
    pub(crate) end_ns: u64,
}

impl TaskLog {
    /// Appends the interval `[start, now)`. A task's intervals are contiguous apart from
    /// its time before the first transition, which is not an interval.
    #[inline]
    pub(crate) fn close(&mut self, start: u64, now: u64, fields: Fields) {
        debug_assert!(self.intervals.is_empty() || start == self.end_ns);
        self.intervals.push(Interval::new(start, fields));
        self.end_ns = now;
    }

    /// Moves the closed intervals to `out` as views (gaps left out), leaving the log empty
    /// and its end where it was: the next interval still starts there.
    pub(crate) fn drain_into(&mut self, out: &mut Vec<IntervalView>) {
        let ends = self.intervals.iter().skip(1).map(|next| next.start_ns);
        let ends = ends.chain(std::iter::once(self.end_ns));
        out.extend(
            self.intervals
                .iter()
                .zip(ends)
                .filter_map(|(iv, end)| iv.view(end)),
        );
        self.intervals.clear();
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        (self.intervals.capacity() * std::mem::size_of::<Interval>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_survives_the_packing() {
        for (state, end, cpu, waker, untimed) in [
            (
                ThreadState::Running,
                EndReason::SwitchedOut(SwitchReason::WakeupPreempt),
                Some(16_383),
                None,
                false,
            ),
            (
                ThreadState::RunnableWakeup,
                EndReason::SwitchedIn,
                Some(0),
                Some(0),
                true,
            ),
            (
                ThreadState::RunnableWakeup,
                EndReason::SwitchedIn,
                Some(3),
                Some(i32::MAX),
                false,
            ),
            (
                ThreadState::RunnablePreempted,
                EndReason::LostTrack,
                None,
                None,
                false,
            ),
            (ThreadState::Blocked, EndReason::Woken, None, None, false),
            (ThreadState::Unknown, EndReason::TraceEnd, None, None, false),
        ] {
            let i = Interval::new(
                u64::MAX - 10,
                Fields {
                    state: Some(state),
                    end,
                    cpu,
                    waker,
                    untimed,
                },
            );
            let v = i.view(u64::MAX).unwrap();
            assert_eq!(
                (
                    v.start_ns,
                    v.dur_ns,
                    v.state,
                    v.end,
                    v.cpu,
                    v.waker_pid,
                    v.latency_timed
                ),
                (u64::MAX - 10, 10, state, end, cpu, waker, !untimed)
            );
        }
        let gap = Interval::new(
            5,
            Fields {
                state: None,
                end: EndReason::Woken,
                cpu: None,
                waker: None,
                untimed: false,
            },
        );
        assert!(gap.state().is_none() && gap.view(9).is_none());
    }
}
