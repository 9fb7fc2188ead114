//! A table file written on its own thread: the analysing thread sends it batches over a
//! bounded channel ([`DEPTH`] batches in flight, so memory stays bounded when the writer
//! is slower than the analysis) and goes on reading the trace while the rows are
//! formatted and written — before, formatting on the analysing thread made an export
//! 7 to 17 times as long as `analyze`.
//!
//! The writers run at a lower priority than the analysis ([`WRITER_NICE`]) with room for
//! [`DEPTH`] batches each: the analysis is the export's critical path (nothing is written
//! before it is analysed, and the report is assembled after the last event on its thread
//! alone), so on a machine with fewer cores than threads the writers should take the time
//! the analysis leaves, and lag behind it rather than make it wait. (They still finish
//! before the report is assembled: a profile of the large trace's CSV export has one core
//! idle for those last 0.25 s, as in `analyze`.)

use crate::batch::{Batch, Named};
use crate::cell::{Cell, RowSink};
use crate::tables::Table;
use crate::write::TableWriter;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Batches queued to one writer at most (each about a drain's chunk of 65,536 events: for
/// `intervals`, some 3 MiB of views, which `slices` shares). On the large trace of `bench/`
/// (CSV export, paired runs, median of 7), 32 at [`WRITER_NICE`] against 4 at the analysis'
/// priority as before: 0.90 times the wall time for 1.01 times the CPU, peak RSS 266 MiB
/// (was 152: 22 % of the 1.22 GB file).
const DEPTH: usize = 32;

/// How much lower the writers' priority is than the analysis' (their nice value that much
/// higher). 19 was no faster than 10 (0.98, within the noise), and 10 leaves them a fair
/// share beside other processes' work.
const WRITER_NICE: i32 = 10;

/// Lowers the calling thread's priority by [`WRITER_NICE`]; best effort (a failure only
/// costs speed). Linux only: there `nice` sets the calling thread's value alone (POSIX
/// would have the process'), which is what this needs.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: nice takes an integer and touches no memory of ours.
    unsafe {
        libc::nice(WRITER_NICE);
    }
}

/// The sending end: batches for one table.
pub(crate) struct Feed<T> {
    tx: Option<SyncSender<Arc<Batch<T>>>>,
    /// Names of the feeder's table sent so far (the writer's copy holds these).
    named: usize,
}

impl<T> Feed<T> {
    /// The names of `table` (the feeder's, in id order) the writer has not been sent.
    pub(crate) fn unsent(&self, table: &[Named]) -> Vec<Named> {
        table[self.named..].to_vec()
    }

    /// Queues `batch`, whose names are this feed's [`Feed::unsent`] of a table of
    /// `table_len` names (waits while the writer has [`DEPTH`] queued). A writer that
    /// failed has hung up: its error comes from [`Writing::finish`], batches go nowhere.
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

/// The writing end: the thread, to be joined once its feed is dropped.
pub(crate) struct Writing {
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

/// Starts the thread that writes `table` at `path` with `writer`, each batch's rows given
/// by `rows` (with the names sent so far, in id order).
pub(crate) fn spawn<T: Send + Sync + 'static>(
    table: Table,
    path: PathBuf,
    mut writer: Box<dyn TableWriter>,
    rows: fn(&T, &[Named], &mut dyn RowSink) -> std::io::Result<()>,
) -> Result<(Feed<T>, Writing), String> {
    let (tx, rx) = sync_channel::<Arc<Batch<T>>>(DEPTH);
    let file = path.clone();
    let thread = std::thread::Builder::new()
        .name(format!("export-{}", table.name()))
        .spawn(move || {
            lower_priority();
            let mut counted = Counted {
                sink: &mut *writer,
                rows: 0,
            };
            let mut names = Vec::new();
            for batch in rx {
                names.extend_from_slice(&batch.names);
                rows(&batch.rows, &names, &mut counted).map_err(shown(table, &file))?;
            }
            let rows = counted.rows;
            writer.finish().map_err(shown(table, &file))?;
            Ok(rows)
        })
        .map_err(shown(table, &path))?;
    Ok((
        Feed {
            tx: Some(tx),
            named: 0,
        },
        Writing {
            table,
            path,
            thread,
        },
    ))
}

impl Writing {
    /// Waits for the file to be complete (its feed must be gone); the rows written.
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

    fn intervals(
        &mut self,
        task: &crate::batch::Named,
        views: &[analysis::timeline_store::IntervalView],
    ) -> std::io::Result<bool> {
        let taken = self.sink.intervals(task, views)?;
        if taken {
            self.rows += views.len() as u64;
        }
        Ok(taken)
    }

    fn waits(
        &mut self,
        waits: &[analysis::records::WaitRecord],
        tasks: &[Option<analysis::drain::NameId>],
        names: &[Named],
    ) -> std::io::Result<bool> {
        let taken = self.sink.waits(waits, tasks, names)?;
        if taken {
            self.rows += waits.len() as u64;
        }
        Ok(taken)
    }
}
