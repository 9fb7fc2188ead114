//! A table file in a text format: what CSV and NDJSON share (the byte buffer, the check of
//! a row against the columns, the big tables written from their records) around a format's
//! own text of a row ([`RowText`]).

use super::cursor::{Cursor, TextFile};
use super::interval_text::{IntervalPieces, SlicePieces};
use super::pieces::Syntax;
use super::wait_text::WaitPieces;
use super::{check_row, TableWriter};
use crate::batch::Named;
use crate::cell::{Cell, ColumnDef, RowSink};
use analysis::drain::NameId;
use analysis::records::WaitRecord;
use analysis::timeline_store::IntervalView;
use std::fs::File;

/// A format's text of a row of cells.
pub(super) trait RowText: Send {
    /// The most bytes [`RowText::write`] takes for `cells`, a row of the table's columns.
    fn bound(&self, cells: &[Cell]) -> usize;
    fn write(&self, out: &mut Cursor, cells: &[Cell]);
}

/// A table file in the text format `F`.
pub(super) struct TextTable<F> {
    out: TextFile,
    columns: Vec<ColumnDef>,
    format: F,
    pieces: TablePieces,
}

/// The pieces of a table whose rows are written from their records ([`super::pieces`]
/// says why), or none: its rows come as cells.
enum TablePieces {
    Intervals(Box<IntervalPieces>),
    Slices(Box<SlicePieces>),
    Waits(Box<WaitPieces>),
    None,
}

impl<F: RowText> TextTable<F> {
    /// A table of `columns` written to `file` in `format` (whose [`Syntax`] of those
    /// columns `syntax` makes), starting with the bytes of `header`.
    pub(super) fn new(
        file: File,
        columns: &[ColumnDef],
        format: F,
        syntax: impl Fn() -> Syntax,
        header: &[u8],
    ) -> std::io::Result<TextTable<F>> {
        let pieces = if let Some(p) = IntervalPieces::new(columns, syntax()) {
            TablePieces::Intervals(Box::new(p))
        } else if let Some(p) = SlicePieces::new(columns, syntax()) {
            TablePieces::Slices(Box::new(p))
        } else if let Some(p) = WaitPieces::new(columns, syntax()) {
            TablePieces::Waits(Box::new(p))
        } else {
            TablePieces::None
        };
        let mut table = TextTable {
            out: TextFile::new(file),
            columns: columns.to_vec(),
            format,
            pieces,
        };
        table.out.row(header.len(), |out| out.bytes(header))?;
        Ok(table)
    }
}

impl<F: RowText> RowSink for TextTable<F> {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        let format = &self.format;
        self.out
            .row(format.bound(cells), |out| format.write(out, cells))
    }

    fn intervals(&mut self, task: &Named, views: &[IntervalView]) -> std::io::Result<bool> {
        match &self.pieces {
            TablePieces::Intervals(p) => p.write_run(&mut self.out, task, views).map(|()| true),
            _ => Ok(false),
        }
    }

    fn slices(&mut self, task: &Named, views: &[IntervalView]) -> std::io::Result<bool> {
        match &self.pieces {
            TablePieces::Slices(p) => p.write_run(&mut self.out, task, views).map(|()| true),
            _ => Ok(false),
        }
    }

    fn waits(
        &mut self,
        waits: &[WaitRecord],
        tasks: &[Option<NameId>],
        names: &[Named],
    ) -> std::io::Result<bool> {
        match &mut self.pieces {
            TablePieces::Waits(p) => p.write(&mut self.out, waits, tasks, names).map(|()| true),
            _ => Ok(false),
        }
    }
}

impl<F: RowText> TableWriter for TextTable<F> {
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.out.finish()
    }
}
