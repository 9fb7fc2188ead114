//! NDJSON: one JSON object per line, keys in column order, null for null (also for a
//! non-finite real, which JSON cannot hold).

use super::{check_row, real_text, TableWriter};
use crate::cell::{Cell, ColumnDef};
use crate::tables::RowSink;
use std::fs::File;
use std::io::{BufWriter, Write};

pub struct NdjsonWriter {
    out: BufWriter<File>,
    columns: Vec<ColumnDef>,
    /// Each column's name as a JSON string and a colon, made once.
    keys: Vec<String>,
}

impl NdjsonWriter {
    pub fn new(file: File, columns: &[ColumnDef]) -> NdjsonWriter {
        let keys = columns
            .iter()
            .map(|c| format!("{}:", serde_json::Value::from(c.name.as_str())))
            .collect();
        NdjsonWriter {
            out: BufWriter::new(file),
            columns: columns.to_vec(),
            keys,
        }
    }
}

impl RowSink for NdjsonWriter {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.columns, cells)?;
        self.out.write_all(b"{")?;
        for (i, (key, cell)) in self.keys.iter().zip(cells).enumerate() {
            if i > 0 {
                self.out.write_all(b",")?;
            }
            self.out.write_all(key.as_bytes())?;
            match cell {
                Cell::Int(n) => write!(self.out, "{n}")?,
                Cell::Real(x) if x.is_finite() => self.out.write_all(real_text(*x).as_bytes())?,
                Cell::Text(s) => serde_json::to_writer(&mut self.out, s)?,
                Cell::Bool(b) => write!(self.out, "{b}")?,
                Cell::Real(_) | Cell::Null => self.out.write_all(b"null")?,
            }
        }
        self.out.write_all(b"}\n")
    }
}

impl TableWriter for NdjsonWriter {
    fn finish(self: Box<Self>) -> std::io::Result<()> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    }
}
