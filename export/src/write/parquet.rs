//! Parquet through polars (feature `parquet`): rows are gathered into typed column
//! buffers and written as one row group per [`BATCH_ROWS`] rows (zstd), so a table of
//! any length holds one batch in memory.

use super::{check_row, TableWriter};
use crate::cell::{Cell, ColumnDef, Kind};
use crate::tables::RowSink;
use polars::prelude::*;
use std::fs::File;

/// Rows per row group: large enough for good compression and statistics, small enough
/// to keep a batch of the widest table (tasks, about 100 columns) to some tens of MiB.
const BATCH_ROWS: usize = 1 << 16;

enum Buffer {
    Int(Vec<Option<i64>>),
    Real(Vec<Option<f64>>),
    Text(Vec<Option<String>>),
    Bool(Vec<Option<bool>>),
}

impl Buffer {
    fn new(kind: Kind) -> Buffer {
        match kind {
            Kind::Int => Buffer::Int(Vec::new()),
            Kind::Real => Buffer::Real(Vec::new()),
            Kind::Text => Buffer::Text(Vec::new()),
            Kind::Bool => Buffer::Bool(Vec::new()),
        }
    }

    /// Appends `cell` (checked to fit the column before).
    fn push(&mut self, cell: &Cell) {
        match (self, cell) {
            (Buffer::Int(v), Cell::Int(n)) => v.push(Some(*n)),
            (Buffer::Real(v), Cell::Real(x)) => v.push(Some(*x)),
            (Buffer::Text(v), Cell::Text(s)) => v.push(Some(s.clone())),
            (Buffer::Bool(v), Cell::Bool(b)) => v.push(Some(*b)),
            (Buffer::Int(v), _) => v.push(None),
            (Buffer::Real(v), _) => v.push(None),
            (Buffer::Text(v), _) => v.push(None),
            (Buffer::Bool(v), _) => v.push(None),
        }
    }

    /// The buffered values as a polars column, leaving the buffer empty.
    fn take(&mut self, name: &str) -> Column {
        let name = PlSmallStr::from(name);
        match self {
            Buffer::Int(v) => Column::new(name, std::mem::take(v)),
            Buffer::Real(v) => Column::new(name, std::mem::take(v)),
            Buffer::Text(v) => Column::new(name, std::mem::take(v)),
            Buffer::Bool(v) => Column::new(name, std::mem::take(v)),
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

pub struct ParquetTableWriter {
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
    pub fn new(file: File, columns: &[ColumnDef]) -> std::io::Result<ParquetTableWriter> {
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
            buffers: columns.iter().map(|c| Buffer::new(c.kind)).collect(),
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
            .map(|(b, c)| b.take(&c.name))
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
