//! `series`: the per-window time series (`analyze --series`), in long form — one row per
//! window, subject and metric — so that one schema holds per-CPU, system, per-bucket and
//! per-task values and a reader filters on `metric`.

use crate::cell::{Cell, ColumnDef, Kind, RowSink};

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str = "one row per window and metric of the time series (per CPU, per latency bucket, per task lag, system)";

pub(crate) fn columns() -> Vec<ColumnDef> {
    vec![
        ColumnDef::new("window", Kind::Int, "count", "window index from the report window's start"),
        ColumnDef::new("start_ns", Kind::Int, "ns", "the window's start (trace clock)"),
        ColumnDef::new("window_ns", Kind::Int, "ns", "window length (--series; the last window may be cut by the trace end)"),
        ColumnDef::new(
            "metric",
            Kind::Text,
            "",
            "per CPU: busy_ns, runqueue_depth_mean, runqueue_depth_max, switches, wakeup_preemptions, lost_events; \
             system: runnable_tasks_mean, jain, wakeup_latency_log2 (per bucket); per task: lag_ns",
        ),
        ColumnDef::new("cpu", Kind::Int, "cpu", "per-CPU metrics: the CPU; else null"),
        ColumnDef::new(
            "bucket",
            Kind::Int,
            "count",
            "wakeup_latency_log2: 0 holds 0 ns, b holds [2^(b-1), 2^b) ns; else null",
        ),
        ColumnDef::new("pid", Kind::Int, "pid", "lag_ns: the task; else null"),
        ColumnDef::new("comm", Kind::Text, "", "lag_ns: its name; else null"),
        ColumnDef::new(
            "value",
            Kind::Real,
            "number",
            "the metric's value (ns, counts, depths, Jain's index); null where undefined",
        ),
    ]
}

pub(crate) fn rows(report: &analysis::Report, sink: &mut dyn RowSink) -> std::io::Result<()> {
    let Some(s) = &report.series else {
        return Ok(());
    };
    let mut emit = |w: usize, metric: &str, subject: [Cell; 4], value: Cell| {
        let [cpu, bucket, pid, comm] = subject;
        sink.row(&[
            Cell::int(w as u64),
            Cell::int(s.start_ns + w as u64 * s.window_ns),
            Cell::int(s.window_ns),
            Cell::text(metric),
            cpu,
            bucket,
            pid,
            comm,
            value,
        ])
    };
    let system = || [Cell::Null, Cell::Null, Cell::Null, Cell::Null];
    for c in &s.cpus {
        let on = || [Cell::int(c.cpu), Cell::Null, Cell::Null, Cell::Null];
        let ints: [(&str, &Vec<u64>); 4] = [
            ("busy_ns", &c.busy_ns),
            ("switches", &c.switches),
            ("wakeup_preemptions", &c.wakeup_preemptions),
            ("lost_events", &c.lost_events),
        ];
        for (metric, values) in ints {
            for (w, &v) in values.iter().enumerate() {
                emit(w, metric, on(), Cell::real(v as f64))?;
            }
        }
        for (w, &v) in c.runqueue_depth_mean.iter().enumerate() {
            emit(w, "runqueue_depth_mean", on(), Cell::real(v))?;
        }
        for (w, &v) in c.runqueue_depth_max.iter().enumerate() {
            emit(w, "runqueue_depth_max", on(), Cell::real(v.into()))?;
        }
    }
    for (w, &v) in s.runnable_tasks_mean.iter().enumerate() {
        emit(w, "runnable_tasks_mean", system(), Cell::real(v))?;
    }
    for (w, &v) in s.jain.iter().enumerate() {
        emit(w, "jain", system(), Cell::opt_real(v))?;
    }
    for (w, buckets) in s.wakeup_latency_log2.iter().enumerate() {
        for (b, &n) in buckets.iter().enumerate().filter(|(_, &n)| n > 0) {
            let at = [Cell::Null, Cell::int(b as u64), Cell::Null, Cell::Null];
            emit(w, "wakeup_latency_log2", at, Cell::real(n as f64))?;
        }
    }
    for lag in &s.lag {
        for (w, &v) in lag.lag_ns.iter().enumerate() {
            let of = [
                Cell::Null,
                Cell::Null,
                Cell::int(lag.pid),
                Cell::text(&lag.comm),
            ];
            emit(w, "lag_ns", of, Cell::opt_real(v))?;
        }
    }
    Ok(())
}
