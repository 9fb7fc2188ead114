//! NDJSON: one JSON object per line, keys in column order, null for null (also for a
//! non-finite real, which JSON cannot hold). Rows are formatted into one byte buffer
//! written out a MiB at a time ([`super::text`]): no allocation per cell.

use super::{check_row, text, TableWriter, FLUSH_BYTES};
use crate::cell::{Cell, ColumnDef, RowSink};
use std::fs::File;
use std::io::Write;

pub(super) struct NdjsonWriter {
    file: File,
    columns: Vec<ColumnDef>,
    /// Each column's name as a JSON string and a colon, made once.
    keys: Vec<Vec<u8>>,
    buffer: Vec<u8>,
}

impl NdjsonWriter {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> NdjsonWriter {
        let keys = columns
            .iter()
            .map(|c| {
                let mut key = Vec::new();
                text::json_text(&mut key, &c.name);
                key.push(b':');
                key
            })
            .collect();
        NdjsonWriter {
            file,
            columns: columns.to_vec(),
            keys,
            buffer: Vec::with_capacity(FLUSH_BYTES + FLUSH_BYTES / 4),
        }
    }
}

impl RowSink for NdjsonWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        let out = &mut self.buffer;
        out.push(b'{');
        for (i, (key, cell)) in self.keys.iter().zip(cells).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(key);
            match cell {
                Cell::Int(n) => text::int(out, *n),
                Cell::Real(x) if x.is_finite() => text::real(out, *x),
                Cell::Text(s) => text::json_text(out, s),
                Cell::Bool(b) => text::bool(out, *b),
                Cell::Real(_) | Cell::Null => out.extend_from_slice(b"null"),
            }
        }
        out.extend_from_slice(b"}\n");
        if out.len() >= FLUSH_BYTES {
            self.file.write_all(out)?;
            out.clear();
        }
        Ok(())
    }
}

impl TableWriter for NdjsonWriter {
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.file.write_all(&self.buffer)?;
        self.file.sync_all()
    }
}
