//! Parquet through polars (feature `parquet`), by its public API only: each batch becomes a
//! `DataFrame` of one `Series` a column, written as one row group by polars' batched
//! `ParquetWriter`; the file's schema is the table's, declared before the first batch, so
//! a table with no rows is still a file readers take with its columns and types.
//!
//! zstd at polars' default level: `ParquetCompression::Zstd` takes a level only as a type
//! of polars' internal Parquet crate, which the public API does not export. Statistics stay on (min, max, null count per row group), which DuckDB,
//! polars' `scan_parquet`, pyarrow's datasets and Spark read to skip row groups under a
//! filter (`start_ns > t`). The encodings are polars' own choice.

use super::BatchWriter;
use crate::cell::{ColumnDef, Kind};
use crate::columns::{Column, ColumnBatch, Values};
use polars::prelude::*;
use std::fs::File;

fn dtype(kind: Kind) -> DataType {
    match kind {
        Kind::Int => DataType::Int64,
        Kind::Real => DataType::Float64,
        Kind::Text => DataType::String,
        Kind::Bool => DataType::Boolean,
    }
}

/// A table's Parquet file being written.
pub(super) struct ParquetTable {
    writer: BatchedWriter<File>,
    /// The same file, to sync when the footer is written.
    file: File,
}

fn io(e: PolarsError) -> std::io::Error {
    std::io::Error::other(format!("Parquet: {e}"))
}

impl ParquetTable {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> std::io::Result<ParquetTable> {
        let schema = Schema::from_iter(
            columns
                .iter()
                .map(|c| Field::new(c.name.as_str().into(), dtype(c.kind))),
        );
        let writer = ParquetWriter::new(file.try_clone()?)
            .with_compression(ParquetCompression::Zstd(None))
            .with_statistics(StatisticsOptions::default())
            .with_row_group_size(Some(super::BATCH_ROWS))
            // Encoded on this thread (a writer thread at its lowered priority), not on
            // polars' pool beside the analysis.
            .set_parallel(false)
            .batched(&schema)
            .map_err(io)?;
        Ok(ParquetTable { writer, file })
    }
}

/// `column` as a polars column named `name`: its values, and its nulls where it has any.
/// Integer and real columns without nulls hand their buffer to polars (the batch is
/// emptied after the write): a copy of each would be as large as the batch.
fn series(name: &str, column: &mut Column) -> Series {
    let name = PlSmallStr::from_str(name);
    let valid = &column.valid;
    let with_nulls = column.nulls > 0;
    match &mut column.values {
        Values::Int(v) if with_nulls => Series::new(name, opt(v, valid)),
        Values::Int(v) => Int64Chunked::from_vec(name, std::mem::take(v)).into_series(),
        Values::Real(v) if with_nulls => Series::new(name, opt(v, valid)),
        Values::Real(v) => Float64Chunked::from_vec(name, std::mem::take(v)).into_series(),
        Values::Bool(v) if with_nulls => Series::new(name, opt(v, valid)),
        Values::Bool(v) => Series::new(name, v.as_slice()),
        Values::Text { .. } => {
            let texts: Vec<Option<&str>> = (0..valid.len())
                .map(|i| valid[i].then(|| column.text(i)))
                .collect();
            Series::new(name, texts)
        }
    }
}

fn opt<T: Copy>(values: &[T], valid: &[bool]) -> Vec<Option<T>> {
    values
        .iter()
        .zip(valid)
        .map(|(&v, &ok)| ok.then_some(v))
        .collect()
}

impl BatchWriter for ParquetTable {
    fn write(&mut self, batch: &mut ColumnBatch) -> std::io::Result<()> {
        let rows = batch.len();
        let columns: Vec<polars::prelude::Column> = batch
            .defs
            .iter()
            .zip(&mut batch.columns)
            .map(|(def, column)| series(&def.name, column).into())
            .collect();
        let frame = DataFrame::new(rows, columns).map_err(io)?;
        self.writer.write_batch(&frame).map_err(io)
    }

    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.writer.finish().map_err(io)?;
        self.file.sync_all()
    }
}
