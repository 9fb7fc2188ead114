//! Draining (opt-in, for `schedtrace export`): the timeline store's closed intervals and
//! the per-event records handed to a [`Drain`] in chunks while the trace is read, instead
//! of being kept to the end. Memory then holds what [`Drain::every`] events make, not the
//! whole trace; the series' interval sums are taken from the same chunks
//! ([`crate::series_sums`]), so the report is the one the store would have given.
//!
//! What a drain sees differs from the finished store in one way: a task is named as it
//! was when its chunk was drained (its last name by then), where the store names every
//! interval of a task with its last name of all.

use crate::metrics::records::{EventRecords, PreemptionRecord, WaitRecord};
use crate::scope::Scope;
use crate::series_sums::IntervalSums;
use crate::timeline::{State, Task};
use crate::timeline_store::{IntervalView, CHECK_EVERY};
use crate::window::Window;
use std::borrow::Cow;

/// A task as a drain names it.
#[derive(Debug, Clone)]
pub struct TaskInfo<'a> {
    pub pid: i32,
    /// None when the trace has not said.
    pub tgid: Option<i32>,
    /// Its last name so far.
    pub comm: Cow<'a, str>,
}

impl TaskInfo<'_> {
    fn of(t: &Task) -> TaskInfo<'_> {
        TaskInfo {
            pid: t.pid,
            tgid: (t.tgid >= 0).then_some(t.tgid),
            comm: String::from_utf8_lossy(t.comm.as_bytes()),
        }
    }
}

/// Finds the task a record's pid names now.
pub type Who<'a> = dyn Fn(i32) -> Option<TaskInfo<'a>> + 'a;

/// Where drained chunks go (an export's table writers). Errors are the drain's to keep
/// (the analysis goes on and gives its report).
pub trait Drain: Send {
    /// Closed intervals of `task`, in time order; a later call for the same task goes on
    /// where this one stopped. `window` is the report's window as far as known (its end
    /// is the present, or `--time`'s end): what lies after its end is outside it.
    fn intervals(&mut self, task: &TaskInfo, intervals: &[IntervalView], window: Window);
    /// Waits that ended in a switch-in, in event order, placement classified.
    fn waits(&mut self, waits: &[WaitRecord], who: &Who);
    /// Wakeup preemptions, in event order.
    fn preemptions(&mut self, preemptions: &[PreemptionRecord], who: &Who);
    /// Events between two drains: what memory holds is what these many events make.
    fn every(&self) -> u32 {
        CHECK_EVERY
    }
}

/// The engine's side of a drain: the sink, and what it keeps between drains.
pub(crate) struct Draining {
    sink: Box<dyn Drain>,
    /// [`Drain::every`].
    pub(crate) every: u32,
    /// The series' interval sums, when `Config::series` asks for a series.
    pub(crate) sums: Option<IntervalSums>,
    /// Reused buffer of one task's views.
    views: Vec<IntervalView>,
}

/// Where the pass is when a drain is made.
pub(crate) struct DrainPoint<'a> {
    /// The report's window as far as known.
    pub(crate) window: Window,
    /// The time of the event being processed (the end of the trace for the last drain).
    pub(crate) now: u64,
    pub(crate) scope: &'a Scope,
    /// The series' window length when `--series` asks for one.
    pub(crate) series_window_ns: Option<u64>,
    /// The last drain, after every interval was closed.
    pub(crate) last: bool,
}

impl Draining {
    pub(crate) fn new(sink: Box<dyn Drain>) -> Draining {
        Draining {
            every: sink.every().max(1),
            sink,
            sums: None,
            views: Vec::new(),
        }
    }

    /// Hands every closed interval of `tasks` and the `records` taken since the last drain
    /// to the sink. `find` gives the slot in `tasks` of a pid's current task.
    pub(crate) fn drain(
        &mut self,
        tasks: &mut [Task],
        at: DrainPoint,
        records: Option<EventRecords>,
        find: impl Fn(i32) -> Option<usize>,
    ) {
        if self.sums.is_none() {
            if let Some(len) = at.series_window_ns {
                self.sums = Some(IntervalSums::new(at.window.start_ns, len));
            }
        }
        // No interval closed from now on starts before a waiting task's wait (or now).
        let mut watermark = at.now;
        for t in tasks.iter_mut() {
            let Some(log) = t.log.as_mut() else { continue };
            if matches!(t.state, State::Runnable { .. }) {
                watermark = watermark.min(t.since);
            }
            if log.is_empty() {
                continue;
            }
            self.views.clear();
            log.drain_into(&mut self.views);
            if let Some(sums) = &mut self.sums {
                for v in &self.views {
                    sums.add(v, at.scope);
                }
            }
            self.sink
                .intervals(&TaskInfo::of(t), &self.views, at.window);
        }
        if let Some(sums) = &mut self.sums {
            sums.sweep_until(if at.last { u64::MAX } else { watermark });
        }
        if let Some(records) = records {
            let tasks = &*tasks;
            let who = |pid: i32| find(pid).map(|s| TaskInfo::of(&tasks[s]));
            self.sink.waits(&records.waits, &who);
            self.sink.preemptions(&records.preemptions, &who);
        }
    }
}
