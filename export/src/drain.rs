//! The per-event tables written as the trace is read: the analysis hands its closed
//! intervals and records over in chunks ([`analysis::drain`]) and they go straight to the
//! `slices`, `intervals`, `waits` and `preemptions` writers, so memory holds a chunk, not
//! the trace's millions of rows.

use crate::tables::{self, in_window, RowSink, Table};
use crate::write::{self, Format, TableWriter};
use analysis::drain::{Drain, TaskInfo, Who};
use analysis::records::{PreemptionRecord, WaitRecord};
use analysis::timeline_store::{IntervalView, ThreadState};
use analysis::Window;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One table file being written, with its row count.
struct Open {
    table: Table,
    path: PathBuf,
    writer: Box<dyn TableWriter>,
    rows: u64,
}

impl RowSink for Open {
    fn row(&mut self, cells: &[crate::Cell]) -> std::io::Result<()> {
        self.rows += 1;
        self.writer.row(cells)
    }
}

/// The drained tables of one input.
#[derive(Default)]
pub struct Tables {
    slices: Option<Open>,
    intervals: Option<Open>,
    waits: Option<Open>,
    preemptions: Option<Open>,
    /// The first write error: the tables are then abandoned (and the export fails).
    failed: Option<String>,
}

/// `table`'s error message for its file.
pub fn shown(table: Table, path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| {
        format!(
            "{}: cannot write the {} table: {e}",
            path.display(),
            table.name()
        )
    }
}

impl Tables {
    /// Creates the files of the drained tables among `tables`; `staged(table)` is where.
    pub fn create(
        format: Format,
        tables: &[Table],
        staged: impl Fn(Table) -> PathBuf,
    ) -> Result<Tables, String> {
        let mut out = Tables::default();
        for &table in tables.iter().filter(|t| t.drained()) {
            let path = staged(table);
            let writer =
                write::create(format, &path, &table.columns()).map_err(shown(table, &path))?;
            let open = Some(Open {
                table,
                path,
                writer,
                rows: 0,
            });
            match table {
                Table::Slices => out.slices = open,
                Table::Intervals => out.intervals = open,
                Table::Waits => out.waits = open,
                _ => out.preemptions = open,
            }
        }
        Ok(out)
    }

    /// Completes every file; the rows written.
    pub fn finish(self) -> Result<u64, String> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let mut rows = 0;
        for open in [self.slices, self.intervals, self.waits, self.preemptions]
            .into_iter()
            .flatten()
        {
            open.writer
                .finish()
                .map_err(shown(open.table, &open.path))?;
            rows += open.rows;
        }
        Ok(rows)
    }

    /// Runs `write` on `open` unless a write failed before; keeps its error.
    fn write(
        failed: &mut Option<String>,
        open: &mut Option<Open>,
        write: impl FnOnce(&mut Open) -> std::io::Result<()>,
    ) {
        let Some(open) = open.as_mut().filter(|_| failed.is_none()) else {
            return;
        };
        if let Err(e) = write(open) {
            *failed = Some(shown(open.table, &open.path)(e));
        }
    }
}

/// The [`Drain`] the analysis owns; the export keeps the other handle and takes the
/// tables back when the analysis is done.
pub struct Shared(pub Arc<Mutex<Tables>>);

impl Shared {
    fn tables(&self) -> std::sync::MutexGuard<'_, Tables> {
        // Only the analysis' thread writes: the lock is never contended nor poisoned
        // but by a panic there, which the export reports anyway.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drain for Shared {
    fn intervals(&mut self, task: &TaskInfo, intervals: &[IntervalView], window: Window) {
        let t = &mut *self.tables();
        let kept = || {
            intervals
                .iter()
                .filter(move |v| in_window(window, v.start_ns, v.dur_ns))
        };
        Tables::write(&mut t.failed, &mut t.intervals, |sink| {
            kept().try_for_each(|v| tables::intervals::row(task, v, sink))
        });
        Tables::write(&mut t.failed, &mut t.slices, |sink| {
            kept()
                .filter(|v| v.state == ThreadState::Running)
                .try_for_each(|v| tables::slices::row(task, v, sink))
        });
    }

    fn waits(&mut self, waits: &[WaitRecord], who: &Who) {
        let t = &mut *self.tables();
        Tables::write(&mut t.failed, &mut t.waits, |sink| {
            tables::waits::rows(waits, who, sink)
        });
    }

    fn preemptions(&mut self, preemptions: &[PreemptionRecord], who: &Who) {
        let t = &mut *self.tables();
        Tables::write(&mut t.failed, &mut t.preemptions, |sink| {
            tables::preemptions::rows(preemptions, who, sink)
        });
    }
}
