//! Writers of one table file: CSV and NDJSON always, Parquet with the `parquet` feature.
//! Each takes rows one at a time ([`RowSink`]) and holds at most a batch of them.

mod csv;
mod cursor;
mod interval_text;
mod ndjson;
#[cfg(feature = "parquet")]
mod parquet;
mod pieces;
#[cfg(test)]
mod record_tests;
#[cfg(test)]
mod tests;
mod text;
mod text_table;
mod wait_text;

use crate::cell::{ColumnDef, RowSink};
use std::path::Path;

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
    Ok(match format {
        Format::Csv => Box::new(csv::create(file, columns)?),
        Format::Ndjson => Box::new(ndjson::create(file, columns)?),
        #[cfg(feature = "parquet")]
        Format::Parquet => Box::new(parquet::ParquetTableWriter::new(file, columns)?),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => {
            return Err(std::io::Error::other(
                Format::Parquet.available().unwrap_err(),
            ))
        }
    })
}

/// Checks a row against the columns (a table's code and its column list disagreeing is
/// a bug that must not write a file whose columns are shifted).
///
/// The count always; each cell's kind against its column's only in debug builds (which
/// the tests are, and they write every table): it is fixed by each table's code, and in
/// the profile of a CSV export checking it on every row was a tenth of a writer thread.
#[inline]
fn check_row(columns: &[ColumnDef], cells: &[crate::cell::Cell]) -> std::io::Result<()> {
    if cells.len() != columns.len() {
        return Err(std::io::Error::other(format!(
            "internal error: a row of {} cells for {} columns",
            cells.len(),
            columns.len()
        )));
    }
    #[cfg(debug_assertions)]
    if let Some((c, cell)) = columns
        .iter()
        .zip(cells)
        .find(|(c, cell)| !cell.fits(c.kind))
    {
        return Err(std::io::Error::other(format!(
            "internal error: column {} ({}) given {cell:?}",
            c.name,
            c.kind.name()
        )));
    }
    Ok(())
}
