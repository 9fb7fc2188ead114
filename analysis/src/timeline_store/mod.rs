//! The timeline store (opt-in, `Config::timeline`): every closed interval of every task
//! — running, runnable after a wakeup or a preemption, sleeping, blocked, unknown — with
//! its CPU, start, duration, what ended it and the waker where known (Perfetto's
//! `thread_state` shape), plus a per-CPU summary pyramid for zoomed-out views.
//!
//! Recording costs one untaken branch per task transition when the store is off (the
//! task's `log` is None). When it is on, each interval takes 16 bytes in its task's log
//! ([`interval`]); the analyzer checks the total against `mem_limit_bytes` every
//! [`CHECK_EVERY`] events and, past it, drops the store and says so at the end
//! ([`TimelineError`]) rather than run the machine out of memory.
//!
//! Intervals are whole, not clipped to `--time` or `-C`: a view clips what it shows.

mod build;
mod interval;
mod pyramid;

pub(crate) use build::StoreState;
pub use interval::{EndReason, IntervalView, ThreadState};
pub(crate) use interval::{Fields, TaskLog};
pub use pyramid::BinSummary;

use crate::report::Window;
use interval::Interval;
use pyramid::Pyramid;

/// Default `--timeline-mem`: 512 MiB.
pub const DEFAULT_MEM_LIMIT: u64 = 512 << 20;
/// Events between two checks of the store's size against its limit.
pub(crate) const CHECK_EVERY: u32 = 1 << 16;

/// How the store is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineOptions {
    /// Heap bytes the intervals may take (`--timeline-mem`).
    pub mem_limit_bytes: u64,
}

impl Default for TimelineOptions {
    fn default() -> TimelineOptions {
        TimelineOptions {
            mem_limit_bytes: DEFAULT_MEM_LIMIT,
        }
    }
}

/// Why there is no timeline.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TimelineError {
    #[error(
        "the timeline store needed more than its limit of {limit_mib} MiB ({intervals} intervals \
         by trace time {at_s:.6} s) and was dropped; raise --timeline-mem or narrow the trace \
         with --time (the report itself is complete)"
    )]
    MemoryLimit {
        limit_mib: u64,
        intervals: u64,
        /// Trace time (s) of the event at which the limit was found exceeded.
        at_s: f64,
    },
}

/// One task (one pid lifetime) and its intervals.
#[derive(Debug, Clone)]
pub struct TaskTimeline {
    pub pid: i32,
    pub tgid: Option<i32>,
    /// The last name seen.
    pub comm: String,
    intervals: Vec<Interval>,
    /// End of the last interval.
    end_ns: u64,
}

impl TaskTimeline {
    /// Number of stored intervals (dead gaps between a pid's exit and its reuse included).
    pub fn len(&self) -> usize {
        self.intervals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    fn end_of(&self, i: usize) -> u64 {
        self.intervals
            .get(i + 1)
            .map_or(self.end_ns, |next| next.start_ns)
    }

    fn view(&self, i: usize) -> Option<IntervalView> {
        self.intervals[i].view(self.end_of(i))
    }

    /// Every interval in time order.
    pub fn intervals(&self) -> impl Iterator<Item = IntervalView> + '_ {
        (0..self.intervals.len()).filter_map(|i| self.view(i))
    }

    /// The intervals overlapping `[start_ns, end_ns)`, in time order: O(log n + k).
    pub fn intervals_in(
        &self,
        start_ns: u64,
        end_ns: u64,
    ) -> impl Iterator<Item = IntervalView> + '_ {
        // The first interval ending after `start_ns`: the one before the first that starts after it.
        let first = self
            .intervals
            .partition_point(|iv| iv.start_ns <= start_ns)
            .saturating_sub(1);
        (first..self.intervals.len())
            .take_while(move |&i| self.intervals[i].start_ns < end_ns)
            .filter_map(|i| self.view(i))
            .filter(move |v| v.end_ns() > start_ns || v.start_ns >= start_ns)
    }
}

/// The timeline of a whole trace.
#[derive(Debug, Clone)]
pub struct Timeline {
    window: Window,
    tasks: Vec<TaskTimeline>,
    /// Per CPU, its running intervals in time order as (task index, interval index).
    slices: Vec<Vec<(u32, u32)>>,
    pyramids: Vec<Pyramid>,
}

impl Timeline {
    /// The report's window (first to last event, clipped to `--time`).
    pub fn window(&self) -> Window {
        self.window
    }

    /// One entry per pid lifetime, in order of first sight.
    pub fn tasks(&self) -> &[TaskTimeline] {
        &self.tasks
    }

    /// CPUs seen running a task (numbers below it may be idle or offline).
    pub fn cpu_count(&self) -> u32 {
        self.slices.len() as u32
    }

    /// The running intervals on `cpu` overlapping `[start_ns, end_ns)`, in time order, with
    /// the index of their task in [`Timeline::tasks`]: O(log n + k).
    pub fn cpu_slices(
        &self,
        cpu: u32,
        start_ns: u64,
        end_ns: u64,
    ) -> impl Iterator<Item = (usize, IntervalView)> + '_ {
        let list = self.slices.get(cpu as usize).map_or(&[][..], |v| &v[..]);
        let view = move |&(t, i): &(u32, u32)| {
            let task = &self.tasks[t as usize];
            (
                t as usize,
                task.view(i as usize)
                    .expect("running intervals are no gaps"),
            )
        };
        // Running intervals of one CPU do not overlap: ordered by start, they are ordered by end.
        let first = list.partition_point(|e| view(e).1.end_ns() <= start_ns);
        list[first..]
            .iter()
            .map(view)
            .take_while(move |(_, v)| v.start_ns < end_ns)
    }

    /// `columns` equal bins over `[start_ns, end_ns)` on `cpu`: busy time, mean queue depth
    /// and the task that ran most, from the summary pyramid. O(columns) whatever the span;
    /// bins finer than the pyramid's finest level share its values pro rata.
    pub fn cpu_summary(
        &self,
        cpu: u32,
        start_ns: u64,
        end_ns: u64,
        columns: usize,
    ) -> Vec<BinSummary> {
        match self.pyramids.get(cpu as usize) {
            Some(p) => p.summary(start_ns, end_ns, columns),
            None => pyramid::empty(start_ns, end_ns, columns),
        }
    }

    /// Heap bytes of the stored intervals and indexes.
    pub fn memory_bytes(&self) -> u64 {
        let intervals: usize = self.tasks.iter().map(|t| t.intervals.capacity() * 16).sum();
        let slices: usize = self.slices.iter().map(|s| s.capacity() * 8).sum();
        let pyramids: u64 = self.pyramids.iter().map(Pyramid::bytes).sum();
        intervals as u64 + slices as u64 + pyramids
    }
}
