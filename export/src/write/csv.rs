//! CSV (RFC 4180): a header of column names, then one line per row; null is the empty
//! field, reals in the shortest form that reads back to the same f64, task names quoted
//! where they hold commas, quotes or line breaks ([`super::text`]). Rows are formatted
//! into one byte buffer written out a MiB at a time ([`super::cursor`]): no allocation
//! per cell.

use super::cursor::{Cursor, RowBound, TextFile};
use super::interval_text::{IntervalPieces, Syntax};
use super::lead::Lead;
use super::{check_row, text, TableWriter};
use crate::cell::{Cell, ColumnDef, RowSink};
use std::fs::File;

pub(super) struct CsvWriter {
    out: TextFile,
    columns: Vec<ColumnDef>,
    bound: RowBound,
    lead: Lead,
    /// For the `intervals` table, whose rows are written from the views of a task's run
    /// ([`RowSink::intervals`]).
    interval_pieces: Option<IntervalPieces>,
}

impl CsvWriter {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> std::io::Result<CsvWriter> {
        let mut writer = CsvWriter {
            out: TextFile::new(file),
            columns: columns.to_vec(),
            // Commas and the newline.
            bound: RowBound::new(columns, columns.len(), text::most),
            lead: Lead::new(columns),
            // The task's three cells and a comma each.
            interval_pieces: IntervalPieces::new(columns, 3, text::most, &INTERVAL_SYNTAX),
        };
        let header: Vec<Cell> = columns.iter().map(|c| Cell::text(&*c.name)).collect();
        let bound = columns.len() + header.iter().map(text_bound).sum::<usize>();
        writer.line(bound, &header)?;
        Ok(writer)
    }

    /// Writes `cells` as one line of at most `bound` bytes (its task cells as the line
    /// before wrote them, when they are the same: [`Lead`]).
    fn line(&mut self, bound: usize, cells: &[Cell]) -> std::io::Result<()> {
        let lead = &mut self.lead;
        self.out.row(bound, |out| {
            lead.write(out, cells, fields);
            let led = lead.cells();
            if led > 0 {
                out.byte(b',');
            }
            fields(out, &cells[led..]);
            out.byte(b'\n');
        })
    }
}

/// An `intervals` row after its task's part: words as they are (they need no quotes), null
/// the empty field.
const INTERVAL_SYNTAX: Syntax = Syntax {
    before: [b"", b",", b",", b",", b",", b",", b","],
    end: b"\n",
    word: |w| w.as_bytes().to_vec(),
    null: b"",
};

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

    /// A task's run of intervals, its `pid,tgid,comm,` formatted once for the run and the
    /// rest written from the views ([`super::interval_text`]; README, "Export").
    fn intervals(
        &mut self,
        task: &crate::batch::Named,
        views: &[analysis::timeline_store::IntervalView],
    ) -> std::io::Result<bool> {
        let Some(pieces) = &self.interval_pieces else {
            return Ok(false);
        };
        pieces.write_run(&mut self.out, task, views, text_bound, |out, cells| {
            fields(out, cells);
            out.byte(b',');
        })?;
        Ok(true)
    }
}

impl TableWriter for CsvWriter {
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.out.finish()
    }
}
