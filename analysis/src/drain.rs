//! Draining (opt-in, for `schedtrace export`): the timeline store's closed intervals and
//! the per-event records handed to a [`Drain`] in chunks while the trace is read, instead
//! of being kept to the end. Memory then holds what [`Drain::every`] events make, not the
//! whole trace; the series' interval sums are taken from the same chunks
//! ([`crate::series_sums`]), so the report is the one the store would have given.
//!
//! What a drain sees differs from the finished store in one way: a task is named as it
//! was when its chunk was drained (its last name by then), where the store names every
//! interval of a task with its last name of all.
//!
//! Tasks are named by id ([`NameId`]): a name (pid, tgid, comm) is handed over once, when
//! a drain first needs it or after it changed, and the intervals and records carry its
//! id. Before, every record came with a lookup of its task and a copy of its name: three
//! per wakeup preemption, a tenth of the analysing thread in an export.

use crate::metrics::records::{EventRecords, PreemptionRecord, WaitRecord};
use crate::scope::Scope;
use crate::series_sums::IntervalSums;
use crate::timeline::{State, Task};
use crate::timeline_store::{IntervalView, CHECK_EVERY};
use crate::window::Window;
use ingest::Comm;

/// A task as a drain names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    pub pid: i32,
    /// None when the trace has not said.
    pub tgid: Option<i32>,
    /// Its last name so far.
    pub comm: String,
}

impl TaskInfo {
    fn of(t: &Task) -> TaskInfo {
        TaskInfo {
            pid: t.pid,
            tgid: (t.tgid >= 0).then_some(t.tgid),
            comm: String::from_utf8_lossy(t.comm.as_bytes()).into_owned(),
        }
    }
}

/// The index of a name among all those given to [`Drain::names`], in the order given
/// (the first is 0).
pub type NameId = u32;

/// Where drained chunks go (an export's table writers). Errors are the drain's to keep
/// (the analysis goes on and gives its report).
///
/// Each name is given to [`Drain::names`] before the first call that carries its id.
pub trait Drain: Send {
    /// Names not given before: a task first drained, renamed, or its tgid learnt since.
    fn names(&mut self, names: &[TaskInfo]);
    /// Closed intervals of task `task`, in time order; a later call for the same task goes
    /// on where this one stopped. `window` is the report's window as far as known (its end
    /// is the present, or `--time`'s end): what lies after its end is outside it.
    /// The vector is the drain's to keep (handed over, not copied).
    fn intervals(&mut self, task: NameId, intervals: Vec<IntervalView>, window: Window);
    /// Waits that ended in a switch-in, in event order, placement classified; `tasks[i]`
    /// names the task `waits[i].pid` named when drained (None: no such task).
    fn waits(&mut self, waits: Vec<WaitRecord>, tasks: Vec<Option<NameId>>);
    /// Wakeup preemptions, in event order; `tasks[i]`: the waker's, wakee's and victim's
    /// names (None: no such task, or no waker known).
    fn preemptions(&mut self, preemptions: Vec<PreemptionRecord>, tasks: Vec<[Option<NameId>; 3]>);
    /// Events between two drains: what memory holds is what these many events make.
    fn every(&self) -> u32 {
        CHECK_EVERY
    }
}

/// The names given so far: per task slot, the id of its last name and what it was made of.
#[derive(Default)]
struct Names {
    by_slot: Vec<Option<(NameId, Comm, i32)>>,
    next: NameId,
    /// Made since they were last handed to the sink.
    fresh: Vec<TaskInfo>,
}

impl Names {
    /// The id of the name of `task` (in `slot`) now; a new one when it changed.
    fn of(&mut self, slot: usize, task: &Task) -> NameId {
        if self.by_slot.len() <= slot {
            self.by_slot.resize(slot + 1, None);
        }
        match self.by_slot[slot] {
            Some((id, comm, tgid)) if comm == task.comm && tgid == task.tgid => id,
            _ => {
                let id = self.next;
                self.next += 1;
                self.fresh.push(TaskInfo::of(task));
                self.by_slot[slot] = Some((id, task.comm, task.tgid));
                id
            }
        }
    }

    /// Hands the fresh names to `sink` (before the call that carries their ids).
    fn give(&mut self, sink: &mut dyn Drain) {
        if !self.fresh.is_empty() {
            sink.names(&self.fresh);
            self.fresh.clear();
        }
    }
}

/// The engine's side of a drain: the sink, and what it keeps between drains.
pub(crate) struct Draining {
    sink: Box<dyn Drain>,
    /// [`Drain::every`].
    pub(crate) every: u32,
    /// The series' interval sums, when `Config::series` asks for a series.
    pub(crate) sums: Option<IntervalSums>,
    names: Names,
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
            names: Names::default(),
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
        for (slot, t) in tasks.iter_mut().enumerate() {
            let Some(log) = t.log.as_ref() else { continue };
            if matches!(t.state, State::Runnable { .. }) {
                watermark = watermark.min(t.since);
            }
            if log.is_empty() {
                continue;
            }
            let id = self.names.of(slot, t);
            self.names.give(&mut *self.sink);
            let log = t.log.as_mut().expect("checked above");
            let views = log.take_views();
            if let Some(sums) = &mut self.sums {
                for v in &views {
                    sums.add(v, at.scope);
                }
            }
            self.sink.intervals(id, views, at.window);
            if t.state == State::Dead {
                // No interval comes after its exit: its room goes back now, or the
                // thousands of tasks a hackbench forks would each keep some to the end.
                log.shrink();
            }
        }
        if let Some(sums) = &mut self.sums {
            sums.sweep_until(if at.last { u64::MAX } else { watermark });
        }
        if let Some(records) = records {
            let tasks = &*tasks;
            let names = &mut self.names;
            let mut name = |pid: i32| find(pid).map(|s| names.of(s, &tasks[s]));
            let waits: Vec<Option<NameId>> = records.waits.iter().map(|w| name(w.pid)).collect();
            let preemptions: Vec<[Option<NameId>; 3]> = records
                .preemptions
                .iter()
                .map(|p| {
                    [
                        p.waker_pid.and_then(&mut name),
                        name(p.wakee_pid),
                        name(p.victim_pid),
                    ]
                })
                .collect();
            self.names.give(&mut *self.sink);
            self.sink.waits(records.waits, waits);
            self.sink.preemptions(records.preemptions, preemptions);
        }
    }
}
