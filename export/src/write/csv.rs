//! CSV (RFC 4180 through the `csv` crate: task names hold commas, quotes and spaces):
//! a header of column names, then one line per row; null is the empty field, reals in
//! Rust's shortest form that reads back to the same f64.

use super::{check_row, real_text, TableWriter};
use crate::cell::{Cell, ColumnDef};
use crate::tables::RowSink;
use std::fs::File;
use std::io::BufWriter;

pub struct CsvWriter {
    out: csv::Writer<BufWriter<File>>,
    columns: Vec<ColumnDef>,
    record: Vec<String>,
}

impl CsvWriter {
    pub fn new(file: File, columns: &[ColumnDef]) -> std::io::Result<CsvWriter> {
        let mut out = csv::WriterBuilder::new().from_writer(BufWriter::new(file));
        out.write_record(columns.iter().map(|c| c.name.as_str()))?;
        Ok(CsvWriter {
            out,
            columns: columns.to_vec(),
            record: Vec::new(),
        })
    }
}

fn field(cell: &Cell) -> String {
    match cell {
        Cell::Int(n) => n.to_string(),
        Cell::Real(x) => real_text(*x),
        Cell::Text(s) => s.clone(),
        Cell::Bool(b) => b.to_string(),
        Cell::Null => String::new(),
    }
}

impl RowSink for CsvWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        self.record.clear();
        self.record.extend(cells.iter().map(field));
        Ok(self.out.write_record(&self.record)?)
    }
}

impl TableWriter for CsvWriter {
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .into_inner()
            .map_err(|e| e.into_error())?;
        file.sync_all()
    }
}
