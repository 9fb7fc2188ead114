//! The metric tables of a comparison, as data: one line per metric says its name, where
//! its value comes from in a report (a JSON pointer or a small extractor), its unit and
//! whether higher is better. Adding a metric to `compare` is adding one line here.

use serde_json::Value;

/// Which direction of change is an improvement (metrics.md §8: the sign of the change
/// is chosen so that positive is better).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

impl Better {
    pub fn name(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
        }
    }
}

/// The unit of the values as stored in the report (and in the comparison JSON); the
/// text output scales them for reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Events per second of trace window.
    PerSec,
    /// A duration in ns, printed in us.
    NsAsUs,
    /// A duration in ns, printed in ms.
    NsAsMs,
    /// A fraction 0..1, printed in %.
    Share,
    /// A plain number without unit (ratios, indices).
    Number,
    /// A count of things.
    Count,
}

impl Unit {
    /// Unit of the stored value (JSON `unit`).
    pub fn stored(self) -> &'static str {
        match self {
            Unit::PerSec => "1/s",
            Unit::NsAsUs | Unit::NsAsMs => "ns",
            Unit::Share => "fraction",
            Unit::Number => "number",
            Unit::Count => "count",
        }
    }

    /// Unit shown in the text table.
    pub fn shown(self) -> &'static str {
        match self {
            Unit::PerSec => "/s",
            Unit::NsAsUs => "us",
            Unit::NsAsMs => "ms",
            Unit::Share => "%",
            Unit::Number | Unit::Count => "",
        }
    }

    /// `value` (stored unit) scaled to the shown unit.
    pub fn scale(self, value: f64) -> f64 {
        match self {
            Unit::NsAsUs => value / 1e3,
            Unit::NsAsMs => value / 1e6,
            Unit::Share => value * 100.0,
            Unit::PerSec | Unit::Number | Unit::Count => value,
        }
    }
}

/// How a system metric is read from one report (a `serde_json::Value`, so that fields
/// missing from an older report read as "not available" instead of failing).
#[derive(Debug, Clone, Copy)]
pub enum Extract {
    /// The number at this JSON pointer.
    Pointer(&'static str),
    /// numerator / denominator, both JSON pointers; not available when the denominator is 0.
    Ratio(&'static str, &'static str),
}

impl Extract {
    pub fn read(self, report: &Value) -> Option<f64> {
        match self {
            Extract::Pointer(p) => number(report, p),
            Extract::Ratio(num, den) => {
                let (n, d) = (number(report, num)?, number(report, den)?);
                (d != 0.0).then(|| n / d)
            }
        }
    }

    /// Where the value comes from, for the JSON output.
    pub fn describe(self) -> String {
        match self {
            Extract::Pointer(p) => p.to_string(),
            Extract::Ratio(n, d) => format!("{n} / {d}"),
        }
    }
}

fn number(v: &Value, pointer: &str) -> Option<f64> {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
}

/// One row of the system table.
#[derive(Debug, Clone, Copy)]
pub struct SystemMetric {
    /// Stable identifier (JSON `key`).
    pub key: &'static str,
    /// What the text table shows.
    pub name: &'static str,
    pub unit: Unit,
    pub better: Better,
    pub extract: Extract,
}

const fn sys(
    key: &'static str,
    name: &'static str,
    unit: Unit,
    better: Better,
    extract: Extract,
) -> SystemMetric {
    SystemMetric {
        key,
        name,
        unit,
        better,
        extract,
    }
}

use Better::{Higher, Lower};
use Extract::{Pointer as P, Ratio};

/// The system table, in display order. Rates are per second of trace window, not totals,
/// because runs of one comparison need not be equally long.
///
/// Directions where reasonable people differ: context switches and migrations count as
/// overhead (lower is better); utilization as work done (higher is better).
#[rustfmt::skip]
pub const SYSTEM_METRICS: &[SystemMetric] = &[
    sys("context_switches_per_sec", "context switches", Unit::PerSec, Lower, P("/system/context_switches_per_sec")),
    sys("wakeup_preemptions_per_sec", "wakeup preemptions", Unit::PerSec, Lower, P("/system/wakeup_preemption/per_sec")),
    sys("voluntary_involuntary_ratio", "vol/invol switches", Unit::Number, Higher, Ratio("/system/switches/voluntary", "/system/switches/involuntary")),
    sys("wakeup_latency_p50", "wakeup latency p50", Unit::NsAsUs, Lower, P("/system/wakeup_latency/p50_ns")),
    sys("wakeup_latency_p99", "wakeup latency p99", Unit::NsAsUs, Lower, P("/system/wakeup_latency/p99_ns")),
    sys("wakeup_latency_max", "wakeup latency max", Unit::NsAsUs, Lower, P("/system/wakeup_latency/max_ns")),
    sys("preemption_wait_p99", "preemption wait p99", Unit::NsAsUs, Lower, P("/system/preemption_wait/p99_ns")),
    sys("migrations_per_sec", "migrations", Unit::PerSec, Lower, P("/system/migrations_per_sec")),
    sys("cross_llc_share", "cross-LLC migrations", Unit::Share, Lower, P("/system/affinity/cross_llc_share")),
    sys("utilization", "utilization", Unit::Share, Higher, P("/system/utilization")),
    sys("idle_while_runnable_share", "idle while runnable", Unit::Share, Lower, P("/system/work_conservation/idle_while_runnable_share")),
    sys("jain_index", "Jain's index", Unit::Number, Higher, P("/system/fairness/jain")),
];

/// How a task metric combines the rows of the tasks that share one name pattern
/// (several pids in one run). Only combinations that are exact from the report's
/// summaries are offered (sums, maxima, means from sum and count), so a comparison
/// made from JSON reports equals the one made from the traces; per-task percentiles
/// are therefore not in the task table (the system table has exact ones).
#[derive(Debug, Clone, Copy)]
pub enum Combine {
    /// Sum of the numbers at these pointers over all member rows.
    Sum(&'static [&'static str]),
    /// Largest number at this pointer (members where it is null are left out).
    Max(&'static str),
    /// sum(first pointer) / sum(second pointer); not available when the count is 0.
    Mean(&'static str, &'static str),
}

impl Combine {
    pub fn read(self, members: &[&Value]) -> Option<f64> {
        match self {
            Combine::Sum(ptrs) => ptrs.iter().map(|p| sum_at(members, p)).sum(),
            // Members without samples have a null maximum (schema 2; 0 in version 1, which
            // changes no maximum either): the largest of the others.
            Combine::Max(p) => members.iter().filter_map(|m| number(m, p)).reduce(f64::max),
            Combine::Mean(sum, count) => {
                let (s, c) = (sum_at(members, sum)?, sum_at(members, count)?);
                (c > 0.0).then(|| s / c)
            }
        }
    }

    pub fn describe(self) -> String {
        match self {
            Combine::Sum(ptrs) => format!("sum of {}", ptrs.join(" + ")),
            Combine::Max(p) => format!("max of {p}"),
            Combine::Mean(s, c) => format!("sum of {s} / sum of {c}"),
        }
    }
}

/// Sum of the number at `pointer` over `members`; not available if any member lacks it.
fn sum_at(members: &[&Value], pointer: &str) -> Option<f64> {
    members.iter().map(|m| number(m, pointer)).sum()
}

/// One metric of the task table.
#[derive(Debug, Clone, Copy)]
pub struct TaskMetric {
    /// Name for `--sort` and JSON `key`.
    pub key: &'static str,
    pub name: &'static str,
    pub unit: Unit,
    pub better: Better,
    pub combine: Combine,
}

const fn task(
    key: &'static str,
    name: &'static str,
    unit: Unit,
    better: Better,
    combine: Combine,
) -> TaskMetric {
    TaskMetric {
        key,
        name,
        unit,
        better,
        combine,
    }
}

use Combine::{Max, Mean, Sum};

/// The task table. Task numbers are totals per task (a benchmark task usually does a
/// fixed amount of work, so its totals compare across runs of different length).
/// Runtime counts as service received (higher is better).
#[rustfmt::skip]
pub const TASK_METRICS: &[TaskMetric] = &[
    task("runtime", "runtime", Unit::NsAsMs, Higher, Sum(&["/runtime_ns"])),
    task("switches", "switches", Unit::Count, Lower, Sum(&["/switches/voluntary", "/switches/involuntary"])),
    task("voluntary", "voluntary switches", Unit::Count, Lower, Sum(&["/switches/voluntary"])),
    task("involuntary", "involuntary switches", Unit::Count, Lower, Sum(&["/switches/involuntary"])),
    task("wakeups", "wakeups", Unit::Count, Lower, Sum(&["/wakeups"])),
    task("migrations", "migrations", Unit::Count, Lower, Sum(&["/migrations"])),
    task("wakeup-mean", "wakeup latency mean", Unit::NsAsUs, Lower, Mean("/wakeup_latency/sum_ns", "/wakeup_latency/count")),
    task("wakeup-max", "wakeup latency max", Unit::NsAsUs, Lower, Max("/wakeup_latency/max_ns")),
    task("preemption-wait-mean", "preemption wait mean", Unit::NsAsUs, Lower, Mean("/preemption_wait/sum_ns", "/preemption_wait/count")),
    task("sched-delay", "sched delay total", Unit::NsAsMs, Lower, Sum(&["/sched_delay/sum_ns"])),
    task("sched-delay-mean", "sched delay mean", Unit::NsAsUs, Lower, Mean("/sched_delay/sum_ns", "/sched_delay/count")),
    task("sched-delay-max", "sched delay max", Unit::NsAsUs, Lower, Max("/sched_delay/max_ns")),
];

/// The task metric called `key` (`--sort`).
pub fn task_metric(key: &str) -> Result<&'static TaskMetric, String> {
    TASK_METRICS.iter().find(|m| m.key == key).ok_or_else(|| {
        let names: Vec<&str> = TASK_METRICS.iter().map(|m| m.key).collect();
        format!(
            "unknown task metric {key:?}; expected one of {}",
            names.join(", ")
        )
    })
}
