//! Draining (opt-in, for `schedtrace export`): the timeline store's closed intervals and
//! the per-event records handed to a [`Drain`] in chunks while the trace is read, instead
//! of being kept to the end. Memory then holds what [`Drain::every`] events make, not the
//! whole trace; the series' interval sums are taken from the same chunks
//! ([`crate::series_sums`]), so the report is the one the store would have given.
//!
//! What a drain sees differs from the finished store in one way: a task is named as it
//! was when its chunk was drained (its last name by then), where the store names every
//! interval of a task with its last name of all.

use crate::analyzer::Analyzer;
use crate::metrics::records::{PreemptionRecord, WaitRecord};
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

/// The analyzer's side of a drain.
pub(crate) struct Draining {
    sink: Box<dyn Drain>,
    /// [`Drain::every`].
    pub every: u32,
    /// The series' interval sums, when `Config::series` asks for a series.
    pub sums: Option<IntervalSums>,
    /// Reused buffer of one task's views.
    views: Vec<IntervalView>,
}

impl Analyzer {
    /// Hands intervals and records to `sink` as the trace is read (before any event: the
    /// store and records are turned on, without their memory limits, which a drain does
    /// not need). The report's `records` are then empty and no store is given back.
    pub fn drain_into(&mut self, sink: Box<dyn Drain>) {
        debug_assert!(
            self.first_ts.is_none(),
            "a drain starts before the first event"
        );
        if self.store.is_none() {
            self.store = Some(crate::timeline_store::StoreState::new(
                crate::TimelineOptions::default(),
            ));
        }
        self.records = Some(Box::new(crate::metrics::records::Recorder::new(u64::MAX)));
        if let Some(store) = &mut self.store {
            store.countdown = sink.every().max(1);
        }
        self.drain = Some(Box::new(Draining {
            every: sink.every().max(1),
            sink,
            sums: None,
            views: Vec::new(),
        }));
    }

    /// Whether a drain takes the store's intervals (then no memory limit applies).
    pub(crate) fn draining(&self) -> bool {
        self.drain.is_some()
    }

    /// Drains every closed interval of `tasks` and every record (every [`Drain::every`]
    /// events, and once at the end with `last` set, after every interval was closed).
    pub(crate) fn drain_now(&mut self, tasks: &mut [Task], last: bool) {
        let Some(mut d) = self.drain.take() else {
            return;
        };
        let Some(first) = self.first_ts else {
            self.drain = Some(d);
            return;
        };
        let start = first.max(self.scope.start);
        let window = Window {
            start_ns: start,
            end_ns: self.now.min(self.scope.end).max(start),
        };
        if d.sums.is_none() {
            if let Some(counts) = &self.series {
                d.sums = Some(IntervalSums::new(start, counts.window_ns));
            }
        }
        // No interval closed from now on starts before a waiting task's wait (or now).
        let mut watermark = self.now;
        for t in tasks.iter_mut() {
            let Some(log) = t.log.as_mut() else { continue };
            if matches!(t.state, State::Runnable { .. }) {
                watermark = watermark.min(t.since);
            }
            if log.is_empty() {
                continue;
            }
            d.views.clear();
            log.drain_into(&mut d.views);
            if let Some(sums) = &mut d.sums {
                for v in &d.views {
                    sums.add(v, &self.scope);
                }
            }
            d.sink.intervals(&TaskInfo::of(t), &d.views, window);
        }
        if let Some(sums) = &mut d.sums {
            sums.sweep_until(if last { u64::MAX } else { watermark });
        }
        let map = self.cpu_map();
        if let Some(recorder) = &mut self.records {
            let records = recorder.take(map.as_ref());
            let tasks = &*tasks;
            let who = |pid: i32| self.find(pid).map(|s| TaskInfo::of(&tasks[s]));
            d.sink.waits(&records.waits, &who);
            d.sink.preemptions(&records.preemptions, &who);
        }
        self.drain = Some(d);
    }
}
