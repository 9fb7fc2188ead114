//! The normalized scheduler event model (`docs/metrics.md` §1).
//!
//! Every input format is reduced to these events. They are small `Copy` values
//! (task names are stored inline, no allocation per event) so that decoders can
//! hand them to the analysis one at a time without building a big vector.

pub use crate::mark::Mark;
pub(crate) use crate::mark::Marks;
use std::fmt;

/// Kernel `TASK_COMM_LEN`: task names are at most 15 bytes plus a NUL.
pub(crate) const COMM_LEN: usize = 16;

/// A task name stored inline: its bytes up to the first NUL (at most 16), zero after them.
///
/// The length is not stored: every byte past the name is zero, so equal names are equal
/// arrays, and the length is found only where the text is read (the report), while names
/// are built and compared at every event.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Comm {
    bytes: [u8; COMM_LEN],
}

impl Comm {
    /// Builds a name from raw bytes: stops at the first NUL, keeps at most 16 bytes.
    #[inline]
    pub fn from_bytes(raw: &[u8]) -> Comm {
        let n = raw.len().min(COMM_LEN);
        let mut bytes = [0u8; COMM_LEN];
        bytes[..n].copy_from_slice(&raw[..n]);
        // The bytes from the first NUL on are cleared with one word-wide test instead of a
        // byte loop: this runs for every task name of every event.
        let word = u128::from_le_bytes(bytes);
        const ONES: u128 = u128::from_le_bytes([0x01; COMM_LEN]);
        const HIGHS: u128 = u128::from_le_bytes([0x80; COMM_LEN]);
        // The lowest set bit marks the first zero byte exactly (borrows only affect higher bytes).
        let zeros = word.wrapping_sub(ONES) & !word & HIGHS;
        // Everything below that marker bit: the name, and the NUL's own (zero) low bits;
        // every bit when there is no NUL. No shift by a variable amount, no branch.
        let first_zero = zeros & zeros.wrapping_neg();
        let kept = word & first_zero.wrapping_sub(1);
        Comm {
            bytes: kept.to_le_bytes(),
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        let len = self.bytes.iter().position(|&b| b == 0).unwrap_or(COMM_LEN);
        &self.bytes[..len]
    }

    /// The name as text; invalid UTF-8 is replaced, never an error.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf8_lossy(self.as_bytes()).into_owned()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes[0] == 0
    }
}

impl From<&str> for Comm {
    fn from(s: &str) -> Comm {
        Comm::from_bytes(s.as_bytes())
    }
}

impl fmt::Debug for Comm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

impl fmt::Display for Comm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// What `prev_state` of a `sched_switch` means for the task that leaves the CPU,
/// already decoded from the event's own print format (formats.md §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrevState {
    /// `R`: still runnable, switched out without a preemption mark (yield, some preempt paths).
    Runnable,
    /// `R+`: preempted while runnable.
    Preempted,
    /// `S` or `I`: interruptible sleep / idle kthread wait.
    Sleeping,
    /// `D`, `T`, `t`, `P`, `K`, `W`, `N` and other non-runnable, non-dead states.
    Blocked,
    /// `X`, `Z`, `x`: the task is exiting.
    Dead,
}

impl PrevState {
    /// True for `R` and `R+`: the task stays on a runqueue (an involuntary switch).
    pub fn is_runnable(self) -> bool {
        matches!(self, PrevState::Runnable | PrevState::Preempted)
    }
}

/// A task as named by an event: pid (kernel tid), name and kernel priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskRef {
    pub pid: i32,
    pub comm: Comm,
    /// Kernel priority 0..139 (120 = nice 0, below 100 = real-time); -1 when unknown.
    pub prio: i32,
}

/// The event-specific part of an [`Event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The CPU stops running `prev` and starts `next`.
    Switch {
        prev: TaskRef,
        prev_state: PrevState,
        next: TaskRef,
    },
    /// `sched_waking`: try_to_wake_up started (on the waker's CPU).
    Waking { task: TaskRef, target_cpu: i32 },
    /// `sched_wakeup`: the task was enqueued on `target_cpu`.
    Wakeup { task: TaskRef, target_cpu: i32 },
    /// `sched_wakeup_new`: a new task was enqueued for the first time.
    WakeupNew { task: TaskRef, target_cpu: i32 },
    /// `sched_migrate_task`: the task was moved between runqueues.
    Migrate {
        task: TaskRef,
        orig_cpu: i32,
        dest_cpu: i32,
    },
    /// `sched_process_fork`.
    Fork {
        parent_pid: i32,
        child_pid: i32,
        child_comm: Comm,
    },
    /// `sched_process_exit`.
    Exit { pid: i32 },
    /// `sched_process_free`.
    Free { pid: i32 },
    /// A task name or process id learnt from the trace (perf COMM records, exec, saved tgids).
    /// `tgid` is -1 when unknown.
    TaskName { pid: i32, tgid: i32, comm: Comm },
    /// The recorder dropped events on this CPU here; `count` is `None` when unknown.
    Lost { count: Option<u64> },
    /// Any other event (counted by the ingest; the analysis only uses its time).
    Other,
    /// An ftrace `print` (a `trace_marker` write of the workload): for the analysis like
    /// [`EventKind::Other`]; its text is kept for `convert`.
    Print { text: Mark },
    /// `power:cpu_idle`: CPU `cpu_id` enters idle state `state` (the cpuidle driver's state
    /// index), or leaves the one it was in when `state` is [`EventKind::IDLE_EXIT`].
    CpuIdle { state: u32, cpu_id: u32 },
}

impl EventKind {
    /// The name of every kind, in the order of [`EventKind::index`]: the kernel's event name
    /// for the sched kinds (as `trace-cmd report` and `perf script` count them).
    pub const NAMES: [&'static str; 13] = [
        "sched_switch",
        "sched_waking",
        "sched_wakeup",
        "sched_wakeup_new",
        "sched_migrate_task",
        "sched_process_fork",
        "sched_process_exit",
        "sched_process_free",
        "task_name",
        "lost",
        "other",
        "print",
        "cpu_idle",
    ];

    /// The `state` of a `power:cpu_idle` that leaves idle (`PWR_EVENT_EXIT`, -1 as a u32).
    pub const IDLE_EXIT: u32 = u32::MAX;

    /// A dense index of the kind (for per-kind counters without a map).
    pub fn index(&self) -> usize {
        match self {
            EventKind::Switch { .. } => 0,
            EventKind::Waking { .. } => 1,
            EventKind::Wakeup { .. } => 2,
            EventKind::WakeupNew { .. } => 3,
            EventKind::Migrate { .. } => 4,
            EventKind::Fork { .. } => 5,
            EventKind::Exit { .. } => 6,
            EventKind::Free { .. } => 7,
            EventKind::TaskName { .. } => 8,
            EventKind::Lost { .. } => 9,
            EventKind::Other => 10,
            EventKind::Print { .. } => 11,
            EventKind::CpuIdle { .. } => 12,
        }
    }

    pub fn name(&self) -> &'static str {
        EventKind::NAMES[self.index()]
    }
}

/// One normalized event: when, where, who was running, and what happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Nanoseconds of the trace clock.
    pub ts: u64,
    pub cpu: u32,
    /// pid of the task that was running when the event fired (`common_pid`; for
    /// `sched_waking` this is the waker); -1 when the format does not say.
    pub current_pid: i32,
    pub kind: EventKind,
}

// A marker's text must not make every event larger: it is held apart (see `Mark`).
const _: () = assert!(std::mem::size_of::<Mark>() == 4);

/// Receives events in global timestamp order.
pub trait EventSink {
    fn event(&mut self, event: &Event);

    /// A batch of events in order, as a reader on another thread hands them over: one call
    /// per batch through each layer of sinks (progress count, defaults) instead of one per
    /// event, so that a sink's own [`EventSink::event`] is called directly and can be inlined.
    #[inline]
    fn events(&mut self, events: &[Event]) {
        for event in events {
            self.event(event);
        }
    }

    /// What the reader knows about the trace before its first event (kernel release,
    /// topology), for sinks whose one pass depends on it (priority-to-weight mapping of
    /// the scheduler family, per-LLC accounting). Called at most once, before any
    /// `event`; readers that learn nothing up front do not call it. The full metadata is
    /// still returned in [`crate::Ingested`].
    fn meta(&mut self, _meta: &crate::TraceMeta) {}

    /// The table of this read's `print` marker texts (see [`Mark`]), for sinks that need the
    /// texts while the events stream (`convert`'s writer). Called once, before any `event`, by
    /// the read functions of the crate (`read_path`, `read_bytes`, each format's `read`); the
    /// same table is returned in [`crate::Ingested::marks`].
    fn marks(&mut self, _marks: &Marks) {}
}

impl<F: FnMut(&Event)> EventSink for F {
    fn event(&mut self, event: &Event) {
        self(event)
    }
}
