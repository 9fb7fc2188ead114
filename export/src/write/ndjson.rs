//! NDJSON: one JSON object per line, keys in column order, null for null (also for a
//! non-finite real, which JSON cannot hold). Rows are formatted into one byte buffer
//! written out a MiB at a time ([`super::cursor`], [`super::text`]): no allocation per
//! cell.

use super::cursor::{Chunked, Cursor};
use super::text;
use super::text_table::{BatchPlan, RowText, TextTable};
use crate::cell::{ColumnDef, Kind};
use crate::columns::{ColumnBatch, Values};
use std::fs::File;

/// NDJSON's text of a row.
pub(super) struct Ndjson {
    /// Each column's name as a JSON string and a colon, made once.
    keys: Vec<Chunked>,
}

/// An NDJSON table of `columns` in `file`.
pub(super) fn create(file: File, columns: &[ColumnDef]) -> std::io::Result<TextTable<Ndjson>> {
    let keys: Vec<Chunked> = columns.iter().map(|c| key(&c.name)).collect();
    TextTable::new(file, Ndjson { keys }, b"")
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

impl RowText for Ndjson {
    fn frame(&self) -> usize {
        // Braces, keys, commas, newline.
        self.keys.iter().map(Chunked::len).sum::<usize>() + self.keys.len() + 2
    }

    fn most(&self, kind: Kind) -> usize {
        text::most(kind).max(NULL_BOUND)
    }

    #[inline]
    fn special(&self, b: u8) -> bool {
        text::json_special(b)
    }

    #[inline]
    fn text_bound(&self, len: usize, plain: bool) -> usize {
        let bound = if plain {
            len + 2
        } else {
            text::json_text_bound_of(len)
        };
        bound.max(NULL_BOUND)
    }

    /// The row as an object, each member with its key, separated by commas.
    #[inline]
    fn write(&self, out: &mut Cursor, batch: &ColumnBatch, i: usize, plan: &BatchPlan) {
        out.byte(b'{');
        for (c, (key, column)) in self.keys.iter().zip(&batch.columns).enumerate() {
            if c > 0 {
                out.byte(b',');
            }
            key.write(out);
            if !column.valid[i] {
                out.bytes(b"null");
                continue;
            }
            match &column.values {
                Values::Int(v) => text::int(out, v[i]),
                Values::Real(v) if v[i].is_finite() => text::real(out, v[i]),
                Values::Real(_) => out.bytes(b"null"),
                Values::Bool(v) => text::bool(out, v[i]),
                Values::Text { .. } if plan.plain[c] => {
                    out.byte(b'"');
                    out.bytes(column.text(i).as_bytes());
                    out.byte(b'"');
                }
                Values::Text { .. } => text::json_text(out, column.text(i)),
            }
        }
        out.bytes(b"}\n");
    }
}
