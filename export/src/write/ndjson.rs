//! NDJSON: one JSON object per line, keys in column order, null for null (also for a
//! non-finite real, which JSON cannot hold). Rows are formatted into one byte buffer
//! written out a MiB at a time ([`super::cursor`], [`super::text`]): no allocation per
//! cell.

use super::cursor::{Chunked, Cursor, RowBound, TextFile};
use super::interval_text::{IntervalPieces, Syntax};
use super::lead::Lead;
use super::{check_row, text, TableWriter};
use crate::cell::{Cell, ColumnDef, RowSink};
use std::fs::File;

pub(super) struct NdjsonWriter {
    out: TextFile,
    columns: Vec<ColumnDef>,
    /// Each column's name as a JSON string and a colon, made once.
    keys: Vec<Chunked>,
    bound: RowBound,
    lead: Lead,
    /// For the `intervals` table, whose rows are written from the views of a task's run
    /// ([`RowSink::intervals`]).
    interval_pieces: Option<IntervalPieces>,
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
            lead: Lead::new(columns),
            // The task's part: the opening brace, its keys, a comma after each member.
            interval_pieces: interval_pieces(columns, &keys),
            keys,
        }
    }
}

/// The pieces of an `intervals` row after its task's part: each member's key, after a comma
/// but the first's; words as JSON strings (as a word cell is written: they need no escapes).
fn interval_pieces(columns: &[ColumnDef], keys: &[Chunked]) -> Option<IntervalPieces> {
    let keys: Vec<Vec<u8>> = keys.iter().map(Chunked::text).collect();
    let task_frame = 1 + keys.iter().take(3).map(Vec::len).sum::<usize>() + 3;
    let own = keys.get(3..10)?;
    let before: Vec<Vec<u8>> = own
        .iter()
        .enumerate()
        .map(|(i, key)| [&b","[..usize::from(i > 0)], key].concat())
        .collect();
    let syntax = Syntax {
        before: std::array::from_fn(|i| &before[i][..]),
        end: b"}\n",
        word: |w| format!("\"{w}\"").into_bytes(),
        null: b"null",
    };
    IntervalPieces::new(columns, task_frame, most, &syntax)
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
        let (keys, lead) = (&self.keys, &mut self.lead);
        self.out.row(bound, |out| {
            out.byte(b'{');
            // The task cells as the row before wrote them, when they are the same.
            lead.write(out, cells, |out, cells| members(out, keys, cells));
            let led = lead.cells();
            if led > 0 {
                out.byte(b',');
            }
            members(out, &keys[led..], &cells[led..]);
            out.bytes(b"}\n");
        })
    }

    /// A task's run of intervals, its `{"pid":…,"tgid":…,"comm":…,` formatted once for the
    /// run and the rest written from the views (as the CSV writer does; README, "Export").
    fn intervals(
        &mut self,
        task: &crate::batch::Named,
        views: &[analysis::timeline_store::IntervalView],
    ) -> std::io::Result<bool> {
        let Some(pieces) = &self.interval_pieces else {
            return Ok(false);
        };
        let keys = &self.keys;
        pieces.write_run(&mut self.out, task, views, text_bound, |out, cells| {
            out.byte(b'{');
            members(out, &keys[..3], cells);
            out.byte(b',');
        })?;
        Ok(true)
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
