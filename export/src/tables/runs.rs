//! `runs`: one row per trace — its label, where it came from, what it covers, its data
//! quality and the system metrics `compare` compares (named from the catalogue).
//!
//! Its row is computed when the trace is analysed ([`facts`], small), and written with
//! the label once every input is analysed (automatic labels need the kernel release).

use crate::cell::{Cell, ColumnDef, Kind};
use analysis::columns::SYSTEM_COLUMNS;
use analysis::Report;

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str = "one row per trace: label, file, format, kernel, scheduler, CPUs, window, events, losses, quality, topology, system metrics";

/// `wakeup_latency.p99_ns` → `wakeup_latency_p99_ns`: a column name without dots (SQL
/// would need quotes around it).
pub(crate) fn flat_name(key: &str) -> String {
    key.replace('.', "_")
}

pub(crate) fn columns() -> Vec<ColumnDef> {
    let fixed = [
        (
            "label",
            Kind::Text,
            "",
            "the run's label (as compare shows it); `run` (the partition) is it made path-safe",
        ),
        (
            "repeat",
            Kind::Int,
            "count",
            "the repeat's index in its run, from 0: its rows of every table are in part-<repeat> files",
        ),
        ("file", Kind::Text, "", "the input as given"),
        (
            "format",
            Kind::Text,
            "",
            "trace.dat, perf.data, text, perfetto",
        ),
        ("format_version", Kind::Text, "", "the format's version"),
        (
            "kernel_release",
            Kind::Text,
            "",
            "uname -r of the traced kernel, when known",
        ),
        (
            "scheduler",
            Kind::Text,
            "",
            "scheduler family: CFS, EEVDF, BFS family, unknown",
        ),
        (
            "scheduler_name",
            Kind::Text,
            "",
            "the scheduler itself: PDS, BMQ, ... else as scheduler",
        ),
        ("clock", Kind::Text, "", "trace clock"),
        (
            "cpus",
            Kind::Int,
            "count",
            "CPUs of the traced machine, when the trace says",
        ),
        (
            "window_start_ns",
            Kind::Int,
            "ns",
            "first event (or --time start)",
        ),
        (
            "window_end_ns",
            Kind::Int,
            "ns",
            "last event (or --time end)",
        ),
        ("window_ns", Kind::Int, "ns", "window length"),
        ("events", Kind::Int, "count", "events read"),
        (
            "lost_events",
            Kind::Int,
            "count",
            "events the recorder reported lost (known counts)",
        ),
        (
            "lost_records",
            Kind::Int,
            "count",
            "places where events were lost (with or without a count)",
        ),
        (
            "out_of_order",
            Kind::Int,
            "count",
            "events out of time order",
        ),
        (
            "unknown_ns",
            Kind::Int,
            "ns",
            "task time whose state is not known",
        ),
        (
            "context_switch_bugs",
            Kind::Int,
            "count",
            "switches inconsistent with what the CPU was believed to run",
        ),
        (
            "rejected",
            Kind::Int,
            "count",
            "records not used (all reasons)",
        ),
        (
            "skipped_bytes",
            Kind::Int,
            "count",
            "bytes of damaged input stepped over",
        ),
        (
            "wakeup_event",
            Kind::Text,
            "",
            "the event that times wakeup latency: sched_waking or sched_wakeup",
        ),
        (
            "untimed_wakeups",
            Kind::Int,
            "count",
            "wakeups that could not be timed (sched_wakeup without sched_waking)",
        ),
        (
            "topology_source",
            Kind::Text,
            "",
            "where the CPU topology came from (trace, file PATH, host); null without one",
        ),
        (
            "topology_llcs",
            Kind::Text,
            "",
            "the LLCs as cpulists, `;`-separated",
        ),
        ("tasks", Kind::Int, "count", "task rows (pid lifetimes)"),
        (
            "series_window_ns",
            Kind::Int,
            "ns",
            "window of the series table",
        ),
    ];
    let mut columns: Vec<ColumnDef> = fixed
        .iter()
        .map(|&(name, kind, unit, doc)| ColumnDef::new(name, kind, unit, doc))
        .collect();
    columns.extend(SYSTEM_COLUMNS.iter().map(|c| {
        // Durations and counts are exact integers (`columns::Value::Int`), the rest reals.
        let kind = match c.unit.stored() {
            "ns" | "count" => Kind::Int,
            _ => Kind::Real,
        };
        let doc = format!("system metric `{}` (as compare): {}", c.key, c.doc);
        ColumnDef::new(&flat_name(c.key), kind, c.unit.stored(), &doc)
    }));
    columns
}

/// The row of `report`, without its label and repeat (the first two columns).
pub(crate) fn facts(report: &Report) -> Vec<Cell<'static>> {
    let src = &report.source;
    let q = &report.quality;
    let (lost, _) = q.lost_events_total();
    let topology = src.topology.as_ref();
    let mut row = vec![
        Cell::text(&src.path),
        Cell::opt_text(src.format.as_deref()),
        Cell::text(&src.format_version),
        Cell::opt_text(src.kernel_release.as_deref()),
        Cell::text(&src.scheduler),
        Cell::text(&src.scheduler_name),
        Cell::opt_text(src.clock.as_deref()),
        Cell::opt_int(src.cpus),
        Cell::int(report.window.start_ns),
        Cell::int(report.window.end_ns),
        Cell::int(report.window.len_ns()),
        Cell::int(q.events.values().sum::<u64>()),
        Cell::int(lost),
        Cell::int(q.lost_events.len() as u64),
        Cell::int(q.out_of_order),
        Cell::int(q.unknown_ns),
        Cell::int(q.context_switch_bugs_total()),
        Cell::int(q.rejected.values().sum::<u64>()),
        Cell::int(q.skipped.iter().map(|s| s.bytes).sum::<u64>()),
        Cell::text(&q.wakeup_event),
        Cell::int(
            q.wakeup_latency_started_by
                .get("untimed")
                .copied()
                .unwrap_or(0),
        ),
        Cell::opt_text(topology.map(|t| t.source.as_str())),
        Cell::opt_text(topology.map(|t| t.llcs.join(";"))),
        Cell::int(report.tasks.len() as u64),
        Cell::opt_int(report.series.as_ref().map(|s| s.window_ns)),
    ];
    row.extend(SYSTEM_COLUMNS.iter().map(|c| match (c.value)(report) {
        analysis::columns::Value::Int(n) => Cell::int(n),
        analysis::columns::Value::Real(x) => Cell::real(x),
        analysis::columns::Value::Missing => Cell::Null,
    }));
    // Kept until every input is analysed (the row needs the labels), past the report.
    row.into_iter().map(Cell::into_owned).collect()
}
