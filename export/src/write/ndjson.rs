//! NDJSON: one JSON object per line, keys in column order, null for null (also for a
//! non-finite real, which JSON cannot hold). Rows are formatted into one byte buffer
//! written out a MiB at a time ([`super::cursor`], [`super::text`]): no allocation per
//! cell.

use super::cursor::{Chunked, Cursor, RowBound, TextFile};
use super::pieces::Syntax;
use super::table_pieces::TablePieces;
use super::{check_row, text, TableWriter};
use crate::cell::{Cell, ColumnDef, RowSink};
use std::fs::File;

pub(super) struct NdjsonWriter {
    out: TextFile,
    columns: Vec<ColumnDef>,
    /// Each column's name as a JSON string and a colon, made once.
    keys: Vec<Chunked>,
    bound: RowBound,
    /// For the tables whose rows are written from their records (`intervals`, `slices`,
    /// `waits`: [`super::pieces`]).
    pieces: TablePieces,
}

impl NdjsonWriter {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> NdjsonWriter {
        let keys: Vec<Chunked> = columns.iter().map(|c| key(&c.name)).collect();
        // Braces, keys, commas, newline.
        let frame = keys.iter().map(Chunked::len).sum::<usize>() + columns.len() + 2;
        NdjsonWriter {
            out: TextFile::new(file),
            columns: columns.to_vec(),
            bound: RowBound::new(columns, frame, most),
            pieces: {
                let keys: Vec<Vec<u8>> = keys.iter().map(Chunked::text).collect();
                TablePieces::of(columns, || Syntax::ndjson(&keys))
            },
            keys,
        }
    }
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

impl RowSink for NdjsonWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        let bound = self.bound.of(cells, text_bound);
        let keys = &self.keys;
        self.out.row(bound, |out| {
            out.byte(b'{');
            members(out, keys, cells);
            out.bytes(b"}\n");
        })
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

impl TableWriter for NdjsonWriter {
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.out.finish()
    }
}
