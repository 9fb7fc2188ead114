//! `preemptions`: every wakeup preemption (docs/metrics.md §5), from the analysis'
//! per-event records: their count is the report's `system.wakeup_preemption.count`.

use super::{who, RowSink};
use crate::cell::{Cell, ColumnDef, Kind};
use analysis::drain::Who;
use analysis::records::PreemptionRecord;

pub const DOC: &str =
    "one row per wakeup preemption: a woken task took the CPU from the task running there";

pub fn columns() -> Vec<ColumnDef> {
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

pub fn rows(
    preemptions: &[PreemptionRecord],
    tasks: &Who,
    sink: &mut dyn RowSink,
) -> std::io::Result<()> {
    let name = |pid: Option<i32>| match pid {
        Some(0) => Cell::text("<idle>"),
        Some(p) => {
            let [_, comm] = who(tasks(p));
            comm
        }
        None => Cell::Null,
    };
    for p in preemptions {
        sink.row(&[
            Cell::int(p.ts_ns),
            Cell::int(p.cpu),
            Cell::opt_int(p.waker_pid),
            name(p.waker_pid),
            Cell::int(p.wakee_pid),
            name(Some(p.wakee_pid)),
            Cell::int(p.victim_pid),
            name(Some(p.victim_pid)),
        ])?;
    }
    Ok(())
}
