//! `slices`: every running interval of every task, from the timeline store.
//!
//! A slice here is a running interval, also the open one at the end of the trace and one
//! cut by lost events: together they are the task's runtime. The report's slice
//! statistics count only complete ones (ended by a switch-out: `end_reason` one of
//! `block`, `wakeup_preempt`, `preempt`, `exit`).

use super::{end_reason, task_cells, task_columns};
use crate::batch::Named;
use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use analysis::timeline_store::IntervalView;

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str =
    "one row per running interval of a task (the last one may be open at the trace end)";

pub(crate) fn columns() -> Vec<ColumnDef> {
    let mut columns = task_columns();
    columns.extend([
        ColumnDef::new("cpu", Kind::Int, "cpu", "CPU it ran on"),
        ColumnDef::new("start_ns", Kind::Int, "ns", "switch-in (trace clock)"),
        ColumnDef::new("dur_ns", Kind::Int, "ns", "time on the CPU"),
        ColumnDef::new(
            "end_reason",
            Kind::Text,
            "",
            "block, wakeup_preempt, preempt, exit (a complete slice), lost_track, trace_end",
        ),
    ]);
    columns
}

/// The row of running interval `v` of `task`.
pub(crate) fn row(task: &Named, v: &IntervalView, sink: &mut dyn RowSink) -> std::io::Result<()> {
    let [pid, tgid, comm] = task_cells(task);
    sink.row(&[
        pid,
        tgid,
        comm,
        Cell::opt_int(v.cpu),
        Cell::int(v.start_ns),
        Cell::int(v.dur_ns),
        Cell::word(end_reason(v.end)),
    ])
}
