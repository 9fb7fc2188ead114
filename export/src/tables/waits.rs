//! `waits`: every wait that ended in a switch-in — wakeup latencies, untimed wakeups and
//! preemption waits — from the analysis' per-event records, taken where the report takes
//! its samples: the `wakeup` rows of a task are its wakeup-latency samples.

use super::who;
use crate::batch::Named;
use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use analysis::records::{PlacementClass, WaitKind, WaitRecord};

/// Every kind of wait, each at the index `kind as usize` gives (a text writer's pieces are
/// looked up so: `write/wait_text.rs`).
pub(crate) const KINDS: [WaitKind; 3] = [
    WaitKind::Wakeup,
    WaitKind::WakeupUntimed,
    WaitKind::Preemption,
];

/// Every placement class, each at the index `class as usize` gives.
pub(crate) const PLACEMENTS: [PlacementClass; 6] = [
    PlacementClass::SameCpu,
    PlacementClass::SameCore,
    PlacementClass::SameLlc,
    PlacementClass::SameNode,
    PlacementClass::RemoteNode,
    PlacementClass::Unknown,
];

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

/// Whether `defs` are this table's columns, in its order (a writer made for them may
/// take a batch of waits at once: [`crate::cell::RowSink::waits`]).
pub(crate) fn are_its_columns(defs: &[ColumnDef]) -> bool {
    super::same_columns(defs, &columns())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_and_class_is_at_its_index() {
        for (i, &k) in KINDS.iter().enumerate() {
            assert_eq!(k as usize, i, "{k:?}");
        }
        for (i, &c) in PLACEMENTS.iter().enumerate() {
            assert_eq!(c as usize, i, "{c:?}");
        }
    }
}
