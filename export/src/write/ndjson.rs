//! NDJSON: one JSON object per line, keys in column order, null for null (also for a
//! non-finite real, which JSON cannot hold). Rows are formatted into one byte buffer
//! written out a MiB at a time ([`super::cursor`], [`super::text`]): no allocation per
//! cell.

use super::cursor::{Chunked, Cursor, RowBound};
use super::text;
use super::text_table::{RowText, TextTable};
use crate::cell::{Cell, ColumnDef};
use std::fs::File;

/// NDJSON's text of a row.
pub(super) struct Ndjson {
    /// Each column's name as a JSON string and a colon, made once.
    keys: Vec<Chunked>,
    bound: RowBound,
}

/// An NDJSON table of `columns` in `file`.
pub(super) fn create(file: File, columns: &[ColumnDef]) -> std::io::Result<TextTable<Ndjson>> {
    let keys: Vec<Chunked> = columns.iter().map(|c| key(&c.name)).collect();
    // Braces, keys, commas, newline.
    let frame = keys.iter().map(Chunked::len).sum::<usize>() + columns.len() + 2;
    let ndjson = Ndjson {
        keys,
        bound: RowBound::new(columns, frame, most),
    };
    TextTable::new(file, ndjson, b"")
}

/// The most bytes a value of a non-text column takes.
fn most(kind: crate::cell::Kind) -> usize {
    text::most(kind).max(NULL_BOUND)
}

/// `name` as a JSON string and a colon.
fn key(name: &str) -> Chunked {
    let mut room = vec![0; text::json_text_bound(name) + 1];
    let mut key = Cursor::new(&mut room);
    text::json_text(&mut key, name);
    key.byte(b':');
    Chunked::new(key.written())
}

/// `null`'s length.
const NULL_BOUND: usize = 4;

/// The most bytes [`value`] writes for a cell of a text column.
#[inline]
fn text_bound(cell: &Cell) -> usize {
    match cell {
        Cell::Text(s) => text::json_text_bound(s),
        Cell::Word(w) => w.len() + 2,
        _ => NULL_BOUND,
    }
}

/// Writes `cell` as a JSON value.
#[inline]
fn value(out: &mut Cursor, cell: &Cell) {
    match cell {
        Cell::Int(n) => text::int(out, *n),
        Cell::Real(x) if x.is_finite() => text::real(out, *x),
        Cell::Text(s) => text::json_text(out, s),
        Cell::Word(w) => {
            out.byte(b'"');
            out.bytes(w.as_bytes());
            out.byte(b'"');
        }
        Cell::Bool(b) => text::bool(out, *b),
        Cell::Real(_) | Cell::Null => out.bytes(b"null"),
    }
}

impl RowText for Ndjson {
    #[inline]
    fn bound(&self, cells: &[Cell]) -> usize {
        self.bound.of(cells, text_bound)
    }

    #[inline]
    fn write(&self, out: &mut Cursor, cells: &[Cell]) {
        out.byte(b'{');
        members(out, &self.keys, cells);
        out.bytes(b"}\n");
    }
}

/// Writes `cells` as the members of an object, each with its key, separated by commas.
#[inline]
fn members(out: &mut Cursor, keys: &[Chunked], cells: &[Cell]) {
    for (i, (key, cell)) in keys.iter().zip(cells).enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        key.write(out);
        value(out, cell);
    }
}
