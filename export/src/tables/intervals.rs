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

/// Every state, each at the index `state as usize` gives (a text writer's pieces of the
/// table's rows are looked up so: `write/interval_text.rs`).
pub(crate) const STATES: [ThreadState; 6] = [
    ThreadState::Running,
    ThreadState::RunnableWakeup,
    ThreadState::RunnablePreempted,
    ThreadState::Sleeping,
    ThreadState::Blocked,
    ThreadState::Unknown,
];

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

/// Whether `defs` are this table's columns, in its order (a writer made for them may
/// take a task's run of intervals at once: [`crate::cell::RowSink::intervals`]).
pub(crate) fn are_its_columns(defs: &[ColumnDef]) -> bool {
    super::same_columns(defs, &columns())
}

/// The row of interval `v` of `task`.
pub(crate) fn row(task: &Named, v: &IntervalView, sink: &mut dyn RowSink) -> std::io::Result<()> {
    let [pid, tgid, comm] = task_cells(task);
    let [state, cpu, start, dur, end, waker, timed] = own_cells(v);
    sink.row(&[pid, tgid, comm, state, cpu, start, dur, end, waker, timed])
}

/// The cells of interval `v` after its task's (`pid`, `tgid`, `comm`): [`row`]'s, and the
/// CSV writer's, which formats a task's cells once for its run (`RowSink::intervals`).
pub(crate) fn own_cells(v: &IntervalView) -> [Cell<'static>; 7] {
    let wakeup = v.state == ThreadState::RunnableWakeup;
    [
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
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_is_at_its_index() {
        for (i, &s) in STATES.iter().enumerate() {
            assert_eq!(s as usize, i, "{s:?}");
        }
        let mut names: Vec<_> = STATES.iter().map(|&s| state(s)).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), STATES.len());
    }
}
