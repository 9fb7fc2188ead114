//! The text writers end to end: the bytes of whole files against the `csv` crate's and
//! serde_json's forms of the same rows, made here cell by cell from `to_string`, so the
//! writers' own paths (a row's room, words, the flush and a row longer than the buffer)
//! are held to what they replace.

use super::{create, Format};
use crate::cell::{Cell, ColumnDef, Kind};

fn columns() -> Vec<ColumnDef> {
    [
        ("pid", Kind::Int),
        ("tgid", Kind::Int),
        ("comm", Kind::Text),
        ("state", Kind::Text),
        ("x", Kind::Real),
        ("timed", Kind::Bool),
        ("n", Kind::Int),
    ]
    .into_iter()
    .map(|(name, kind)| ColumnDef::new(name, kind, "", ""))
    .collect()
}

/// A cell as the CSV field the `csv` crate was given before (its quoting added by it).
fn csv_field(cell: &Cell) -> String {
    match cell {
        Cell::Int(n) => n.to_string(),
        Cell::Real(x) if x.is_finite() => serde_json::Value::from(*x).to_string(),
        Cell::Real(x) => x.to_string(),
        Cell::Text(s) => s.to_string(),
        Cell::Word(w) => w.to_string(),
        Cell::Bool(b) => b.to_string(),
        Cell::Null => String::new(),
    }
}

fn json_value(cell: &Cell) -> serde_json::Value {
    match cell {
        Cell::Int(n) => (*n).into(),
        Cell::Real(x) => {
            serde_json::Number::from_f64(*x).map_or(serde_json::Value::Null, Into::into)
        }
        Cell::Text(s) => s.to_string().into(),
        Cell::Word(w) => (*w).into(),
        Cell::Bool(b) => (*b).into(),
        Cell::Null => serde_json::Value::Null,
    }
}

pub(super) fn expected_csv(columns: &[ColumnDef], rows: &[Vec<Cell>]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns.iter().map(|c| &c.name)).unwrap();
    for row in rows {
        w.write_record(row.iter().map(csv_field)).unwrap();
    }
    w.into_inner().unwrap()
}

pub(super) fn expected_ndjson(columns: &[ColumnDef], rows: &[Vec<Cell>]) -> Vec<u8> {
    let mut out = String::new();
    for row in rows {
        let members: Vec<String> = columns
            .iter()
            .zip(row)
            .map(|(c, cell)| {
                let key = serde_json::to_string(&c.name).unwrap();
                format!("{key}:{}", json_value(cell))
            })
            .collect();
        out.push('{');
        out.push_str(&members.join(","));
        out.push_str("}\n");
    }
    out.into_bytes()
}

fn written(format: Format, columns: &[ColumnDef], rows: &[Vec<Cell>]) -> Vec<u8> {
    let path = std::env::temp_dir().join(format!(
        "schedtrace-text-writers-{}-{:?}-{}.{}",
        std::process::id(),
        std::thread::current().id(),
        rows.len(),
        format.extension()
    ));
    let _ = std::fs::remove_file(&path);
    let mut writer = create(format, &path, columns).unwrap();
    for row in rows {
        writer.row(row).unwrap();
    }
    writer.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

fn check(rows: &[Vec<Cell>]) {
    let columns = columns();
    let csv = written(Format::Csv, &columns, rows);
    assert!(csv == expected_csv(&columns, rows), "CSV differs");
    let ndjson = written(Format::Ndjson, &columns, rows);
    assert!(ndjson == expected_ndjson(&columns, rows), "NDJSON differs");
}

fn row<'a>(pid: i64, tgid: Option<i64>, comm: Option<&'a str>, x: f64, n: i64) -> Vec<Cell<'a>> {
    vec![
        Cell::Int(pid),
        Cell::opt_int(tgid),
        Cell::opt_text(comm),
        Cell::word("runnable_wakeup"),
        Cell::Real(x),
        Cell::Bool(n % 2 == 0),
        Cell::Int(n),
    ]
}

/// Task names that need quoting or escaping, repeated and alternating, with the integer
/// and real extremes and nulls.
#[test]
fn rows_are_the_bytes_the_csv_crate_and_serde_json_give() {
    // Longer than a chunk (`cursor::CHUNK`).
    let long = "a long, \"quoted\" name ".repeat(4);
    let names = [
        long.as_str(),
        "bash",
        "a,b",
        "say \"hi\"",
        "line\nbreak",
        "cr\rhere",
        "back\\slash\u{1}",
        "ünïcødé",
        "",
    ];
    let reals = [
        0.1,
        -0.0,
        1e300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        2.0,
    ];
    let mut rows = Vec::new();
    for (i, name) in names.iter().enumerate() {
        for k in 0..3 {
            let n = (i * 3 + k) as i64;
            rows.push(row(
                7,
                Some(1),
                Some(name),
                reals[n as usize % reals.len()],
                n,
            ));
        }
        rows.push(row(i64::MIN, None, Some(name), f64::MIN_POSITIVE, i64::MAX));
        rows.push(row(i64::MAX, Some(i64::MIN), None, 5e-324, -1));
    }
    // One task renamed (exec) row after row: its text kept must not outlive its name.
    for (n, name) in names.iter().enumerate() {
        rows.push(row(7, Some(1), Some(name), 0.25, n as i64));
    }
    rows.push(row(7, Some(1), None, 0.25, 0));
    rows.push(row(7, None, None, 0.25, 0));
    rows.push(row(7, None, Some("bash"), 0.25, 0));
    rows.push(vec![Cell::Null; 7]);
    rows.push(vec![
        Cell::Int(7),
        Cell::Int(1),
        Cell::text("bash"),
        Cell::text("a, \"text\"\n"),
        Cell::Null,
        Cell::Null,
        Cell::Null,
    ]);
    check(&rows);
}

/// Many rows: several buffers' worth, a table whose task repeats and one whose task changes
/// every row (past the trial of whether to keep its text), and a row longer than a buffer.
#[test]
fn long_tables_and_a_row_longer_than_the_buffer() {
    let names: Vec<String> = (0..50).map(|i| format!("task,{i}")).collect();
    let repeating: Vec<Vec<Cell>> = (0..40_000)
        .map(|i| {
            row(
                i / 100,
                Some(1),
                Some(&names[(i / 100 % 50) as usize]),
                0.5,
                i,
            )
        })
        .collect();
    check(&repeating);
    let changing: Vec<Vec<Cell>> = (0..40_000)
        .map(|i| row(i % 3, Some(i % 2), Some(&names[(i % 50) as usize]), 0.5, i))
        .collect();
    check(&changing);
    let huge = "\"".repeat(3 << 20);
    check(&[
        row(1, None, Some("x"), 1.0, 1),
        row(1, None, Some(&huge), 1.0, 2),
        row(1, None, Some("x"), 1.0, 3),
    ]);
}

/// A row whose cell does not fit its column, or of the wrong length, is an error (the
/// kind check runs in debug builds, which the tests are).
#[test]
fn a_row_that_does_not_fit_the_columns_is_refused() {
    let columns = columns();
    for format in [Format::Csv, Format::Ndjson] {
        let path = std::env::temp_dir().join(format!(
            "schedtrace-text-writers-misfit-{}.{}",
            std::process::id(),
            format.extension()
        ));
        let _ = std::fs::remove_file(&path);
        let mut writer = create(format, &path, &columns).unwrap();
        let mut wrong = row(1, None, Some("x"), 1.0, 1);
        wrong[4] = Cell::Int(3);
        let e = writer.row(&wrong).unwrap_err().to_string();
        assert!(e.contains("column x (float64) given Int(3)"), "{e}");
        let e = writer.row(&wrong[..3]).unwrap_err().to_string();
        assert!(e.contains("a row of 3 cells for 7 columns"), "{e}");
        drop(writer);
        std::fs::remove_file(&path).unwrap();
    }
}
