//! The text writers' tables written from their records rather than as cells
//! (`interval_text.rs`, `wait_text.rs`): the bytes of the same rows written one by one,
//! which `tests.rs` holds to the `csv` crate's and serde_json's.

use super::tests::{expected_csv, expected_ndjson};
use super::{create, Format, TableWriter};
use crate::cell::{Cell, ColumnDef};

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

/// The file a writer of `format` for `columns` writes, given its records by `write`.
fn written_by(
    format: Format,
    columns: &[ColumnDef],
    table: &str,
    write: impl FnOnce(&mut dyn TableWriter),
) -> Vec<u8> {
    let path = std::env::temp_dir().join(format!(
        "schedtrace-text-{table}-{}-{:?}.{}",
        std::process::id(),
        std::thread::current().id(),
        format.extension()
    ));
    let _ = std::fs::remove_file(&path);
    let mut writer = create(format, &path, columns).unwrap();
    write(&mut *writer);
    writer.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    bytes
}

/// Whether `bytes` are `rows` of `columns` in `format`, cell by cell.
fn assert_rows(format: Format, columns: &[ColumnDef], rows: &[Vec<Cell>], bytes: &[u8]) {
    let want = match format {
        Format::Csv => expected_csv(columns, rows),
        _ => expected_ndjson(columns, rows),
    };
    assert!(
        bytes == want,
        "{format:?}: {}\n!=\n{}",
        String::from_utf8_lossy(bytes),
        String::from_utf8_lossy(&want)
    );
}

/// The text writers' `intervals` and `slices` (a task's pid, tgid and name formatted once
/// for its run, the rest from pieces) write the bytes of the same rows written one by one:
/// every state with every end reason, every kind of null, a name that needs quoting, a
/// time and a length beyond i64, two tasks' runs in turn.
#[test]
fn a_task_s_run_of_intervals_is_written_as_its_rows() {
    use crate::tables::{intervals, slices};
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
            let cpu = (!n.is_multiple_of(3)).then_some(n as u32 * 37);
            let waker = n.is_multiple_of(2).then_some(-(n as i32) * 1001);
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
    let tasks = crate::batch::test_tasks();
    let runs = [
        (&tasks[0], &views[..2]),
        (&tasks[1], &views[..]),
        (&tasks[0], &views[2..]),
    ];
    assert_eq!(views.len(), 6 + 6 * 8);
    for (table, columns) in [
        ("intervals", intervals::columns()),
        ("slices", slices::columns()),
    ] {
        let mut rows = Collect(Vec::new());
        for (task, run) in runs {
            for v in run {
                match table {
                    "intervals" => intervals::row(task, v, &mut rows).unwrap(),
                    _ if v.state == ThreadState::Running => {
                        slices::row(task, v, &mut rows).unwrap()
                    }
                    _ => {}
                }
            }
        }
        assert!(rows.0.len() >= 2 * 8, "{table}: {}", rows.0.len());
        for format in [Format::Csv, Format::Ndjson] {
            let bytes = written_by(format, &columns, table, |writer| {
                for (task, run) in runs {
                    let taken = match table {
                        "intervals" => writer.intervals(task, run),
                        _ => writer.slices(task, run),
                    };
                    assert!(taken.unwrap(), "{format:?} takes runs of {table}");
                }
            });
            assert_rows(format, &columns, &rows.0, &bytes);
        }
    }
}

/// The text writers' `waits` (from pieces, a task's text kept per name) write the bytes of
/// the same rows written one by one: every kind, every placement class and null, a wait
/// without a task, a time beyond i64, names that need quoting or escaping, tasks taking
/// turns and met again.
#[test]
fn waits_are_written_as_their_rows() {
    use crate::tables::waits::{self, KINDS, PLACEMENTS};
    use analysis::records::WaitRecord;
    let names = crate::batch::test_tasks();
    let mut records = Vec::new();
    let mut tasks = Vec::new();
    let classes: Vec<_> = PLACEMENTS.iter().map(|&c| Some(c)).chain([None]).collect();
    for (i, &kind) in KINDS.iter().enumerate() {
        for (j, &placement) in classes.iter().enumerate() {
            let n = (i * classes.len() + j) as u64;
            let start_ns = if n == 5 { u64::MAX - 10 } else { 1000 * n + 7 };
            records.push(WaitRecord {
                pid: [42, 7, 9][j % 3],
                start_ns,
                end_ns: start_ns + n,
                cpu: n as u32 % 4,
                kind,
                waker_pid: n.is_multiple_of(2).then_some(n as i32 - 3),
                waker_cpu: (!n.is_multiple_of(3)).then_some(n as u32),
                prev_cpu: (n % 4 != 1).then_some(n as u32 * 2),
                placement,
                waker_placement: classes[(j + i) % classes.len()],
            });
            tasks.push((n % 5 != 4).then_some([2, 0, 1][(j + i) % 3]));
        }
    }
    let columns = waits::columns();
    let mut rows = Collect(Vec::new());
    for (w, t) in records.iter().zip(&tasks) {
        waits::row(w, t.map(|t| &names[t as usize]), &mut rows).unwrap();
    }
    for format in [Format::Csv, Format::Ndjson] {
        let bytes = written_by(format, &columns, "waits", |writer| {
            // In two batches, as the lane hands them over.
            let half = records.len() / 2;
            assert!(writer
                .waits(&records[..half], &tasks[..half], &names)
                .unwrap());
            assert!(writer
                .waits(&records[half..], &tasks[half..], &names)
                .unwrap());
        });
        assert_rows(format, &columns, &rows.0, &bytes);
    }
}
