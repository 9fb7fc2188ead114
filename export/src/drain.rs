//! The per-event tables written as the trace is read: the analysis hands its closed
//! intervals and records over in chunks ([`analysis::drain`]); [`DrainedTables`] makes each
//! chunk an owned batch ([`crate::batch`]; records and intervals are moved, not copied)
//! and sends it to the writers of `intervals` and `slices` (one thread: a task's run of
//! intervals is read once for both), `waits` and `preemptions`, each set on its own
//! writer thread ([`crate::writer_thread`]), so memory holds a few chunks, not the trace's
//! millions of rows, and the rows are formatted beside the analysis rather than on its
//! thread.

use crate::batch::{self, Batch, IntervalRows, Named, PreemptionRows, Segment, WaitRows};
use crate::cell::RowSink;
use crate::tables::{self, Table};
use crate::write::{self, Format};
use crate::writer_thread::{self, BatchSender, Sinks, WriterThread};
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
pub(crate) struct DrainedTables {
    /// Every name the analysis gave, in id order.
    names: Vec<Named>,
    /// The writer thread of the `intervals` and `slices` tables (either or both).
    intervals: Option<BatchSender<IntervalRows>>,
    waits: Option<BatchSender<WaitRows>>,
    preemptions: Option<BatchSender<PreemptionRows>>,
    /// Intervals not sent yet (the tasks of one drain come one call each).
    pending: IntervalRows,
    /// The views in `pending`.
    pending_views: usize,
}

/// Starts the writers of the drained tables among `tables`; `staged(table)` is where each
/// file goes. The drained tables go to the analysis; the writers are joined when it is done.
pub(crate) fn start(
    format: Format,
    tables: &[Table],
    staged: impl Fn(Table) -> PathBuf,
) -> Result<(DrainedTables, Vec<WriterThread>), String> {
    let mut drained = DrainedTables::default();
    let mut writing = Vec::new();
    // `intervals` and `slices` on one thread: each task's run of intervals is read once
    // for both, while it is in the cache.
    let mut interval_tables = Vec::new();
    for &table in tables.iter().filter(|t| t.drained()) {
        let path = staged(table);
        let writer = write::create(format, &path, &table.columns())
            .map_err(writer_thread::shown(table, &path))?;
        match table {
            Table::Slices | Table::Intervals => interval_tables.push((table, path, writer)),
            Table::Waits => {
                let (sender, w) = writer_thread::spawn(vec![(table, path, writer)], write_waits)?;
                drained.waits = Some(sender);
                writing.push(w);
            }
            _ => {
                let (sender, w) =
                    writer_thread::spawn(vec![(table, path, writer)], write_preemptions)?;
                drained.preemptions = Some(sender);
                writing.push(w);
            }
        }
    }
    if !interval_tables.is_empty() {
        // The thread is named after its first table: `intervals`, the larger.
        interval_tables.sort_by_key(|(t, _, _)| *t != Table::Intervals);
        let (sender, w) = writer_thread::spawn(interval_tables, write_intervals)?;
        drained.intervals = Some(sender);
        writing.push(w);
    }
    Ok((drained, writing))
}

/// Waits for every writer; the rows written, or the first error.
pub(crate) fn finish(writing: Vec<WriterThread>) -> Result<u64, String> {
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

type BatchResult = Result<(), (usize, std::io::Error)>;

/// The `intervals` and `slices` rows (those of the two the thread writes) of each task's
/// runs of intervals, a run given to one table and then the other.
fn write_intervals(rows: &IntervalRows, names: &[Named], sinks: &mut Sinks<'_>) -> BatchResult {
    for segment in rows {
        let task = batch::named(names, segment.task);
        for views in segment.runs_of_rows() {
            for (i, (table, sink)) in sinks.iter_mut().enumerate() {
                let written = match table {
                    Table::Intervals => interval_rows(task, views, sink),
                    Table::Slices => slice_rows(task, views, sink),
                    other => Err(std::io::Error::other(format!(
                        "internal error: the {} table in the intervals' writer thread",
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

fn write_waits(rows: &WaitRows, names: &[Named], sinks: &mut Sinks<'_>) -> BatchResult {
    writer_thread::each(sinks, |sink| wait_rows(rows, names, sink))
}

fn write_preemptions(rows: &PreemptionRows, names: &[Named], sinks: &mut Sinks<'_>) -> BatchResult {
    writer_thread::each(sinks, |sink| preemption_rows(rows, names, sink))
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

impl DrainedTables {
    /// Sends the gathered intervals to the writer thread of the `intervals` and `slices` tables.
    fn flush_intervals(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let Some(sender) = &mut self.intervals else {
            self.pending.clear();
            self.pending_views = 0;
            return;
        };
        let batch = Arc::new(Batch {
            names: sender.unsent(&self.names),
            // Segments only (a task's views stay in its own vector): growing the next
            // batch's list from nothing copies a few hundred small entries, not the views.
            rows: std::mem::take(&mut self.pending),
        });
        self.pending_views = 0;
        sender.send(batch, self.names.len());
    }
}

/// The last intervals go out when the analysis is done with its drain.
impl Drop for DrainedTables {
    fn drop(&mut self) {
        self.flush_intervals();
    }
}

/// The [`Drain`] the analysis owns; the export keeps the other handle and takes the
/// drained tables back (and drops it, which ends the writers' input) when the analysis is done.
pub(crate) struct DrainHandle(pub(crate) Arc<Mutex<DrainedTables>>);

impl DrainHandle {
    fn tables(&mut self) -> std::sync::MutexGuard<'_, DrainedTables> {
        // Never poisoned by the export (its code under the lock does not panic but by a
        // bug), and poisoned tables are still ones to send from.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drain for DrainHandle {
    fn names(&mut self, names: &[TaskInfo]) {
        let f = &mut *self.tables();
        f.names.extend(names.iter().map(|t| Named {
            pid: t.pid,
            tgid: t.tgid,
            comm: Arc::from(t.comm.as_str()),
        }));
    }

    fn intervals(&mut self, task: NameId, views: Vec<IntervalView>, window: Window) {
        let f = &mut *self.tables();
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
        let f = &mut *self.tables();
        // A drain's intervals all come before its records: they are complete now.
        f.flush_intervals();
        send_records(&f.names, &mut f.waits, (waits, tasks));
    }

    fn preemptions(&mut self, preemptions: Vec<PreemptionRecord>, tasks: Vec<[Option<NameId>; 3]>) {
        let f = &mut *self.tables();
        f.flush_intervals();
        send_records(&f.names, &mut f.preemptions, (preemptions, tasks));
    }
}

/// Sends `rows` (records and their names' ids) to `sender` when that table is written.
fn send_records<R, I>(
    names: &[Named],
    sender: &mut Option<BatchSender<(Vec<R>, Vec<I>)>>,
    rows: (Vec<R>, Vec<I>),
) {
    let Some(sender) = sender else { return };
    if rows.0.is_empty() {
        return;
    }
    let batch = Batch {
        names: sender.unsent(names),
        rows,
    };
    sender.send(Arc::new(batch), names.len());
}
