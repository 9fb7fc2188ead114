//! CSV (RFC 4180): a header of column names, then one line per row; null is the empty
//! field, reals in the shortest form that reads back to the same f64, task names quoted
//! where they hold commas, quotes or line breaks ([`super::text`]). Rows are formatted
//! into one byte buffer written out a MiB at a time ([`super::cursor`]): no allocation
//! per cell.

use super::cursor::{Cursor, RowBound, TextFile};
use super::pieces::Syntax;
use super::table_pieces::TablePieces;
use super::{check_row, text, TableWriter};
use crate::cell::{Cell, ColumnDef, RowSink};
use std::fs::File;

pub(super) struct CsvWriter {
    out: TextFile,
    columns: Vec<ColumnDef>,
    bound: RowBound,
    /// For the tables whose rows are written from their records (`intervals`, `slices`,
    /// `waits`: [`super::pieces`]).
    pieces: TablePieces,
}

impl CsvWriter {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> std::io::Result<CsvWriter> {
        let mut writer = CsvWriter {
            out: TextFile::new(file),
            columns: columns.to_vec(),
            // Commas and the newline.
            bound: RowBound::new(columns, columns.len(), text::most),
            pieces: TablePieces::of(columns, || Syntax::csv(columns.len())),
        };
        let header: Vec<Cell> = columns.iter().map(|c| Cell::text(&*c.name)).collect();
        let bound = columns.len() + header.iter().map(text_bound).sum::<usize>();
        writer.line(bound, &header)?;
        Ok(writer)
    }

    /// Writes `cells` as one line of at most `bound` bytes.
    fn line(&mut self, bound: usize, cells: &[Cell]) -> std::io::Result<()> {
        self.out.row(bound, |out| {
            fields(out, cells);
            out.byte(b'\n');
        })
    }
}

/// Writes `cells` as fields, separated by commas.
#[inline]
fn fields(out: &mut Cursor, cells: &[Cell]) {
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        field(out, cell);
    }
}

/// The most bytes [`field`] writes for a cell of a text column.
#[inline]
fn text_bound(cell: &Cell) -> usize {
    match cell {
        Cell::Text(s) => text::csv_text_bound(s),
        Cell::Word(w) => w.len(),
        _ => 0,
    }
}

/// Writes `cell` as a CSV field.
#[inline]
fn field(out: &mut Cursor, cell: &Cell) {
    match cell {
        Cell::Int(n) => text::int(out, *n),
        Cell::Real(x) => text::real(out, *x),
        Cell::Text(s) => text::csv_text(out, s),
        Cell::Word(w) => out.bytes(w.as_bytes()),
        Cell::Bool(b) => text::bool(out, *b),
        Cell::Null => {}
    }
}

impl RowSink for CsvWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        let bound = self.bound.of(cells, text_bound);
        self.line(bound, cells)
    }

    fn intervals(
        &mut self,
        task: &crate::batch::Named,
        views: &[analysis::timeline_store::IntervalView],
    ) -> std::io::Result<bool> {
        self.pieces.intervals(&mut self.out, task, views)
    }

    fn slices(
        &mut self,
        task: &crate::batch::Named,
        views: &[analysis::timeline_store::IntervalView],
    ) -> std::io::Result<bool> {
        self.pieces.slices(&mut self.out, task, views)
    }

    fn waits(
        &mut self,
        waits: &[analysis::records::WaitRecord],
        tasks: &[Option<analysis::drain::NameId>],
        names: &[crate::batch::Named],
    ) -> std::io::Result<bool> {
        self.pieces.waits(&mut self.out, waits, tasks, names)
    }
}

impl TableWriter for CsvWriter {
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.out.finish()
    }
}
