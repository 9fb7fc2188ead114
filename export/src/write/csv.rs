//! CSV (RFC 4180): a header of column names, then one line per row; null is the empty
//! field, reals in the shortest form that reads back to the same f64, task names quoted
//! where they hold commas, quotes or line breaks ([`super::text`]). Rows are formatted
//! into one byte buffer written out a MiB at a time ([`super::cursor`]): no allocation
//! per cell.

use super::cursor::Cursor;
use super::text;
use super::text_table::{BatchPlan, RowText, TextTable};
use crate::cell::{ColumnDef, Kind};
use crate::columns::{ColumnBatch, Values};
use std::fs::File;

/// CSV's text of a row.
pub(super) struct Csv {
    columns: usize,
}

/// A CSV table of `columns` in `file`, its header written.
pub(super) fn create(file: File, columns: &[ColumnDef]) -> std::io::Result<TextTable<Csv>> {
    let bound = columns.len()
        + columns
            .iter()
            .map(|c| text::csv_text_bound(&c.name))
            .sum::<usize>();
    let mut room = vec![0; bound];
    let mut out = Cursor::new(&mut room);
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            out.byte(b',');
        }
        text::csv_text(&mut out, &column.name);
    }
    out.byte(b'\n');
    let csv = Csv {
        columns: columns.len(),
    };
    TextTable::new(file, csv, out.written())
}

impl RowText for Csv {
    fn frame(&self) -> usize {
        // Commas and the newline.
        self.columns
    }

    fn most(&self, kind: Kind) -> usize {
        text::most(kind)
    }

    #[inline]
    fn special(&self, b: u8) -> bool {
        text::csv_special(b)
    }

    #[inline]
    fn text_bound(&self, len: usize, plain: bool) -> usize {
        if plain {
            len
        } else {
            text::csv_text_bound_of(len)
        }
    }

    /// The row's fields, separated by commas; a null field is empty.
    #[inline]
    fn write(&self, out: &mut Cursor, batch: &ColumnBatch, i: usize, plan: &BatchPlan) {
        for (c, column) in batch.columns.iter().enumerate() {
            if c > 0 {
                out.byte(b',');
            }
            if !column.valid[i] {
                continue;
            }
            match &column.values {
                Values::Int(v) => text::int(out, v[i]),
                Values::Real(v) => text::real(out, v[i]),
                Values::Bool(v) => text::bool(out, v[i]),
                Values::Text { .. } if plan.plain[c] => out.bytes(column.text(i).as_bytes()),
                Values::Text { .. } => text::csv_text(out, column.text(i)),
            }
        }
        out.byte(b'\n');
    }
}
