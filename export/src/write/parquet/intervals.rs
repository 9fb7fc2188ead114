//! The `intervals` table gathered column by column: a task's run of intervals goes into
//! each column in one loop, its pid, tgid and name once for the run.
//!
//! Row by row, each of its rows (21 M of the 33 M rows of all tables on the large trace of
//! `bench/`) was ten [`Cell`]s built, the task's name compared with the row before's, and
//! each cell matched against its column. Gathered so, the Parquet export took 0.92 times
//! the CPU and wall time (paired runs, README "Export"). `slices` and `waits`, a fifth as
//! many rows, gained nothing measurable so and stay row by row. The values are those of
//! [`crate::tables::intervals::row`] (the same conversions, the same words), and
//! `tests/parquet_rows.rs` holds the Parquet file to the CSV's rows cell for cell.
//!
//! [`Cell`]: crate::cell::Cell

use super::column::Column;
use crate::batch::Named;
use crate::tables::{end_reason, intervals::state};
use analysis::timeline_store::{IntervalView, ThreadState};

/// Like [`Cell::int`](crate::cell::Cell::int): null when out of range.
fn int(n: u64) -> Option<i64> {
    i64::try_from(n).ok()
}

/// Appends a row per view of `views` (of `task`) to `buffers`, the columns of
/// `intervals`; false when a column is not of the kind that table gives it (a bug).
pub(super) fn gather(buffers: &mut [Column], task: &Named, views: &[IntervalView]) -> bool {
    let [pid, tgid, comm, state_, cpu, start, dur, end, waker, timed] = buffers else {
        return false;
    };
    let n = views.len();
    let wakeup = |v: &IntervalView| v.state == ThreadState::RunnableWakeup;
    pid.repeated_int(Some(i64::from(task.pid)), n)
        && tgid.repeated_int(task.tgid.map(i64::from), n)
        && comm.repeated_text(&task.comm, n)
        && state_.words(views.iter().map(|v| Some(state(v.state))))
        && cpu.ints(views.iter().map(|v| v.cpu.map(i64::from)))
        && start.ints(views.iter().map(|v| int(v.start_ns)))
        && dur.ints(views.iter().map(|v| int(v.dur_ns)))
        && end.words(views.iter().map(|v| Some(end_reason(v.end))))
        && waker.ints(views.iter().map(|v| v.waker_pid.map(i64::from)))
        && timed.bools(views.iter().map(|v| wakeup(v).then_some(v.latency_timed)))
}

#[cfg(test)]
mod tests {
    use super::super::by_row::{self, ByRow};
    use super::*;
    use analysis::timeline_store::EndReason;
    use analysis::SwitchReason;

    fn columns() -> Vec<Column> {
        by_row::columns(&crate::tables::intervals::columns())
    }

    fn view(state: ThreadState, start_ns: u64, dur_ns: u64, end: EndReason) -> IntervalView {
        IntervalView {
            start_ns,
            dur_ns,
            state,
            cpu: None,
            end,
            waker_pid: None,
            latency_timed: false,
        }
    }

    /// Every state, every kind of null (no tgid, no CPU, no waker, the flag of a state that
    /// has none, a time beyond i64), and two tasks one after the other: the columns
    /// gathered in bulk are the arrays the rows' cells make, column for column.
    #[test]
    fn a_run_gathered_by_column_equals_its_rows() {
        let running = IntervalView {
            cpu: Some(1),
            ..view(
                ThreadState::Running,
                100,
                50,
                EndReason::SwitchedOut(SwitchReason::WakeupPreempt),
            )
        };
        let woken = IntervalView {
            cpu: Some(0),
            waker_pid: Some(0),
            latency_timed: true,
            ..view(ThreadState::RunnableWakeup, 150, 7, EndReason::SwitchedIn)
        };
        let untimed = IntervalView {
            latency_timed: false,
            waker_pid: None,
            ..woken
        };
        let views = [
            running,
            view(ThreadState::Sleeping, 157, 3, EndReason::Woken),
            woken,
            view(ThreadState::Blocked, 160, 1, EndReason::LostTrack),
            untimed,
            view(
                ThreadState::RunnablePreempted,
                170,
                2,
                EndReason::SwitchedIn,
            ),
            view(ThreadState::Unknown, u64::MAX - 5, 5, EndReason::TraceEnd),
        ];
        let first = Named {
            pid: 42,
            tgid: None,
            comm: "a,b \"c\"".into(),
        };
        let second = Named {
            pid: 7,
            tgid: Some(5),
            comm: "bash".into(),
        };
        let (mut bulk, mut rows) = (columns(), ByRow(columns()));
        for (task, run) in [
            (&first, &views[..4]),
            (&second, &views[4..]),
            (&first, &views[..]),
        ] {
            assert!(gather(&mut bulk, task, run));
            for v in run {
                crate::tables::intervals::row(task, v, &mut rows).unwrap();
            }
        }
        by_row::assert_same(&mut bulk, &mut rows, 14);
    }

    #[test]
    fn columns_of_another_table_are_refused() {
        use crate::tables::{intervals, slices};
        assert!(intervals::are_its_columns(&intervals::columns()));
        assert!(!intervals::are_its_columns(&slices::columns()));
        let mut slices: Vec<Column> = crate::tables::slices::columns()
            .iter()
            .map(|c| Column::new(c.kind))
            .collect();
        let task = Named {
            pid: 1,
            tgid: None,
            comm: "x".into(),
        };
        assert!(!gather(&mut slices, &task, &[]));
    }
}
