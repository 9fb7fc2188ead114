//! `preemptions`: every wakeup preemption (docs/metrics.md §5), from the analysis'
//! per-event records: their count is the report's `system.wakeup_preemption.count`.

use crate::cell::{Cell, ColumnDef, Kind, RowSink};
use analysis::records::PreemptionRecord;

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str =
    "one row per wakeup preemption: a woken task took the CPU from the task running there";

pub(crate) fn columns() -> Vec<ColumnDef> {
    vec![
        ColumnDef::new("ts_ns", Kind::Int, "ns", "the switch (trace clock)"),
        ColumnDef::new("cpu", Kind::Int, "cpu", "CPU of the switch"),
        ColumnDef::new(
            "waker_pid",
            Kind::Int,
            "pid",
            "the task that woke the wakee (0 = an interrupt on an idle CPU), when known",
        ),
        ColumnDef::new("waker_comm", Kind::Text, "", "its name"),
        ColumnDef::new(
            "wakee_pid",
            Kind::Int,
            "pid",
            "the woken task that took the CPU",
        ),
        ColumnDef::new("wakee_comm", Kind::Text, "", "its name"),
        ColumnDef::new(
            "victim_pid",
            Kind::Int,
            "pid",
            "the task switched out, still runnable",
        ),
        ColumnDef::new("victim_comm", Kind::Text, "", "its name"),
    ]
}

/// The waker's name when it is pid 0 (an interrupt on an idle CPU).
pub(crate) const IDLE: &str = "<idle>";

/// The row of wakeup preemption `p`; `names`: its waker's, wakee's and victim's (None when
/// the pid named no task when it was drained, or no waker is known).
pub(crate) fn row(
    p: &PreemptionRecord,
    names: &[Option<&str>; 3],
    sink: &mut dyn RowSink,
) -> std::io::Result<()> {
    let [waker, wakee, victim] = names.map(Cell::opt_text);
    sink.row(&[
        Cell::int(p.ts_ns),
        Cell::int(p.cpu),
        Cell::opt_int(p.waker_pid),
        waker,
        Cell::int(p.wakee_pid),
        wakee,
        Cell::int(p.victim_pid),
        victim,
    ])
}
