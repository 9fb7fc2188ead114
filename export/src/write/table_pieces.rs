//! Which of a text writer's tables are written from their records rather than as cells
//! ([`super::pieces`] says why), and the dispatch of the [`crate::cell::RowSink`] calls that
//! hand the records over, the same for CSV and NDJSON.

use super::cursor::TextFile;
use super::interval_text::{IntervalPieces, SlicePieces};
use super::pieces::Syntax;
use super::wait_text::WaitPieces;
use crate::batch::Named;
use crate::cell::ColumnDef;
use analysis::drain::NameId;
use analysis::records::WaitRecord;
use analysis::timeline_store::IntervalView;

/// The pieces of a writer's table, or none: its rows come as cells.
pub(super) enum TablePieces {
    Intervals(IntervalPieces),
    Slices(SlicePieces),
    Waits(Box<WaitPieces>),
    None,
}

impl TablePieces {
    /// The pieces for `columns` in `syntax` (the format's, of those columns).
    pub(super) fn of(columns: &[ColumnDef], syntax: impl Fn() -> Syntax) -> TablePieces {
        if let Some(p) = IntervalPieces::new(columns, syntax()) {
            TablePieces::Intervals(p)
        } else if let Some(p) = SlicePieces::new(columns, syntax()) {
            TablePieces::Slices(p)
        } else if let Some(p) = WaitPieces::new(columns, syntax()) {
            TablePieces::Waits(Box::new(p))
        } else {
            TablePieces::None
        }
    }

    /// [`crate::cell::RowSink::intervals`]: whether they were written.
    pub(super) fn intervals(
        &self,
        file: &mut TextFile,
        task: &Named,
        views: &[IntervalView],
    ) -> std::io::Result<bool> {
        match self {
            TablePieces::Intervals(p) => p.write_run(file, task, views).map(|()| true),
            _ => Ok(false),
        }
    }

    /// [`crate::cell::RowSink::slices`].
    pub(super) fn slices(
        &self,
        file: &mut TextFile,
        task: &Named,
        views: &[IntervalView],
    ) -> std::io::Result<bool> {
        match self {
            TablePieces::Slices(p) => p.write_run(file, task, views).map(|()| true),
            _ => Ok(false),
        }
    }

    /// [`crate::cell::RowSink::waits`].
    pub(super) fn waits(
        &mut self,
        file: &mut TextFile,
        waits: &[WaitRecord],
        tasks: &[Option<NameId>],
        names: &[Named],
    ) -> std::io::Result<bool> {
        match self {
            TablePieces::Waits(p) => p.write(file, waits, tasks, names).map(|()| true),
            _ => Ok(false),
        }
    }
}
