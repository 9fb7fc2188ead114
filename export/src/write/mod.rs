//! Writers of one table file: CSV and NDJSON always, Parquet with the `parquet` feature.
//! A table's rows are gathered into a [`ColumnBatch`] ([`TableFile`]); each full batch, and
//! the last, goes to the format's [`BatchWriter`], so a file of any length holds one batch
//! in memory: a Parquet row group's rows ([`BATCH_ROWS`]), or, in the text formats, where a
//! batch is only a buffer, fewer ([`TEXT_BATCH_ROWS`]).

mod csv;
mod cursor;
mod ndjson;
#[cfg(feature = "parquet")]
mod parquet;
#[cfg(test)]
mod tests;
mod text;
mod text_table;

use crate::cell::{Cell, ColumnDef, RowSink};
use crate::columns::ColumnBatch;
use std::path::Path;

/// Rows per batch, and so per Parquet row group. Fewer rows hold less of each table in
/// memory at once, but polars' file writer keeps every page's description until the footer,
/// so more row groups cost memory too; at 32,768 rows the two are about even, the files as
/// small as at 65,536 (bench/README.md, "Parquet export: row groups").
pub(crate) const BATCH_ROWS: usize = 1 << 15;

/// Rows per batch in CSV and NDJSON, whose files are the same bytes whatever the batch: a
/// batch of each of the four tables written as the trace is read stays within the caches'
/// reach, and the four tables' batches stay a small part of the export's memory.
const TEXT_BATCH_ROWS: usize = 1 << 13;

/// File format of a dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Ndjson,
    Parquet,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Ndjson => "ndjson",
            Format::Parquet => "parquet",
        }
    }

    pub fn parse(name: &str) -> Result<Format, String> {
        match name {
            "csv" => Ok(Format::Csv),
            "ndjson" => Ok(Format::Ndjson),
            "parquet" => Ok(Format::Parquet),
            _ => Err(format!("`{name}`: formats are csv, ndjson, parquet")),
        }
    }

    /// The file extension.
    pub(crate) fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Ndjson => "ndjson",
            Format::Parquet => "parquet",
        }
    }

    /// Whether this build writes it (Parquet needs the `parquet` feature).
    pub fn available(self) -> Result<(), String> {
        if self == Format::Parquet && !cfg!(feature = "parquet") {
            return Err("--format parquet: this schedtrace was built without the `parquet` feature \
                        (polars); rebuild with `cargo build --release --features parquet`, or export \
                        --format csv or ndjson"
                .into());
        }
        Ok(())
    }

    /// The default: Parquet when this build has it, else CSV.
    pub fn default_for_build() -> Format {
        if cfg!(feature = "parquet") {
            Format::Parquet
        } else {
            Format::Csv
        }
    }
}

/// A table file being written: rows, then [`TableWriter::finish`] (which flushes and
/// syncs it; the caller renames it into place after).
pub(crate) trait TableWriter: RowSink + Send {
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

/// A format's writer of a table's batches.
pub(crate) trait BatchWriter: Send {
    /// Writes the batch's rows after those written before. The batch is emptied after; a
    /// writer may take its columns' buffers rather than copy them.
    fn write(&mut self, batch: &mut ColumnBatch) -> std::io::Result<()>;
    /// Writes what the format ends a file with, and syncs it.
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

/// A table's rows gathered into a batch, written by the format a batch at a time.
struct TableFile {
    batch: ColumnBatch,
    /// The rows a batch gathers before it is written.
    rows_per_batch: usize,
    format: Box<dyn BatchWriter>,
}

impl RowSink for TableFile {
    #[inline]
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        self.batch.row(cells)?;
        if self.batch.len() >= self.rows_per_batch {
            self.format.write(&mut self.batch)?;
            self.batch.clear();
        }
        Ok(())
    }
}

impl TableWriter for TableFile {
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        if self.batch.len() > 0 {
            self.format.write(&mut self.batch)?;
        }
        self.format.finish()
    }
}

/// Creates `path` (which must not exist) for a table of `columns` in `format`.
pub(crate) fn create(
    format: Format,
    path: &Path,
    columns: &[ColumnDef],
) -> std::io::Result<Box<dyn TableWriter>> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    let writer: Box<dyn BatchWriter> = match format {
        Format::Csv => Box::new(csv::create(file, columns)?),
        Format::Ndjson => Box::new(ndjson::create(file, columns)?),
        #[cfg(feature = "parquet")]
        Format::Parquet => Box::new(parquet::ParquetTable::new(file, columns)?),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => {
            return Err(std::io::Error::other(
                Format::Parquet.available().unwrap_err(),
            ))
        }
    };
    let rows_per_batch = match format {
        Format::Csv | Format::Ndjson => TEXT_BATCH_ROWS,
        Format::Parquet => BATCH_ROWS,
    };
    Ok(Box::new(TableFile {
        batch: ColumnBatch::new(columns),
        rows_per_batch,
        format: writer,
    }))
}
