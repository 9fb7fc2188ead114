//! Parquet through polars (feature `parquet`): rows are gathered into typed column
//! buffers and written as one row group per [`BATCH_ROWS`] rows (zstd), so a table of
//! any length holds one batch in memory.

use super::{check_row, TableWriter};
use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use polars::prelude::*;
use std::fs::File;

/// Rows per row group: large enough for good compression and statistics, small enough
/// to keep a batch of the widest table (tasks, about 100 columns) to some tens of MiB.
const BATCH_ROWS: usize = 1 << 16;

/// One column of the batch being gathered, in polars' own builders: a text cell is
/// copied into the column's buffer (short ones into its views), not into a `String`.
enum Buffer {
    Int(PrimitiveChunkedBuilder<Int64Type>),
    Real(PrimitiveChunkedBuilder<Float64Type>),
    Text(StringChunkedBuilder),
    Bool(BooleanChunkedBuilder),
}

impl Buffer {
    /// An empty buffer; it grows as rows come (a capacity of a whole batch would reserve
    /// tens of MiB for the ~100 columns of a `tasks` table of a few hundred rows).
    fn new(kind: Kind, name: &str) -> Buffer {
        let name = PlSmallStr::from(name);
        match kind {
            Kind::Int => Buffer::Int(PrimitiveChunkedBuilder::new(name, 0)),
            Kind::Real => Buffer::Real(PrimitiveChunkedBuilder::new(name, 0)),
            Kind::Text => Buffer::Text(StringChunkedBuilder::new(name, 0)),
            Kind::Bool => Buffer::Bool(BooleanChunkedBuilder::new(name, 0)),
        }
    }

    /// Appends `cell` (checked to fit the column before).
    fn push(&mut self, cell: &Cell) {
        match (self, cell) {
            (Buffer::Int(b), Cell::Int(n)) => b.append_value(*n),
            (Buffer::Real(b), Cell::Real(x)) => b.append_value(*x),
            (Buffer::Text(b), Cell::Text(s)) => b.append_value(&**s),
            (Buffer::Text(b), Cell::Word(w)) => b.append_value(*w),
            (Buffer::Bool(b), Cell::Bool(v)) => b.append_value(*v),
            (Buffer::Int(b), _) => b.append_null(),
            (Buffer::Real(b), _) => b.append_null(),
            (Buffer::Text(b), _) => b.append_null(),
            (Buffer::Bool(b), _) => b.append_null(),
        }
    }

    /// The buffered values as a polars column, leaving an empty buffer for the next batch.
    fn take(&mut self, column: &ColumnDef) -> Column {
        let fresh = Buffer::new(column.kind, &column.name);
        match std::mem::replace(self, fresh) {
            Buffer::Int(b) => b.finish().into_column(),
            Buffer::Real(b) => b.finish().into_column(),
            Buffer::Text(b) => b.finish().into_column(),
            Buffer::Bool(b) => b.finish().into_column(),
        }
    }
}

fn dtype(kind: Kind) -> DataType {
    match kind {
        Kind::Int => DataType::Int64,
        Kind::Real => DataType::Float64,
        Kind::Text => DataType::String,
        Kind::Bool => DataType::Boolean,
    }
}

pub(super) struct ParquetTableWriter {
    writer: polars::prelude::BatchedWriter<File>,
    columns: Vec<ColumnDef>,
    buffers: Vec<Buffer>,
    rows: usize,
    file: File,
}

fn io(e: PolarsError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl ParquetTableWriter {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> std::io::Result<ParquetTableWriter> {
        let schema = Schema::from_iter(
            columns
                .iter()
                .map(|c| Field::new(PlSmallStr::from(c.name.as_str()), dtype(c.kind))),
        );
        let writer = ParquetWriter::new(file.try_clone()?)
            .with_compression(ParquetCompression::Zstd(None))
            .batched(&schema)
            .map_err(io)?;
        Ok(ParquetTableWriter {
            writer,
            columns: columns.to_vec(),
            buffers: columns
                .iter()
                .map(|c| Buffer::new(c.kind, &c.name))
                .collect(),
            rows: 0,
            file,
        })
    }

    fn flush_batch(&mut self) -> std::io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let columns = self
            .buffers
            .iter_mut()
            .zip(&self.columns)
            .map(|(b, c)| b.take(c))
            .collect();
        let frame = DataFrame::new(self.rows, columns).map_err(io)?;
        self.rows = 0;
        self.writer.write_batch(&frame).map_err(io)
    }
}

impl RowSink for ParquetTableWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        for (b, cell) in self.buffers.iter_mut().zip(cells) {
            b.push(cell);
        }
        self.rows += 1;
        if self.rows == BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }
}

impl TableWriter for ParquetTableWriter {
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.flush_batch()?;
        self.writer.finish().map_err(io)?;
        self.file.sync_all()
    }
}
