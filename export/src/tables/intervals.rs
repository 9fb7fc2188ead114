//! `intervals`: the timeline store, every state interval of every task (Perfetto's
//! `thread_state` shape). A task's intervals tile its life: each starts where the one
//! before it ended.

use super::{end_reason, task_cells, task_columns};
use crate::batch::Named;
use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use analysis::timeline_store::{IntervalView, ThreadState};

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str =
    "one row per state interval of a task: running, runnable, sleeping, blocked, unknown";

pub(crate) fn state(s: ThreadState) -> &'static str {
    match s {
        ThreadState::Running => "running",
        ThreadState::RunnableWakeup => "runnable_wakeup",
        ThreadState::RunnablePreempted => "runnable_preempted",
        ThreadState::Sleeping => "sleeping",
        ThreadState::Blocked => "blocked",
        ThreadState::Unknown => "unknown",
    }
}

pub(crate) fn columns() -> Vec<ColumnDef> {
    let mut columns = task_columns();
    columns.extend([
        ColumnDef::new(
            "state",
            Kind::Text,
            "",
            "running, runnable_wakeup, runnable_preempted, sleeping, blocked (D), unknown",
        ),
        ColumnDef::new(
            "cpu",
            Kind::Int,
            "cpu",
            "running: its CPU; runnable: the runqueue's CPU at the end of the wait; else null",
        ),
        ColumnDef::new("start_ns", Kind::Int, "ns", "start (trace clock)"),
        ColumnDef::new("dur_ns", Kind::Int, "ns", "length"),
        ColumnDef::new(
            "end_reason",
            Kind::Text,
            "",
            "switched_in, block, wakeup_preempt, preempt, exit, woken, lost_track, trace_end",
        ),
        ColumnDef::new(
            "waker_pid",
            Kind::Int,
            "pid",
            "runnable_wakeup: the waking task (0 = an interrupt on an idle CPU), when known",
        ),
        ColumnDef::new(
            "latency_timed",
            Kind::Bool,
            "",
            "runnable_wakeup: false when the wait's start was not observed (no sched_waking)",
        ),
    ]);
    columns
}

/// The row of interval `v` of `task`.
pub(crate) fn row(task: &Named, v: &IntervalView, sink: &mut dyn RowSink) -> std::io::Result<()> {
    let [pid, tgid, comm] = task_cells(task);
    let wakeup = v.state == ThreadState::RunnableWakeup;
    sink.row(&[
        pid,
        tgid,
        comm,
        Cell::word(state(v.state)),
        Cell::opt_int(v.cpu),
        Cell::int(v.start_ns),
        Cell::int(v.dur_ns),
        Cell::word(end_reason(v.end)),
        Cell::opt_int(v.waker_pid),
        if wakeup {
            Cell::Bool(v.latency_timed)
        } else {
            Cell::Null
        },
    ])
}
