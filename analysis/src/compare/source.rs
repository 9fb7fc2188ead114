//! What `compare` reads of a report, from either of its two forms: a JSON report
//! (`serde_json::Value`, as `analyze --json` wrote it, of any schema version: a field it
//! lacks reads as absent) or the typed [`Report`] of a trace analysed in this process.
//!
//! Why two: reports read back from files must stay JSON (a report written by an older or
//! newer schedtrace still compares), but a caller that already holds typed reports (the
//! TUI) would otherwise serialise each one into a JSON tree only for `compare` to walk it
//! back, pointer by pointer, which cost more than the comparison itself. The typed reads
//! answer exactly what the JSON the report serialises to would: a statistic over no
//! samples is absent, as is the fairness of a task that never competed, and a number that
//! is not finite. A test over the fixtures holds the two paths to equal comparisons.

use crate::columns::compare::Dist;
use crate::report::{Report, TaskRow, TaskSamples, WaitCauses, WorstWait};
use crate::stats::Stats;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::Arc;

mod sealed {
    /// Only the report forms of this module read as reports.
    pub trait Sealed {}
    impl Sealed for serde_json::Value {}
    impl Sealed for crate::report::Report {}
    impl<T: Sealed> Sealed for std::sync::Arc<T> {}
}

/// A report `compare` can read: a JSON report ([`Value`]) or a typed [`Report`].
pub trait ReportSource: sealed::Sealed {
    /// One row of the report's `tasks`.
    type Task;

    /// The task rows, in the report's order.
    fn tasks(&self) -> &[Self::Task];
    /// The finite number at this JSON pointer of the whole report.
    fn number(&self, pointer: &str) -> Option<f64>;
    /// The string at this JSON pointer (`/source/...`).
    fn text(&self, pointer: &str) -> Option<&str>;
    /// `window.start_ns` and `window.end_ns` (0 where absent).
    fn window(&self) -> (u64, u64);
    /// The events counted, all kinds.
    fn events(&self) -> u64;
    /// Lost events: the counted ones, and the losses of unknown size.
    fn lost(&self) -> (u64, u64);
    fn context_switch_bugs(&self) -> u64;
    fn worst_wait(&self) -> WorstWait;
    /// Whether the report splits its waits by cause (schema 3 and later).
    fn splits_waits(&self) -> bool;

    /// The finite number at this JSON pointer of a task row.
    fn task_number(task: &Self::Task, pointer: &str) -> Option<f64>;
    /// `field` (`count`, `sum_ns`, `p50_ns`, ...) of the task row's summary of `dist`.
    fn task_stat(task: &Self::Task, dist: Dist, field: &str) -> Option<f64>;
    fn task_comm(task: &Self::Task) -> &str;
    fn task_pid(task: &Self::Task) -> Option<i64>;
    /// The row's wait causes; `None` when it has none that can be read.
    fn task_wait_causes(task: &Self::Task) -> Option<Cow<'_, WaitCauses>>;
    /// The row's exact samples where this form keeps them beside the row (the typed one).
    fn task_samples(task: &Self::Task) -> Option<&TaskSamples>;
    /// True for the form that keeps its samples in its rows.
    const CARRIES_SAMPLES: bool;
}

/// The task row's JSON field of `dist`.
pub(super) fn dist_field(dist: Dist) -> &'static str {
    match dist {
        Dist::Wakeup => "wakeup_latency",
        Dist::Preemption => "preemption_wait",
        Dist::Slices => "slices",
        Dist::SchedDelay => "sched_delay",
    }
}

/// The finite number at `pointer` of `v` (a report or a task row).
fn json_number(v: &Value, pointer: &str) -> Option<f64> {
    finite(v.pointer(pointer).and_then(Value::as_f64))
}

fn finite(x: Option<f64>) -> Option<f64> {
    x.filter(|x| x.is_finite())
}

impl ReportSource for Value {
    type Task = Value;

    fn tasks(&self) -> &[Value] {
        self["tasks"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    fn number(&self, pointer: &str) -> Option<f64> {
        json_number(self, pointer)
    }

    fn text(&self, pointer: &str) -> Option<&str> {
        self.pointer(pointer).and_then(Value::as_str)
    }

    fn window(&self) -> (u64, u64) {
        let at = |p: &str| self.pointer(p).and_then(Value::as_u64).unwrap_or(0);
        (at("/window/start_ns"), at("/window/end_ns"))
    }

    fn events(&self) -> u64 {
        self.pointer("/quality/events")
            .and_then(Value::as_object)
            .map_or(0, |o| o.values().filter_map(Value::as_u64).sum())
    }

    fn lost(&self) -> (u64, u64) {
        let lost = self
            .pointer("/quality/lost_events")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        (
            lost.iter().filter_map(|l| l["count"].as_u64()).sum(),
            lost.iter().filter(|l| l["count"].is_null()).count() as u64,
        )
    }

    fn context_switch_bugs(&self) -> u64 {
        self.pointer("/quality/context_switch_bugs")
            .and_then(Value::as_array)
            .map_or(0, |a| a.iter().filter_map(|c| c["count"].as_u64()).sum())
    }

    fn worst_wait(&self) -> WorstWait {
        self.pointer("/system/worst_wait")
            .and_then(|w| serde_json::from_value(w.clone()).ok())
            .unwrap_or_default()
    }

    fn splits_waits(&self) -> bool {
        self.pointer("/system/wait_causes").is_some()
    }

    fn task_number(task: &Value, pointer: &str) -> Option<f64> {
        json_number(task, pointer)
    }

    fn task_stat(task: &Value, dist: Dist, field: &str) -> Option<f64> {
        finite(task.get(dist_field(dist))?.get(field)?.as_f64())
    }

    fn task_comm(task: &Value) -> &str {
        task["comm"].as_str().unwrap_or("")
    }

    fn task_pid(task: &Value) -> Option<i64> {
        task["pid"].as_i64()
    }

    fn task_wait_causes(task: &Value) -> Option<Cow<'_, WaitCauses>> {
        serde_json::from_value(task.get("wait_causes")?.clone())
            .ok()
            .map(Cow::Owned)
    }

    fn task_samples(_: &Value) -> Option<&TaskSamples> {
        None
    }

    const CARRIES_SAMPLES: bool = false;
}

impl ReportSource for Report {
    type Task = TaskRow;

    fn tasks(&self) -> &[TaskRow] {
        &self.tasks
    }

    fn number(&self, pointer: &str) -> Option<f64> {
        finite(report_number(self, pointer).flatten())
    }

    fn text(&self, pointer: &str) -> Option<&str> {
        let s = &self.source;
        match pointer {
            "/source/format" => s.format.as_deref(),
            "/source/kernel_release" => s.kernel_release.as_deref(),
            "/source/scheduler" => Some(&s.scheduler),
            "/source/scheduler_name" => Some(&s.scheduler_name),
            "/source/path" => Some(&s.path),
            "/source/format_version" => Some(&s.format_version),
            "/source/clock" => s.clock.as_deref(),
            _ => None,
        }
    }

    fn window(&self) -> (u64, u64) {
        (self.window.start_ns, self.window.end_ns)
    }

    fn events(&self) -> u64 {
        self.quality.events.values().sum()
    }

    fn lost(&self) -> (u64, u64) {
        let lost = &self.quality.lost_events;
        (
            lost.iter().filter_map(|l| l.count).sum(),
            lost.iter().filter(|l| l.count.is_none()).count() as u64,
        )
    }

    fn context_switch_bugs(&self) -> u64 {
        self.quality
            .context_switch_bugs
            .iter()
            .map(|c| c.count)
            .sum()
    }

    fn worst_wait(&self) -> WorstWait {
        self.system.worst_wait.clone()
    }

    fn splits_waits(&self) -> bool {
        // Serialised, a typed report always has `system.wait_causes`.
        true
    }

    fn task_number(task: &TaskRow, pointer: &str) -> Option<f64> {
        finite(task_number(task, pointer).flatten())
    }

    fn task_stat(task: &TaskRow, dist: Dist, field: &str) -> Option<f64> {
        let stats = match dist {
            Dist::Wakeup => &task.wakeup_latency,
            Dist::Preemption => &task.preemption_wait,
            Dist::Slices => &task.slices,
            Dist::SchedDelay => &task.sched_delay,
        };
        finite(stat(stats, field).flatten())
    }

    fn task_comm(task: &TaskRow) -> &str {
        &task.comm
    }

    fn task_pid(task: &TaskRow) -> Option<i64> {
        Some(i64::from(task.pid))
    }

    fn task_wait_causes(task: &TaskRow) -> Option<Cow<'_, WaitCauses>> {
        Some(Cow::Borrowed(&task.wait_causes))
    }

    fn task_samples(task: &TaskRow) -> Option<&TaskSamples> {
        task.samples.as_ref()
    }

    const CARRIES_SAMPLES: bool = true;
}

impl<T: ReportSource> ReportSource for Arc<T> {
    type Task = T::Task;

    fn tasks(&self) -> &[T::Task] {
        (**self).tasks()
    }
    fn number(&self, pointer: &str) -> Option<f64> {
        (**self).number(pointer)
    }
    fn text(&self, pointer: &str) -> Option<&str> {
        (**self).text(pointer)
    }
    fn window(&self) -> (u64, u64) {
        (**self).window()
    }
    fn events(&self) -> u64 {
        (**self).events()
    }
    fn lost(&self) -> (u64, u64) {
        (**self).lost()
    }
    fn context_switch_bugs(&self) -> u64 {
        (**self).context_switch_bugs()
    }
    fn worst_wait(&self) -> WorstWait {
        (**self).worst_wait()
    }
    fn splits_waits(&self) -> bool {
        (**self).splits_waits()
    }
    fn task_number(task: &T::Task, pointer: &str) -> Option<f64> {
        T::task_number(task, pointer)
    }
    fn task_stat(task: &T::Task, dist: Dist, field: &str) -> Option<f64> {
        T::task_stat(task, dist, field)
    }
    fn task_comm(task: &T::Task) -> &str {
        T::task_comm(task)
    }
    fn task_pid(task: &T::Task) -> Option<i64> {
        T::task_pid(task)
    }
    fn task_wait_causes(task: &T::Task) -> Option<Cow<'_, WaitCauses>> {
        T::task_wait_causes(task)
    }
    fn task_samples(task: &T::Task) -> Option<&TaskSamples> {
        T::task_samples(task)
    }
    const CARRIES_SAMPLES: bool = T::CARRIES_SAMPLES;
}

/// `field` of a summary as its JSON has it (`STATS`: over no samples only count and sum
/// are defined). The outer `None`: no such field.
fn stat(s: &Stats, field: &str) -> Option<Option<f64>> {
    let v = |x: Option<u64>| x.map(|x| x as f64);
    Some(match field {
        "count" => Some(s.count as f64),
        "sum_ns" => Some(s.sum_ns as f64),
        "mean_ns" => v(s.mean()),
        "p50_ns" => v(s.p50()),
        "p90_ns" => v(s.p90()),
        "p99_ns" => v(s.p99()),
        "max_ns" => v(s.max()),
        _ => return None,
    })
}

/// A number of the typed report at a JSON pointer. The outer `None`: a pointer this reader
/// does not know (a test walks every pointer the compare tables name).
pub(super) fn report_number(r: &Report, pointer: &str) -> Option<Option<f64>> {
    let s = &r.system;
    let n = |x: u64| Some(x as f64);
    let (head, rest) = split(pointer);
    Some(match (head, rest) {
        ("window", "/start_ns") => n(r.window.start_ns),
        ("window", "/end_ns") => n(r.window.end_ns),
        ("system", rest) => match split(rest) {
            ("context_switches", "") => n(s.context_switches),
            ("context_switches_per_sec", "") => Some(s.context_switches_per_sec),
            ("migrations", "") => n(s.migrations),
            ("migrations_per_sec", "") => Some(s.migrations_per_sec),
            ("utilization", "") => Some(s.utilization),
            ("wakeups", "") => n(s.wakeups),
            ("switches", "/voluntary") => n(s.switches.voluntary),
            ("switches", "/involuntary") => n(s.switches.involuntary),
            ("wakeup_preemption", "/per_sec") => Some(s.wakeup_preemption.per_sec),
            ("wakeup_preemption", "/count") => n(s.wakeup_preemption.count),
            ("affinity", "/cross_llc_share") => s.affinity.cross_llc_share,
            ("work_conservation", "/idle_while_runnable_share") => {
                Some(s.work_conservation.idle_while_runnable_share)
            }
            ("fairness", "/jain") => s.fairness.jain,
            ("wakeup_latency", field) => stat(&s.wakeup_latency, field.strip_prefix('/')?)?,
            ("preemption_wait", field) => stat(&s.preemption_wait, field.strip_prefix('/')?)?,
            ("sched_delay", field) => stat(&s.sched_delay, field.strip_prefix('/')?)?,
            _ => return None,
        },
        _ => return None,
    })
}

/// A number of a typed task row at a JSON pointer; the outer `None` as in
/// [`report_number`].
pub(super) fn task_number(t: &TaskRow, pointer: &str) -> Option<Option<f64>> {
    let n = |x: u64| Some(x as f64);
    let fair = t.fairness.as_ref();
    Some(match split(pointer) {
        ("runtime_ns", "") => n(t.runtime_ns),
        ("wakeups", "") => n(t.wakeups),
        ("migrations", "") => n(t.migrations),
        ("switches", "/voluntary") => n(t.switches.voluntary),
        ("switches", "/involuntary") => n(t.switches.involuntary),
        ("preemption", "/suffered") => n(t.preemption.suffered),
        ("preemption", "/caused") => n(t.preemption.caused),
        ("fairness", "/weight") => fair.map(|f| f64::from(f.weight)),
        ("fairness", "/ratio") => fair.and_then(|f| f.ratio),
        ("fairness", "/runtime_ns") => fair.map(|f| f.runtime_ns as f64),
        ("fairness", "/entitlement_ns") => fair.map(|f| f.entitlement_ns),
        ("fairness", "/max_abs_lag_ns") => fair.map(|f| f.max_abs_lag_ns),
        ("wakeup_latency", field) => stat(&t.wakeup_latency, field.strip_prefix('/')?)?,
        ("preemption_wait", field) => stat(&t.preemption_wait, field.strip_prefix('/')?)?,
        ("slices", field) => stat(&t.slices, field.strip_prefix('/')?)?,
        ("sched_delay", field) => stat(&t.sched_delay, field.strip_prefix('/')?)?,
        _ => return None,
    })
}

/// `/a/b/c` → (`a`, `/b/c`); `/a` → (`a`, ``).
fn split(pointer: &str) -> (&str, &str) {
    let p = pointer.strip_prefix('/').unwrap_or(pointer);
    match p.find('/') {
        Some(i) => (&p[..i], &p[i..]),
        None => (p, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::compare::{Read, Stat, SYSTEM, TASK, WORKLOAD};

    /// Every pointer the compare tables read is one the typed reader knows: a row added to
    /// the tables with a pointer it lacks would read as absent on the typed path only.
    #[test]
    fn the_typed_reader_knows_every_pointer_of_the_tables() {
        let report: Report = serde_json::from_value(serde_json::json!({
            "schema_version": 3, "source": {"path": "x", "format": null, "format_version": "",
            "kernel_release": null, "cpus": null, "clock": null},
            "window": {"start_ns": 0, "end_ns": 1}, "quality": {"events": {},
            "lost_events": [], "out_of_order": 0, "unknown_ns": 0, "wakeup_event": ""},
            "tasks": [], "cpus": []
        }))
        .unwrap();
        let task = TaskRow::empty();
        let known_report = |p: &str| assert!(report_number(&report, p).is_some(), "{p}");
        let mut task_pointers: Vec<&str> = vec!["/fairness/ratio"];
        for row in [SYSTEM, WORKLOAD, TASK].into_iter().flatten() {
            match row.read {
                Read::Pointer(p) | Read::SystemDist(_, _, p) => known_report(p),
                Read::Ratio(n, d) => {
                    known_report(n);
                    known_report(d);
                }
                Read::Sum(ps) | Read::PerSec(ps) => task_pointers.extend(ps),
                Read::Quotient(n, d) => task_pointers.extend([n, d]),
                Read::Max(p) | Read::Share(p) => task_pointers.push(p),
                Read::Dist(d, _) => {
                    for s in [Stat::Mean, Stat::P50, Stat::P90, Stat::P99, Stat::Max] {
                        let field = format!("/{}/{}_ns", dist_field(d), s.name());
                        task_pointers.push(Box::leak(field.into_boxed_str()));
                    }
                    let count = format!("/{}/count", dist_field(d));
                    task_pointers.push(Box::leak(count.into_boxed_str()));
                }
                Read::Jain => {}
            }
        }
        for p in task_pointers {
            assert!(task_number(&task, p).is_some(), "{p}");
        }
        for p in ["/window/start_ns", "/window/end_ns"] {
            known_report(p);
        }
        // And a pointer nobody reads is not answered by accident.
        assert!(report_number(&report, "/system/nothing").is_none());
        assert!(task_number(&task, "/fairness/nothing").is_none());
    }

    /// The typed reads of a task row equal the JSON reads of the row serialised, for
    /// statistics over no samples (absent) as for defined ones.
    #[test]
    fn typed_task_reads_equal_the_serialised_rows() {
        let mut task = TaskRow::empty();
        task.runtime_ns = 7;
        task.wakeup_latency = Stats {
            count: 3,
            sum_ns: 30,
            mean_ns: 10,
            p50_ns: 9,
            p90_ns: 12,
            p99_ns: 13,
            p999_ns: 13,
            max_ns: 13,
            max_at_ns: 100,
        };
        let json = serde_json::to_value(&task).unwrap();
        for d in [
            Dist::Wakeup,
            Dist::Preemption,
            Dist::Slices,
            Dist::SchedDelay,
        ] {
            for f in [
                "count", "sum_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns",
            ] {
                assert_eq!(
                    Report::task_stat(&task, d, f),
                    Value::task_stat(&json, d, f),
                    "{d:?} {f}"
                );
            }
        }
        for p in ["/runtime_ns", "/fairness/ratio", "/switches/voluntary"] {
            assert_eq!(
                Report::task_number(&task, p),
                Value::task_number(&json, p),
                "{p}"
            );
        }
    }
}
