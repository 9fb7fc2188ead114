//! The text writers end to end: the bytes of whole files against the `csv` crate's and
//! serde_json's forms of the same rows, made here cell by cell from `to_string`, so the
//! writers' own paths (a row's room, a task's text kept for the next row, words, the
//! flush and a row longer than the buffer) are held to what they replace.

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

fn expected_csv(columns: &[ColumnDef], rows: &[Vec<Cell>]) -> Vec<u8> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(columns.iter().map(|c| &c.name)).unwrap();
    for row in rows {
        w.write_record(row.iter().map(csv_field)).unwrap();
    }
    w.into_inner().unwrap()
}

fn expected_ndjson(columns: &[ColumnDef], rows: &[Vec<Cell>]) -> Vec<u8> {
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

/// Task names that need quoting or escaping, repeated (the task's text kept) and
/// alternating (formatted again), with the integer and real extremes and nulls.
#[test]
fn rows_are_the_bytes_the_csv_crate_and_serde_json_give() {
    // Longer than the chunk a task's text is copied in (`lead::CHUNK`).
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

/// Rows as owned cells, as a table's `row` gives them.
struct Collect(Vec<Vec<Cell<'static>>>);

impl crate::cell::RowSink for Collect {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        let owned = cells.iter().map(|c| match c {
            Cell::Text(s) => Cell::Text(std::borrow::Cow::Owned(s.to_string())),
            Cell::Int(n) => Cell::Int(*n),
            Cell::Real(x) => Cell::Real(*x),
            Cell::Word(w) => Cell::Word(w),
            Cell::Bool(b) => Cell::Bool(*b),
            Cell::Null => Cell::Null,
        });
        self.0.push(owned.collect());
        Ok(())
    }
}

/// The text writers' `intervals` (a task's pid, tgid and name formatted once for its run,
/// the rest from pieces: `interval_text.rs`) write the bytes of the same rows written one
/// by one: every state with every end reason, every kind of null, a name that needs
/// quoting, a time and a length beyond i64, two tasks' runs in turn.
#[test]
fn a_task_s_run_of_intervals_is_written_as_its_rows() {
    use crate::batch::Named;
    use crate::tables::intervals;
    use analysis::timeline_store::{EndReason, IntervalView, ThreadState};
    let view = |state, start_ns, dur_ns, cpu, end, waker_pid, latency_timed| IntervalView {
        start_ns,
        dur_ns,
        state,
        cpu,
        end,
        waker_pid,
        latency_timed,
    };
    let preempt = EndReason::SwitchedOut(analysis::SwitchReason::WakeupPreempt);
    let mut views = vec![
        view(ThreadState::Running, 100, 50, Some(1), preempt, None, false),
        view(
            ThreadState::Sleeping,
            150,
            3,
            None,
            EndReason::Woken,
            None,
            false,
        ),
        view(
            ThreadState::RunnableWakeup,
            153,
            7,
            Some(0),
            EndReason::SwitchedIn,
            Some(0),
            true,
        ),
        view(
            ThreadState::RunnableWakeup,
            160,
            2,
            Some(0),
            EndReason::SwitchedIn,
            None,
            false,
        ),
        view(
            ThreadState::Blocked,
            162,
            1,
            None,
            EndReason::LostTrack,
            None,
            false,
        ),
        view(
            ThreadState::Unknown,
            u64::MAX - 5,
            5,
            None,
            EndReason::TraceEnd,
            None,
            false,
        ),
    ];
    for (i, &state) in intervals::STATES.iter().enumerate() {
        for (j, &end) in crate::tables::END_REASONS.iter().enumerate() {
            let n = (i * 8 + j) as u64;
            let dur = if n == 7 { u64::MAX } else { n * 1_000_003 };
            let cpu = (n % 3 != 0).then_some(n as u32 * 37);
            let waker = (n % 2 == 0).then_some(-(n as i32) * 1001);
            views.push(view(
                state,
                10u64.pow((n % 20) as u32),
                dur,
                cpu,
                end,
                waker,
                n % 4 < 2,
            ));
        }
    }
    let tasks = [
        Named {
            pid: 42,
            tgid: None,
            comm: "a,b \"c\"".into(),
        },
        Named {
            pid: 7,
            tgid: Some(5),
            comm: "bash".into(),
        },
    ];
    let runs = [
        (&tasks[0], &views[..2]),
        (&tasks[1], &views[..]),
        (&tasks[0], &views[2..]),
    ];
    let columns = intervals::columns();
    let mut rows = Collect(Vec::new());
    for (task, run) in runs {
        run.iter()
            .try_for_each(|v| intervals::row(task, v, &mut rows))
            .unwrap();
    }
    assert_eq!(rows.0.len(), 2 + views.len() + views.len() - 2);
    for format in [Format::Csv, Format::Ndjson] {
        let path = std::env::temp_dir().join(format!(
            "schedtrace-text-intervals-{}-{:?}.{}",
            std::process::id(),
            std::thread::current().id(),
            format.extension()
        ));
        let _ = std::fs::remove_file(&path);
        let mut writer = create(format, &path, &columns).unwrap();
        for (task, run) in runs {
            assert!(
                writer.intervals(task, run).unwrap(),
                "{format:?} takes runs"
            );
        }
        writer.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let want = match format {
            Format::Csv => expected_csv(&columns, &rows.0),
            _ => expected_ndjson(&columns, &rows.0),
        };
        assert!(
            bytes == want,
            "{format:?}: {}\n!=\n{}",
            String::from_utf8_lossy(&bytes),
            String::from_utf8_lossy(&want)
        );
    }
}
