//! Table files written on their own thread (one table, or `intervals` and
//! `slices`, which are written from the same batches): the analysing thread sends it batches over a
//! bounded channel ([`DEPTH`] batches in flight, so memory stays bounded when the writer
//! is slower than the analysis) and goes on reading the trace while the rows are
//! formatted and written, so formatting runs beside the analysis, not after it on its thread.
//!
//! The writers run at the analysis' own priority. The bounded queue already keeps the two
//! in step (a writer with nothing queued waits, an analysis [`DEPTH`] batches ahead waits),
//! and a lower priority for the writers (it was nice 10) lowered it against every other
//! process too: on a machine shared with other work they ran last, and the export's wall
//! time grew with the machine's load while its CPU time did not.

use crate::batch::{Batch, Named};
use crate::cell::{Cell, RowSink};
use crate::tables::Table;
use crate::write::TableWriter;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Batches queued to one writer at most (each about a drain's chunk of 65,536 events: for
/// `intervals` and `slices`, some 3 MiB of views): enough for a writer to lag a little
/// behind the analysis, few enough that the queues stay a small part of
/// the export's memory. A writer behind the analysis keeps its queue full, so the depth
/// is memory held, not speed gained: the analysis waits for a slot either way.
const DEPTH: usize = 4;

/// The sending end: batches for one table.
pub(crate) struct BatchSender<T> {
    tx: Option<SyncSender<Arc<Batch<T>>>>,
    /// Names of the analysing thread's table sent so far (the writer's copy holds these).
    named: usize,
}

impl<T> BatchSender<T> {
    /// The names of `table` (the analysing thread's, in id order) the writer has not been sent.
    pub(crate) fn unsent(&self, table: &[Named]) -> Vec<Named> {
        table[self.named..].to_vec()
    }

    /// Queues `batch`, whose names are this sender's [`BatchSender::unsent`] of a table of
    /// `table_len` names (waits while the writer has [`DEPTH`] queued). A writer that
    /// failed has hung up: its error comes from [`WriterThread::finish`], batches go nowhere.
    pub(crate) fn send(&mut self, batch: Arc<Batch<T>>, table_len: usize) {
        debug_assert_eq!(self.named + batch.names.len(), table_len);
        self.named = table_len;
        if let Some(tx) = &self.tx {
            if tx.send(batch).is_err() {
                self.tx = None;
            }
        }
    }
}

/// The writing end: the thread, to be joined once its sender is dropped.
pub(crate) struct WriterThread {
    table: Table,
    path: PathBuf,
    thread: JoinHandle<Result<u64, String>>,
}

/// `table`'s error message for its file.
pub(crate) fn shown(table: Table, path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| {
        format!(
            "{}: cannot write the {} table: {e}",
            path.display(),
            table.name()
        )
    }
}

/// A table a writer thread writes: the table, its staged file, its writer.
pub(crate) type ThreadTable = (Table, PathBuf, Box<dyn TableWriter>);

/// The sinks of a writer thread's tables, each with its table, in the order given to [`spawn`].
pub(crate) type Sinks<'a> = [(Table, Counted<'a>)];

/// A writer thread's way of writing a batch's rows to its tables' sinks (with the names sent so far,
/// in id order); an error names the table (its index in the sinks) it came from.
pub(crate) type BatchRows<T> =
    fn(&T, &[Named], &mut Sinks<'_>) -> Result<(), (usize, std::io::Error)>;

/// Starts the thread that writes `tables` (one, or more fed the same batches), each
/// batch's rows given by `rows`.
pub(crate) fn spawn<T: Send + Sync + 'static>(
    tables: Vec<ThreadTable>,
    rows: BatchRows<T>,
) -> Result<(BatchSender<T>, WriterThread), String> {
    let (tx, rx) = sync_channel::<Arc<Batch<T>>>(DEPTH);
    let (table, path) = match tables.first() {
        Some((t, p, _)) => (*t, p.clone()),
        None => return Err("internal error: a writer thread of no table".to_string()),
    };
    let thread = std::thread::Builder::new()
        .name(format!("export-{}", table.name()))
        .spawn(move || {
            let mut tables = tables;
            // Each table and its file, for the error messages.
            let names_of: Vec<(Table, PathBuf)> =
                tables.iter().map(|(t, p, _)| (*t, p.clone())).collect();
            let mut sinks: Vec<(Table, Counted)> = tables
                .iter_mut()
                .map(|(t, _, w)| {
                    (
                        *t,
                        Counted {
                            sink: &mut **w,
                            rows: 0,
                        },
                    )
                })
                .collect();
            let failed = |(i, e): (usize, std::io::Error)| {
                let (t, p) = &names_of[i];
                shown(*t, p)(e)
            };
            let mut names = Vec::new();
            for batch in rx {
                names.extend_from_slice(&batch.names);
                rows(&batch.rows, &names, &mut sinks).map_err(failed)?;
            }
            let written: u64 = sinks.iter().map(|(_, c)| c.rows).sum();
            drop(sinks);
            for (i, (_, _, w)) in tables.into_iter().enumerate() {
                w.finish().map_err(|e| failed((i, e)))?;
            }
            Ok(written)
        })
        .map_err(shown(table, &path))?;
    Ok((
        BatchSender {
            tx: Some(tx),
            named: 0,
        },
        WriterThread {
            table,
            path,
            thread,
        },
    ))
}

/// Applies `rows` to each of `sinks` (a writer thread's tables written alike), an error naming
/// its table.
pub(crate) fn each(
    sinks: &mut Sinks<'_>,
    mut rows: impl FnMut(&mut Counted<'_>) -> std::io::Result<()>,
) -> Result<(), (usize, std::io::Error)> {
    for (i, (_, sink)) in sinks.iter_mut().enumerate() {
        rows(sink).map_err(|e| (i, e))?;
    }
    Ok(())
}

impl WriterThread {
    /// Waits for the file to be complete (its sender must be gone); the rows written.
    pub(crate) fn finish(self) -> Result<u64, String> {
        self.thread.join().unwrap_or_else(|_| {
            Err(format!(
                "{}: the {} table's writer failed (a panic: a bug)",
                self.path.display(),
                self.table.name()
            ))
        })
    }
}

/// A sink that counts the rows it passes on.
pub(crate) struct Counted<'a> {
    pub(crate) sink: &'a mut dyn RowSink,
    pub(crate) rows: u64,
}

impl RowSink for Counted<'_> {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        self.rows += 1;
        self.sink.row(cells)
    }
}
