//! Parquet through polars (feature `parquet`): rows are gathered into typed column
//! buffers ([`column`]) and written as one row group per [`BATCH_ROWS`] rows, so a table
//! of any length holds one batch in memory.
//!
//! The schema (and so the Arrow schema stored in the file, which pyarrow and polars read
//! the column types from) is polars' own for its `Int64`, `Float64`, `String` and
//! `Boolean` columns. An integer column's page is made here ([`ints`], its values
//! delta-packed by [`delta`]); the other columns' pages are encoded by polars' Parquet
//! writer (`polars-parquet`), called per column rather than through a polars `DataFrame`,
//! so that a text column goes in as the dictionary gathered for it (see [`column`]) and
//! each column with the encodings chosen here ([`encodings`]). The pages are compressed
//! here with one zstd context per file ([`compress`]) and written by polars' file writer.

mod bools;
#[cfg(test)]
mod by_row;
mod column;
mod compress;
mod delta;
mod dense;
mod dictionary;
mod intervals;
mod ints;
mod page;
mod waits;

use super::TableWriter;
use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use column::Column;
use compress::{PageCompressor, Pages};
use polars::prelude::{CompatLevel, DataType, Field, PlSmallStr, PolarsError};
use polars_arrow::array::Array;
use polars_arrow::datatypes::{ArrowDataType, ArrowSchema};
use polars_parquet::parquet::page::Page;
use polars_parquet::write::{
    array_to_columns, get_dtype_encoding, to_parquet_type, CompressionOptions, DynIter,
    DynStreamingIterator, Encoding, FileWriter, ParquetType, StatisticsOptions, Version,
    WriteOptions, ZstdLevel,
};
use std::fs::File;
use std::io::BufWriter;

/// Rows per row group: large enough for good compression and statistics, small enough
/// to keep a batch of the widest table (tasks, about 100 columns) to some tens of MiB.
/// Four times as many took more CPU and memory on the large trace (README, "Export").
const BATCH_ROWS: usize = 1 << 16;

/// The zstd level of every page ([`options`] says why 1).
const ZSTD_LEVEL: i32 = 1;

/// Bytes gathered before a write: a page's header and its data are separate small writes.
const WRITE_BUFFER: usize = 1 << 20;

fn dtype(kind: Kind) -> DataType {
    match kind {
        Kind::Int => DataType::Int64,
        Kind::Real => DataType::Float64,
        Kind::Text => DataType::String,
        Kind::Bool => DataType::Boolean,
    }
}

/// zstd at level 1, not polars' default (3), with the statistics kept. Measured on the
/// `large.trace.dat` of `bench/` (all tables, 54,852,164 rows), whole-process CPU of the
/// export in paired runs, and the dataset's bytes: see README, "Export". Level 1 keeps
/// zstd's ratio near level 3's (a seventh larger) for a cheaper CPU; lz4 and snappy cost
/// about as much CPU as level 1 and write half as much again. The statistics (min, max,
/// null count per page and row group) are what DuckDB, polars' `scan_parquet`, pyarrow's
/// datasets and Spark read to skip row groups under a filter (`start_ns > t`), for a
/// small part of the writer's CPU.
fn options() -> WriteOptions {
    // The pages are compressed by `compress` at ZSTD_LEVEL; the file's metadata says zstd
    // from these options.
    WriteOptions {
        statistics: StatisticsOptions::default(),
        compression: CompressionOptions::Zstd(Some(
            ZstdLevel::try_new(ZSTD_LEVEL).expect("zstd has a level 1"),
        )),
        version: Version::V1,
        data_page_size: None,
    }
}

/// The page encodings of a column of `kind` (Arrow type `dtype`).
///
/// Integers delta-encoded (`DELTA_BINARY_PACKED`, by [`delta`]), not as polars chooses for
/// them: it tries
/// a dictionary for every integer column of each row group, and where the values span too
/// wide a range for its bitmap (every `_ns` column) it estimates their distinct count and
/// then builds the dictionary through a hash table, which was about a fifth of the
/// `intervals` writer's CPU in a profile. The tables' integers are times that grow row by row, lengths, and pids and
/// CPUs that repeat: small deltas, which pack into few bits and leave zstd little to do.
/// Measured on the `large.trace.dat` of `bench/` (all tables), paired runs: 22 % less
/// whole-process CPU than polars' choice and a dataset a quarter smaller (README, "Export").
/// The tests' readers (polars, DuckDB: `tests/export_readers.py` checks the encodings) read
/// it, as do pyarrow and Spark 4.3 (`examples/spark-p99.py`), both run by hand.
fn encodings(kind: Kind, dtype: &ArrowDataType) -> Vec<Encoding> {
    match kind {
        Kind::Int => vec![Encoding::DeltaBinaryPacked],
        Kind::Real | Kind::Text | Kind::Bool => get_dtype_encoding(dtype),
    }
}

/// The tables whose rows a writer takes in bulk ([`RowSink::intervals`], [`RowSink::waits`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gathers {
    /// A task's run of intervals at once ([`intervals`]).
    Intervals,
    /// A batch of waits at once ([`waits`]).
    Waits,
    /// Rows one by one.
    Rows,
}

impl Gathers {
    fn of(columns: &[ColumnDef]) -> Gathers {
        if crate::tables::intervals::are_its_columns(columns) {
            Gathers::Intervals
        } else if crate::tables::waits::are_its_columns(columns) {
            Gathers::Waits
        } else {
            Gathers::Rows
        }
    }
}

pub(super) struct ParquetTableWriter {
    writer: FileWriter<BufWriter<File>>,
    options: WriteOptions,
    columns: Vec<ColumnDef>,
    /// Each column's Parquet type and encodings, as polars derives them from its dtype.
    types: Vec<(ParquetType, Vec<Encoding>)>,
    buffers: Vec<Column>,
    rows: usize,
    compressor: PageCompressor,
    /// The table whose rows come in bulk, gathered column by column, if these are its
    /// columns.
    gathers: Gathers,
}

fn io(e: PolarsError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl ParquetTableWriter {
    pub(super) fn new(file: File, columns: &[ColumnDef]) -> std::io::Result<ParquetTableWriter> {
        let schema: ArrowSchema = columns
            .iter()
            .map(|c| {
                Field::new(PlSmallStr::from(c.name.as_str()), dtype(c.kind))
                    .to_arrow(CompatLevel::newest())
            })
            .collect();
        let types = schema
            .iter_values()
            .zip(columns)
            .map(|(f, c)| Ok((to_parquet_type(f)?, encodings(c.kind, &f.dtype))))
            .collect::<Result<_, PolarsError>>()
            .map_err(io)?;
        let options = options();
        let file = BufWriter::with_capacity(WRITE_BUFFER, file);
        let writer = FileWriter::try_new(file, schema, options).map_err(io)?;
        Ok(ParquetTableWriter {
            writer,
            options,
            columns: columns.to_vec(),
            types,
            buffers: columns.iter().map(|c| Column::new(c.kind)).collect(),
            rows: 0,
            compressor: PageCompressor::new(ZSTD_LEVEL)?,
            gathers: Gathers::of(columns),
        })
    }

    /// Encodes and compresses the gathered rows as one row group.
    fn flush_batch(&mut self) -> std::io::Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let options = self.options;
        let mut pages = Vec::with_capacity(self.buffers.len());
        for (buffer, (type_, encodings)) in self.buffers.iter_mut().zip(&self.types) {
            if let Some(own) = own_pages(buffer, type_) {
                let compressed = own
                    .map_err(io)?
                    .into_iter()
                    .map(|p| self.compressor.page(p));
                let compressed = compressed.collect::<Result<Vec<_>, _>>().map_err(io)?;
                pages.push(Ok(DynStreamingIterator::new(Pages::new(compressed))));
                continue;
            }
            let array: Box<dyn Array> = buffer.take();
            let column = array_to_columns(array, type_.clone(), options, encodings).map_err(io)?;
            for column_pages in column {
                // Compressed now, not as the file writer pulls them: the row group's pages
                // are a few MiB, and the context is this writer's.
                let compressed = column_pages
                    .map(|page| page.and_then(|page| self.compressor.page(page)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(io)?;
                pages.push(Ok(DynStreamingIterator::new(Pages::new(compressed))));
            }
        }
        let rows = std::mem::take(&mut self.rows) as u64;
        self.writer
            .write(rows, DynIter::new(pages.into_iter()))
            .map_err(io)
    }
}

/// The pages of `column` (of `type_`) where they are made here, leaving it empty:
/// integers ([`ints`]), booleans ([`bools`]) and text as a dictionary ([`dictionary`]);
/// None for the others (reals, text written plain), which polars encodes.
fn own_pages(column: &mut Column, type_: &ParquetType) -> Option<Result<Vec<Page>, PolarsError>> {
    let ParquetType::PrimitiveType(primitive) = type_ else {
        return None;
    };
    match column {
        Column::Int(c) => Some(c.page(primitive).map(|p| vec![p])),
        Column::Bool(c) => Some(c.page(primitive).map(|p| vec![p])),
        Column::Text(c) => c.dictionary_pages(primitive).map(|r| r.map(Vec::from)),
        Column::Real(_) => None,
    }
}

impl RowSink for ParquetTableWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        if cells.len() != self.columns.len() {
            return super::check_row(&self.columns, cells);
        }
        // A cell of the wrong kind (a table's bug) ends the table with check_row's
        // message, its file never renamed into place.
        let fits = self.buffers.iter_mut().zip(cells).all(|(b, c)| b.push(c));
        if !fits {
            return super::check_row(&self.columns, cells);
        }
        self.rows += 1;
        if self.rows == BATCH_ROWS {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn intervals(
        &mut self,
        task: &crate::batch::Named,
        mut views: &[analysis::timeline_store::IntervalView],
    ) -> std::io::Result<bool> {
        if self.gathers != Gathers::Intervals {
            return Ok(false);
        }
        while !views.is_empty() {
            // Row groups of BATCH_ROWS rows, as row by row.
            let (now, rest) = views.split_at(views.len().min(BATCH_ROWS - self.rows));
            if !intervals::gather(&mut self.buffers, task, now) {
                return Err(std::io::Error::other(
                    "internal error: the intervals columns are not of the kinds of its rows",
                ));
            }
            self.rows += now.len();
            if self.rows == BATCH_ROWS {
                self.flush_batch()?;
            }
            views = rest;
        }
        Ok(true)
    }

    fn waits(
        &mut self,
        mut waits: &[analysis::records::WaitRecord],
        mut tasks: &[Option<analysis::drain::NameId>],
        names: &[crate::batch::Named],
    ) -> std::io::Result<bool> {
        if self.gathers != Gathers::Waits || waits.len() != tasks.len() {
            return Ok(false);
        }
        while !waits.is_empty() {
            // Row groups of BATCH_ROWS rows, as row by row.
            let n = waits.len().min(BATCH_ROWS - self.rows);
            if !waits::gather(&mut self.buffers, &waits[..n], &tasks[..n], names) {
                return Err(std::io::Error::other(
                    "internal error: the waits columns are not of the kinds of its rows",
                ));
            }
            self.rows += n;
            if self.rows == BATCH_ROWS {
                self.flush_batch()?;
            }
            (waits, tasks) = (&waits[n..], &tasks[n..]);
        }
        Ok(true)
    }
}

impl TableWriter for ParquetTableWriter {
    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        self.flush_batch()?;
        self.writer.end(None).map_err(io)?;
        let file = self.writer.into_inner();
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    }
}
