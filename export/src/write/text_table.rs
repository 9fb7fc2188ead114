//! A table file in a text format: what CSV and NDJSON share. One row writer for every
//! table: it reads a [`ColumnBatch`] row by row, each row's cells taken from the columns,
//! and hands them to the format's text of a row ([`RowText`]) in the file's byte buffer.

use super::cursor::{Cursor, TextFile};
use super::BatchWriter;
use crate::cell::Cell;
use crate::columns::ColumnBatch;
use std::fs::File;

/// A format's text of a row of cells.
pub(super) trait RowText: Send {
    /// The most bytes [`RowText::write`] takes for `cells`, a row of the table's columns.
    fn bound(&self, cells: &[Cell]) -> usize;
    fn write(&self, out: &mut Cursor, cells: &[Cell]);
}

/// A table file in the text format `F`.
pub(super) struct TextTable<F> {
    out: TextFile,
    format: F,
}

impl<F: RowText> TextTable<F> {
    /// A table written to `file` in `format`, starting with the bytes of `header`.
    pub(super) fn new(file: File, format: F, header: &[u8]) -> std::io::Result<TextTable<F>> {
        let mut table = TextTable {
            out: TextFile::new(file),
            format,
        };
        table.out.row(header.len(), |out| out.bytes(header))?;
        Ok(table)
    }
}

impl<F: RowText> BatchWriter for TextTable<F> {
    fn write(&mut self, batch: &ColumnBatch) -> std::io::Result<()> {
        let format = &self.format;
        let mut cells = Vec::with_capacity(batch.columns.len());
        for i in 0..batch.len() {
            batch.cells(i, &mut cells);
            self.out
                .row(format.bound(&cells), |out| format.write(out, &cells))?;
        }
        Ok(())
    }

    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.out.finish()
    }
}
