//! CSV (RFC 4180): a header of column names, then one line per row; null is the empty
//! field, reals in the shortest form that reads back to the same f64, task names quoted
//! where they hold commas, quotes or line breaks ([`super::text`]). Rows are formatted
//! into one byte buffer written out a MiB at a time: no allocation per cell.

use super::{check_row, text, TableWriter, FLUSH_BYTES};
use crate::cell::{Cell, ColumnDef, RowSink};
use std::fs::File;
use std::io::Write;

pub(super) struct CsvWriter {
    file: File,
    columns: Vec<ColumnDef>,
    buffer: Vec<u8>,
}

impl CsvWriter {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> CsvWriter {
        let mut writer = CsvWriter {
            file,
            columns: columns.to_vec(),
            buffer: Vec::with_capacity(FLUSH_BYTES + FLUSH_BYTES / 4),
        };
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                writer.buffer.push(b',');
            }
            text::csv_text(&mut writer.buffer, &c.name);
        }
        writer.buffer.push(b'\n');
        writer
    }
}

/// Appends `cell` as a CSV field.
fn field(out: &mut Vec<u8>, cell: &Cell) {
    match cell {
        Cell::Int(n) => text::int(out, *n),
        Cell::Real(x) => text::real(out, *x),
        Cell::Text(s) => text::csv_text(out, s),
        Cell::Bool(b) => text::bool(out, *b),
        Cell::Null => {}
    }
}

impl RowSink for CsvWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                self.buffer.push(b',');
            }
            field(&mut self.buffer, cell);
        }
        self.buffer.push(b'\n');
        if self.buffer.len() >= FLUSH_BYTES {
            self.file.write_all(&self.buffer)?;
            self.buffer.clear();
        }
        Ok(())
    }
}

impl TableWriter for CsvWriter {
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.file.write_all(&self.buffer)?;
        self.file.sync_all()
    }
}
