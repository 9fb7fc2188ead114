//! With the `parquet` feature: the Parquet files hold the same rows as the CSV and NDJSON
//! files of the same export, cell for cell (read back with polars' own reader).

#![cfg(feature = "parquet")]

use export::{Cell, Extras, Format, Kind, Mode, Request, Table};
use polars::prelude::*;
use std::path::{Path, PathBuf};

fn export_as(format: Format, dir: &Path, trace: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let spec = analysis::compare::RunSpec::parse(&format!("x={}", trace.display())).unwrap();
    let request = Request {
        specs: vec![spec],
        labels: Vec::new(),
        inputs: vec![(trace.to_path_buf(), Default::default())],
        dir: dir.to_path_buf(),
        format,
        mode: Mode::New,
        tables: Table::ALL.to_vec(),
        extras: Extras {
            series_ns: 10_000_000,
        },
    };
    export::export(&request, &|_| {}).unwrap();
}

fn part(dir: &Path, table: Table, ext: &str) -> PathBuf {
    dir.join(table.name())
        .join("run=x")
        .join(format!("part-0.{ext}"))
}

/// A NDJSON row's cells, typed by the table's columns.
fn ndjson_cells(table: Table, line: &str) -> Vec<Cell<'static>> {
    let row: serde_json::Map<String, serde_json::Value> = serde_json::from_str(line).unwrap();
    table
        .columns()
        .iter()
        .map(|c| match (&row[&c.name], c.kind) {
            (serde_json::Value::Null, _) => Cell::Null,
            (v, Kind::Int) => Cell::Int(v.as_i64().unwrap()),
            (v, Kind::Real) => Cell::Real(v.as_f64().unwrap()),
            (v, Kind::Text) => Cell::Text(v.as_str().unwrap().to_string().into()),
            (v, Kind::Bool) => Cell::Bool(v.as_bool().unwrap()),
        })
        .collect()
}

fn parquet_cells(path: &Path) -> Vec<Vec<Cell<'static>>> {
    let frame = ParquetReader::new(std::fs::File::open(path).unwrap())
        .finish()
        .unwrap();
    (0..frame.height())
        .map(|i| {
            frame
                .columns()
                .iter()
                .map(|c| match c.get(i).unwrap() {
                    AnyValue::Null => Cell::Null,
                    AnyValue::Int64(n) => Cell::Int(n),
                    AnyValue::Float64(x) => Cell::Real(x),
                    AnyValue::String(s) => Cell::Text(s.to_string().into()),
                    AnyValue::StringOwned(s) => Cell::Text(s.to_string().into()),
                    AnyValue::Boolean(b) => Cell::Bool(b),
                    v => panic!("{}: unexpected {v:?}", c.name()),
                })
                .collect()
        })
        .collect()
}

#[test]
fn parquet_csv_and_ndjson_hold_the_same_rows() {
    let trace = fixtures::trace("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let scratch =
        std::env::temp_dir().join(format!("schedtrace-parquet-rows-{}", std::process::id()));
    let (pq, nd, cs) = (scratch.join("pq"), scratch.join("nd"), scratch.join("csv"));
    export_as(Format::Parquet, &pq, &trace);
    export_as(Format::Ndjson, &nd, &trace);
    export_as(Format::Csv, &cs, &trace);
    for table in Table::ALL {
        let from_json: Vec<Vec<Cell>> = std::fs::read_to_string(part(&nd, table, "ndjson"))
            .unwrap()
            .lines()
            .map(|l| ndjson_cells(table, l))
            .collect();
        let from_parquet = parquet_cells(&part(&pq, table, "parquet"));
        assert_eq!(from_parquet.len(), from_json.len(), "{}", table.name());
        assert!(
            from_parquet == from_json,
            "{}: Parquet rows differ from NDJSON",
            table.name()
        );
        // CSV: the same number of data lines (its cells against NDJSON's: tests/export_dataset.rs).
        let csv_rows = std::fs::read_to_string(part(&cs, table, "csv")).unwrap();
        let mut reader = csv::Reader::from_reader(csv_rows.as_bytes());
        assert_eq!(
            reader.records().count(),
            from_json.len(),
            "{}",
            table.name()
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
