//! The per-event tables written as the trace is read: the analysis hands its closed
//! intervals and records over in chunks ([`analysis::drain`]); [`Feeder`] copies each
//! chunk into an owned batch ([`crate::batch`]) and sends it to the `slices`,
//! `intervals`, `waits` and `preemptions` writers, each on its own thread
//! ([`crate::lane`]), so memory holds a few chunks, not the trace's millions of rows, and
//! the rows are formatted beside the analysis rather than on its thread.

use crate::batch::{IntervalBatch, Names, PreemptionBatch, WaitBatch};
use crate::lane::{self, Feed, Writing};
use crate::tables::{self, in_window, Table};
use crate::write::{self, Format};
use analysis::drain::{Drain, TaskInfo, Who};
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
    names: Names,
    intervals: Option<Feed<IntervalBatch>>,
    slices: Option<Feed<IntervalBatch>>,
    waits: Option<Feed<WaitBatch>>,
    preemptions: Option<Feed<PreemptionBatch>>,
    /// Intervals not sent yet (the tasks of one drain come one call each).
    pending: IntervalBatch,
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
    for &table in tables.iter().filter(|t| t.drained()) {
        let path = staged(table);
        let writer =
            write::create(format, &path, &table.columns()).map_err(lane::shown(table, &path))?;
        match table {
            Table::Slices => {
                let (feed, w) = lane::spawn(table, path, writer, slice_rows)?;
                feeder.slices = Some(feed);
                writing.push(w);
            }
            Table::Intervals => {
                let (feed, w) = lane::spawn(table, path, writer, interval_rows)?;
                feeder.intervals = Some(feed);
                writing.push(w);
            }
            Table::Waits => {
                let (feed, w) = lane::spawn(table, path, writer, wait_rows)?;
                feeder.waits = Some(feed);
                writing.push(w);
            }
            _ => {
                let (feed, w) = lane::spawn(table, path, writer, preemption_rows)?;
                feeder.preemptions = Some(feed);
                writing.push(w);
            }
        }
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

fn interval_rows(b: &IntervalBatch, sink: &mut dyn crate::cell::RowSink) -> std::io::Result<()> {
    b.views
        .iter()
        .try_for_each(|(t, v)| tables::intervals::row(&b.tasks[*t as usize], v, sink))
}

fn slice_rows(b: &IntervalBatch, sink: &mut dyn crate::cell::RowSink) -> std::io::Result<()> {
    b.views
        .iter()
        .filter(|(_, v)| v.state == ThreadState::Running)
        .try_for_each(|(t, v)| tables::slices::row(&b.tasks[*t as usize], v, sink))
}

fn wait_rows(b: &WaitBatch, sink: &mut dyn crate::cell::RowSink) -> std::io::Result<()> {
    b.iter()
        .try_for_each(|(w, task)| tables::waits::row(w, task.as_ref(), sink))
}

fn preemption_rows(
    b: &PreemptionBatch,
    sink: &mut dyn crate::cell::RowSink,
) -> std::io::Result<()> {
    b.iter()
        .try_for_each(|(p, names)| tables::preemptions::row(p, names, sink))
}

impl Feeder {
    /// Sends the gathered intervals to the `intervals` and `slices` writers (one batch,
    /// shared by both).
    fn flush_intervals(&mut self) {
        if self.pending.views.is_empty() {
            return;
        }
        let batch = Arc::new(std::mem::take(&mut self.pending));
        for feed in [&mut self.intervals, &mut self.slices]
            .into_iter()
            .flatten()
        {
            feed.send(batch.clone());
        }
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
    fn intervals(&mut self, task: &TaskInfo, intervals: &[IntervalView], window: Window) {
        let f = &mut *self.feeder();
        if f.intervals.is_none() && f.slices.is_none() {
            return;
        }
        let index = f.pending.tasks.len() as u32;
        let kept = intervals
            .iter()
            .filter(|v| in_window(window, v.start_ns, v.dur_ns))
            .map(|v| (index, *v));
        let before = f.pending.views.len();
        f.pending.views.extend(kept);
        if f.pending.views.len() > before {
            let named = f.names.named(task);
            f.pending.tasks.push(named);
        }
        if f.pending.views.len() >= BATCH_VIEWS {
            f.flush_intervals();
        }
    }

    fn waits(&mut self, waits: &[WaitRecord], who: &Who) {
        let f = &mut *self.feeder();
        // A drain's intervals all come before its records: they are complete now.
        f.flush_intervals();
        send_records(&mut f.names, &mut f.waits, waits, |names, w| {
            (*w, who(w.pid).map(|t| names.named(&t)))
        });
    }

    fn preemptions(&mut self, preemptions: &[PreemptionRecord], who: &Who) {
        let f = &mut *self.feeder();
        f.flush_intervals();
        send_records(&mut f.names, &mut f.preemptions, preemptions, |names, p| {
            let mut name = |pid: Option<i32>| match pid? {
                0 => Some(names.comm(0, tables::preemptions::IDLE)),
                p => who(p).map(|t| names.comm(p, &t.comm)),
            };
            let names = [
                name(p.waker_pid),
                name(Some(p.wakee_pid)),
                name(Some(p.victim_pid)),
            ];
            (*p, names)
        });
    }
}

/// Sends `records` to `feed` (when that table is written) as one batch, each record with
/// what `copy` takes of it and of the tasks it names.
fn send_records<R, T>(
    names: &mut Names,
    feed: &mut Option<Feed<Vec<T>>>,
    records: &[R],
    mut copy: impl FnMut(&mut Names, &R) -> T,
) {
    let Some(feed) = feed else { return };
    if records.is_empty() {
        return;
    }
    let batch: Vec<T> = records.iter().map(|r| copy(names, r)).collect();
    feed.send(Arc::new(batch));
}
