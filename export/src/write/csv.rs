//! CSV (RFC 4180): a header of column names, then one line per row; null is the empty
//! field, reals in the shortest form that reads back to the same f64, task names quoted
//! where they hold commas, quotes or line breaks ([`super::text`]). Rows are formatted
//! into one byte buffer written out a MiB at a time ([`super::cursor`]): no allocation
//! per cell.

use super::cursor::{Cursor, RowBound};
use super::text;
use super::text_table::{RowText, TextTable};
use crate::cell::{Cell, ColumnDef};
use std::fs::File;

/// CSV's text of a row.
pub(super) struct Csv {
    bound: RowBound,
}

/// A CSV table of `columns` in `file`, its header written.
pub(super) fn create(file: File, columns: &[ColumnDef]) -> std::io::Result<TextTable<Csv>> {
    let header: Vec<Cell> = columns.iter().map(|c| Cell::text(&*c.name)).collect();
    let mut room = vec![0; columns.len() + header.iter().map(text_bound).sum::<usize>()];
    let mut out = Cursor::new(&mut room);
    Csv::line(&mut out, &header);
    let csv = Csv {
        // Commas and the newline.
        bound: RowBound::new(columns, columns.len(), text::most),
    };
    TextTable::new(file, csv, out.written())
}

impl Csv {
    fn line(out: &mut Cursor, cells: &[Cell]) {
        fields(out, cells);
        out.byte(b'\n');
    }
}

impl RowText for Csv {
    #[inline]
    fn bound(&self, cells: &[Cell]) -> usize {
        self.bound.of(cells, text_bound)
    }

    #[inline]
    fn write(&self, out: &mut Cursor, cells: &[Cell]) {
        Csv::line(out, cells)
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
