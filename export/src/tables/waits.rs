//! `waits`: every wait that ended in a switch-in — wakeup latencies, untimed wakeups and
//! preemption waits — from the analysis' per-event records, taken where the report takes
//! its samples: the `wakeup` rows of a task are its wakeup-latency samples.

use super::who;
use crate::batch::Named;
use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use analysis::records::WaitRecord;

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str = "one row per wait runnable to running: a wakeup latency, an untimed wakeup or a preemption wait";

pub(crate) fn columns() -> Vec<ColumnDef> {
    vec![
        ColumnDef::new("pid", Kind::Int, "pid", "the waiting thread"),
        ColumnDef::new("tgid", Kind::Int, "pid", "its process id; null when the trace does not say"),
        ColumnDef::new("comm", Kind::Text, "", "its name (its last one when the row was written)"),
        ColumnDef::new(
            "kind",
            Kind::Text,
            "",
            "wakeup (a wakeup latency sample), wakeup_untimed (sched_wakeup without its sched_waking: no latency), preemption (a preemption wait sample)",
        ),
        ColumnDef::new("start_ns", Kind::Int, "ns", "the wakeup (waking) or the runnable switch-out"),
        ColumnDef::new("end_ns", Kind::Int, "ns", "the switch-in that ended it"),
        ColumnDef::new("dur_ns", Kind::Int, "ns", "end_ns - start_ns: the latency or wait"),
        ColumnDef::new("cpu", Kind::Int, "cpu", "CPU it was switched in on"),
        ColumnDef::new(
            "waker_pid",
            Kind::Int,
            "pid",
            "wakeups: the waking task (0 = an interrupt on an idle CPU), when known",
        ),
        ColumnDef::new("waker_cpu", Kind::Int, "cpu", "wakeups: CPU where the wakeup fired"),
        ColumnDef::new("prev_cpu", Kind::Int, "cpu", "wakeups: CPU of the task's previous slice"),
        ColumnDef::new(
            "placement",
            Kind::Text,
            "",
            "wakeups: cpu seen from prev_cpu: same_cpu, same_core, same_llc, same_node, remote_node, unknown (no topology)",
        ),
        ColumnDef::new(
            "waker_placement",
            Kind::Text,
            "",
            "wakeups: cpu seen from waker_cpu, in the same classes",
        ),
    ]
}

/// The row of wait `w` of `task` (None: its pid named no task when it was drained).
pub(crate) fn row(
    w: &WaitRecord,
    task: Option<&Named>,
    sink: &mut dyn RowSink,
) -> std::io::Result<()> {
    let [tgid, comm] = who(task);
    sink.row(&[
        Cell::int(w.pid),
        tgid,
        comm,
        Cell::word(w.kind.name()),
        Cell::int(w.start_ns),
        Cell::int(w.end_ns),
        Cell::int(w.end_ns - w.start_ns),
        Cell::int(w.cpu),
        Cell::opt_int(w.waker_pid),
        Cell::opt_int(w.waker_cpu),
        Cell::opt_int(w.prev_cpu),
        Cell::opt_word(w.placement.map(|p| p.name())),
        Cell::opt_word(w.waker_placement.map(|p| p.name())),
    ])
}
