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
use std::iter::repeat_n;

/// Whether `names` are the columns of the `intervals` table, in its order.
pub(super) fn is_intervals(names: &[&str]) -> bool {
    let columns = crate::tables::intervals::columns();
    names.len() == columns.len() && names.iter().zip(&columns).all(|(n, c)| *n == c.name)
}

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
    pid.ints(repeat_n(Some(i64::from(task.pid)), n))
        && tgid.ints(repeat_n(task.tgid.map(i64::from), n))
        && comm.repeated_text(&task.comm, n)
        && state_.words(views.iter().map(|v| state(v.state)))
        && cpu.ints(views.iter().map(|v| v.cpu.map(i64::from)))
        && start.ints(views.iter().map(|v| int(v.start_ns)))
        && dur.ints(views.iter().map(|v| int(v.dur_ns)))
        && end.words(views.iter().map(|v| end_reason(v.end)))
        && waker.ints(views.iter().map(|v| v.waker_pid.map(i64::from)))
        && timed.bools(views.iter().map(|v| wakeup(v).then_some(v.latency_timed)))
}
