//! NDJSON: one JSON object per line, keys in column order, null for null (also for a
//! non-finite real, which JSON cannot hold). Rows are formatted into one byte buffer
//! written out a MiB at a time ([`super::cursor`], [`super::text`]): no allocation per
//! cell.

use super::cursor::{Chunked, Cursor, RowBound, TextFile};
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
    /// For the `intervals` table: the bound of a row's members after its task's, which are
    /// formatted once for a task's run ([`RowSink::intervals`]).
    interval_tail: Option<RowBound>,
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
            interval_tail: crate::tables::intervals::are_its_columns(columns).then(|| {
                // The keys, the commas between the seven members, the closing brace, the newline.
                let frame = keys[3..].iter().map(Chunked::len).sum::<usize>() + 6 + 2;
                RowBound::new(&columns[3..], frame, most)
            }),
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
    /// run (as the CSV writer does; README, "Export").
    fn intervals(
        &mut self,
        task: &crate::batch::Named,
        views: &[analysis::timeline_store::IntervalView],
    ) -> std::io::Result<bool> {
        let Some(tail) = &self.interval_tail else {
            return Ok(false);
        };
        let lead = crate::tables::task_cells(task);
        let keys = &self.keys;
        let bound = keys[..3].iter().map(Chunked::len).sum::<usize>()
            + 2 * text::INT_BOUND.max(NULL_BOUND)
            + text_bound(&lead[2])
            + 4;
        let prefix = Chunked::formatted(bound, |out| {
            out.byte(b'{');
            members(out, &keys[..3], &lead);
            out.byte(b',');
        });
        self.out
            .interval_rows(&prefix, tail, views, text_bound, |out, cells| {
                members(out, &keys[3..], cells);
                out.bytes(b"}\n");
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
