//! The per-event tables written as the trace is read: the analysis hands its closed
//! intervals and records over in chunks ([`analysis::drain`]); [`Feeder`] makes each
//! chunk an owned batch ([`crate::batch`]; records and intervals are moved, not copied)
//! and sends it to the writers of `intervals` and `slices` (one thread: a task's run of
//! intervals is read once for both), `waits` and `preemptions`, each lane on its own
//! thread ([`crate::lane`]), so memory holds a few chunks, not the trace's
//! millions of rows, and the rows are formatted beside the analysis rather than on its
//! thread.

use crate::batch::{self, Batch, IntervalRows, Named, PreemptionRows, Segment, WaitRows};
use crate::cell::RowSink;
use crate::lane::{self, Feed, Sinks, Writing};
use crate::tables::{self, Table};
use crate::write::{self, Format};
use analysis::drain::{Drain, NameId, TaskInfo};
use analysis::records::{PreemptionRecord, WaitRecord};
use analysis::timeline_store::{IntervalView, ThreadState};
use analysis::Window;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Intervals gathered before they go to their writers: about one drain's worth.
const BATCH_VIEWS: usize = 1 << 16;

/// The analysing thread's side of the drained tables of one input.
#[derive(Default)]
pub(crate) struct Feeder {
    /// Every name the analysis gave, in id order.
    names: Vec<Named>,
    /// The lane of the `intervals` and `slices` tables (either or both).
    intervals: Option<Feed<IntervalRows>>,
    waits: Option<Feed<WaitRows>>,
    preemptions: Option<Feed<PreemptionRows>>,
    /// Intervals not sent yet (the tasks of one drain come one call each).
    pending: IntervalRows,
    /// The views in `pending`.
    pending_views: usize,
}

/// Starts the writers of the drained tables among `tables`; `staged(table)` is where each
/// file goes. The feeder goes to the analysis; the writers are joined when it is done.
pub(crate) fn start(
    format: Format,
    tables: &[Table],
    staged: impl Fn(Table) -> PathBuf,
) -> Result<(Feeder, Vec<Writing>), String> {
    let mut feeder = Feeder::default();
    let mut writing = Vec::new();
    // `intervals` and `slices` on one thread: each task's run of intervals is read once
    // for both, while it is in the cache.
    let mut interval_tables = Vec::new();
    for &table in tables.iter().filter(|t| t.drained()) {
        let path = staged(table);
        let writer =
            write::create(format, &path, &table.columns()).map_err(lane::shown(table, &path))?;
        match table {
            Table::Slices | Table::Intervals => interval_tables.push((table, path, writer)),
            Table::Waits => {
                let (feed, w) = lane::spawn(vec![(table, path, writer)], wait_lane)?;
                feeder.waits = Some(feed);
                writing.push(w);
            }
            _ => {
                let (feed, w) = lane::spawn(vec![(table, path, writer)], preemption_lane)?;
                feeder.preemptions = Some(feed);
                writing.push(w);
            }
        }
    }
    if !interval_tables.is_empty() {
        // The thread is named after its first table: `intervals`, the larger.
        interval_tables.sort_by_key(|(t, _, _)| *t != Table::Intervals);
        let (feed, w) = lane::spawn(interval_tables, interval_lane)?;
        feeder.intervals = Some(feed);
        writing.push(w);
    }
    Ok((feeder, writing))
}

/// Waits for every writer; the rows written, or the first error.
pub(crate) fn finish(writing: Vec<Writing>) -> Result<u64, String> {
    let mut rows = 0;
    let mut failed = None;
    for w in writing {
        match w.finish() {
            Ok(n) => rows += n,
            Err(e) => failed = failed.or(Some(e)),
        }
    }
    failed.map_or(Ok(rows), Err)
}

type LaneResult = Result<(), (usize, std::io::Error)>;

/// The `intervals` and `slices` rows (those of the two the lane writes) of each task's
/// runs of intervals, a run given to one table and then the other.
fn interval_lane(rows: &IntervalRows, names: &[Named], sinks: &mut Sinks<'_>) -> LaneResult {
    for segment in rows {
        let task = batch::named(names, segment.task);
        for views in segment.runs_of_rows() {
            for (i, (table, sink)) in sinks.iter_mut().enumerate() {
                let written = match table {
                    Table::Intervals => interval_rows(task, views, sink),
                    Table::Slices => slice_rows(task, views, sink),
                    other => Err(std::io::Error::other(format!(
                        "internal error: the {} table in the intervals' lane",
                        other.name()
                    ))),
                };
                written.map_err(|e| (i, e))?;
            }
        }
    }
    Ok(())
}

/// The `intervals` rows of `views` (a run of `task`'s).
fn interval_rows(
    task: &Named,
    views: &[IntervalView],
    sink: &mut dyn RowSink,
) -> std::io::Result<()> {
    views
        .iter()
        .try_for_each(|v| tables::intervals::row(task, v, sink))
}

/// The `slices` rows of `views` (a run of `task`'s): its running intervals.
fn slice_rows(task: &Named, views: &[IntervalView], sink: &mut dyn RowSink) -> std::io::Result<()> {
    views
        .iter()
        .filter(|v| v.state == ThreadState::Running)
        .try_for_each(|v| tables::slices::row(task, v, sink))
}

fn wait_lane(rows: &WaitRows, names: &[Named], sinks: &mut Sinks<'_>) -> LaneResult {
    lane::each(sinks, |sink| wait_rows(rows, names, sink))
}

fn preemption_lane(rows: &PreemptionRows, names: &[Named], sinks: &mut Sinks<'_>) -> LaneResult {
    lane::each(sinks, |sink| preemption_rows(rows, names, sink))
}

fn wait_rows(
    (waits, tasks): &WaitRows,
    names: &[Named],
    sink: &mut dyn crate::cell::RowSink,
) -> std::io::Result<()> {
    waits
        .iter()
        .zip(tasks)
        .try_for_each(|(w, task)| tables::waits::row(w, task.map(|t| batch::named(names, t)), sink))
}

fn preemption_rows(
    (preemptions, tasks): &PreemptionRows,
    names: &[Named],
    sink: &mut dyn crate::cell::RowSink,
) -> std::io::Result<()> {
    preemptions
        .iter()
        .zip(tasks)
        .try_for_each(|(p, [waker, wakee, victim])| {
            // pid 0 is no task: an interrupt on an idle CPU.
            let name = |pid: Option<i32>, id: &Option<NameId>| match pid {
                Some(0) => Some(tables::preemptions::IDLE),
                _ => id.map(|t| &*batch::named(names, t).comm),
            };
            let named = [
                name(p.waker_pid, waker),
                name(Some(p.wakee_pid), wakee),
                name(Some(p.victim_pid), victim),
            ];
            tables::preemptions::row(p, &named, sink)
        })
}

impl Feeder {
    /// Sends the gathered intervals to the lane of the `intervals` and `slices` tables.
    fn flush_intervals(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let Some(feed) = &mut self.intervals else {
            self.pending.clear();
            self.pending_views = 0;
            return;
        };
        let batch = Arc::new(Batch {
            names: feed.unsent(&self.names),
            // Segments only (a task's views stay in its own vector): growing the next
            // batch's list from nothing copies a few hundred small entries, not the views.
            rows: std::mem::take(&mut self.pending),
        });
        self.pending_views = 0;
        feed.send(batch, self.names.len());
    }
}

/// The last intervals go out when the analysis is done with its drain.
impl Drop for Feeder {
    fn drop(&mut self) {
        self.flush_intervals();
    }
}

/// The [`Drain`] the analysis owns; the export keeps the other handle and takes the
/// feeder back (and drops it, which ends the writers' input) when the analysis is done.
pub(crate) struct Shared(pub(crate) Arc<Mutex<Feeder>>);

impl Shared {
    fn feeder(&mut self) -> std::sync::MutexGuard<'_, Feeder> {
        // Never poisoned by the export (its code under the lock does not panic but by a
        // bug), and a poisoned feeder is still one to send from.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drain for Shared {
    fn names(&mut self, names: &[TaskInfo]) {
        let f = &mut *self.feeder();
        f.names.extend(names.iter().map(|t| Named {
            pid: t.pid,
            tgid: t.tgid,
            comm: Arc::from(t.comm.as_str()),
        }));
    }

    fn intervals(&mut self, task: NameId, views: Vec<IntervalView>, window: Window) {
        let f = &mut *self.feeder();
        if f.intervals.is_none() {
            return;
        }
        // Filtered to the window by the writers, off this thread.
        f.pending_views += views.len();
        f.pending.push(Segment {
            task,
            views,
            window,
        });
        if f.pending_views >= BATCH_VIEWS {
            f.flush_intervals();
        }
    }

    fn waits(&mut self, waits: Vec<WaitRecord>, tasks: Vec<Option<NameId>>) {
        let f = &mut *self.feeder();
        // A drain's intervals all come before its records: they are complete now.
        f.flush_intervals();
        send_records(&f.names, &mut f.waits, (waits, tasks));
    }

    fn preemptions(&mut self, preemptions: Vec<PreemptionRecord>, tasks: Vec<[Option<NameId>; 3]>) {
        let f = &mut *self.feeder();
        f.flush_intervals();
        send_records(&f.names, &mut f.preemptions, (preemptions, tasks));
    }
}

/// Sends `rows` (records and their names' ids) to `feed` when that table is written.
fn send_records<R, I>(
    names: &[Named],
    feed: &mut Option<Feed<(Vec<R>, Vec<I>)>>,
    rows: (Vec<R>, Vec<I>),
) {
    let Some(feed) = feed else { return };
    if rows.0.is_empty() {
        return;
    }
    let batch = Batch {
        names: feed.unsent(names),
        rows,
    };
    feed.send(Arc::new(batch), names.len());
}
