//! The metric tables of a comparison, as data: one line per metric says its key, name,
//! unit, direction and how its value is read from a run ([`Read`]). Adding a metric to
//! `compare` is adding one line here. (These tables move to the analysis' column
//! catalogue when it lands; they are kept as plain data for that.)

use super::subject::{Dist, Stat, Subject};
use serde_json::Value;

/// Which direction of change is an improvement (metrics.md §8: the sign of the change
/// is chosen so that positive is better). Neutral metrics describe behaviour without a
/// better direction (runtime, switch counts, slice length): no flag, unsigned change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
    Neutral,
}

impl Better {
    pub fn name(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
            Better::Neutral => "neutral",
        }
    }

    /// The `Interpretation:` line of the LKML layout.
    pub fn interpretation(self) -> &'static str {
        match self {
            Better::Higher => "Higher is better",
            Better::Lower => "Lower is better",
            Better::Neutral => "Neutral (no better direction; change unsigned, never flagged)",
        }
    }
}

/// The unit of the values as stored in the comparison JSON; the text output scales them.
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
}

impl Unit {
    /// Unit of the stored value (JSON `unit`).
    pub fn stored(self) -> &'static str {
        match self {
            Unit::PerSec => "1/s",
            Unit::NsAsUs | Unit::NsAsMs => "ns",
            Unit::Share => "fraction",
            Unit::Number => "number",
        }
    }

    /// Unit shown in the text table.
    pub fn shown(self) -> &'static str {
        match self {
            Unit::PerSec => "/s",
            Unit::NsAsUs => "us",
            Unit::NsAsMs => "ms",
            Unit::Share => "%",
            Unit::Number => "",
        }
    }

    /// `value` (stored unit) scaled to the shown unit.
    pub fn scale(self, value: f64) -> f64 {
        match self {
            Unit::NsAsUs => value / 1e3,
            Unit::NsAsMs => value / 1e6,
            Unit::Share => value * 100.0,
            Unit::PerSec | Unit::Number => value,
        }
    }
}

/// How one repeat's value of a metric is read.
#[derive(Debug, Clone, Copy)]
pub enum Read {
    /// The number at this JSON pointer of the whole report.
    Pointer(&'static str),
    /// numerator / denominator of the whole report; not available when it is 0.
    Ratio(&'static str, &'static str),
    /// A statistic of the report's system-wide distribution at this pointer (exact,
    /// over every task); pooled over repeats from every task's samples.
    SystemDist(Dist, Stat, &'static str),
    /// Sum over the subject's tasks.
    Sum(&'static [&'static str]),
    /// Sum over the subject's tasks per second of window.
    PerSec(&'static [&'static str]),
    /// sum(first) / sum(second) over the subject's tasks; not available when 0.
    Quotient(&'static str, &'static str),
    /// Largest value over the subject's tasks.
    Max(&'static str),
    /// Sum over the subject's tasks / the same sum over the workload.
    Share(&'static str),
    /// A statistic of the distribution of the subject's tasks' samples.
    Dist(Dist, Stat),
    /// Jain's index of the subject's tasks' fairness ratios.
    Jain,
}

impl Read {
    /// Where the value comes from, for the JSON output.
    pub fn describe(self) -> String {
        match self {
            Read::Pointer(p) => p.to_string(),
            Read::Ratio(n, d) => format!("{n} / {d}"),
            Read::SystemDist(_, _, p) => format!("{p} (pooled over repeats: every task's samples)"),
            Read::Sum(ps) => format!("sum over the tasks of {}", ps.join(" + ")),
            Read::PerSec(ps) => format!("sum over the tasks of {} / window s", ps.join(" + ")),
            Read::Quotient(n, d) => format!("sum of {n} / sum of {d} over the tasks"),
            Read::Max(p) => format!("max over the tasks of {p}"),
            Read::Share(p) => format!("sum of {p} over the tasks / over the workload"),
            Read::Dist(d, s) => format!("{} of the tasks' {} samples", s.name(), d.name()),
            Read::Jain => "Jain's index of the tasks' /fairness/ratio".into(),
        }
    }

    /// The value in one repeat, and whether it is exact (a percentile of merged tasks read
    /// back from JSON reports is an upper bound).
    pub fn read(self, s: &Subject) -> (Option<f64>, bool) {
        let exact = |v| (v, true);
        match self {
            Read::Pointer(p) => exact(number(s.report, p)),
            Read::Ratio(n, d) => exact(ratio(number(s.report, n), number(s.report, d))),
            Read::SystemDist(_, _, p) => exact(number(s.report, p)),
            Read::Sum(ps) => exact(s.sum(ps)),
            Read::PerSec(ps) => exact(s.sum(ps).and_then(|v| s.per_sec(v))),
            Read::Quotient(n, d) => exact(ratio(s.sum(&[n]), s.sum(&[d]))),
            Read::Max(p) => exact(s.max(p)),
            Read::Share(p) => exact(s.share(p)),
            Read::Dist(d, st) => s.dist(d, st),
            Read::Jain => exact(s.jain()),
        }
    }

    /// The value over every sample of every repeat, for distributions whose samples all
    /// repeats kept (the percentiles of §8 are of the pooled samples); `None` otherwise.
    pub fn pooled(self, repeats: &[Subject]) -> Option<f64> {
        match self {
            Read::Dist(d, st) | Read::SystemDist(d, st, _) => Subject::pooled(repeats, d, st),
            _ => None,
        }
    }
}

pub(crate) fn number(v: &Value, pointer: &str) -> Option<f64> {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
}

fn ratio(n: Option<f64>, d: Option<f64>) -> Option<f64> {
    let (n, d) = (n?, d?);
    (d != 0.0).then(|| n / d)
}

/// One row of a table.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Stable identifier (JSON `key`, `--sort`, `--task-metrics`).
    pub key: &'static str,
    /// What the text shows.
    pub name: &'static str,
    pub unit: Unit,
    pub better: Better,
    pub read: Read,
    /// Shown in the default text (the rest with `--wide`).
    pub default: bool,
}

const fn m(
    key: &'static str,
    name: &'static str,
    unit: Unit,
    better: Better,
    read: Read,
) -> Metric {
    Metric {
        key,
        name,
        unit,
        better,
        read,
        default: true,
    }
}

/// Shown only with `--wide` (and in JSON).
const fn w(
    key: &'static str,
    name: &'static str,
    unit: Unit,
    better: Better,
    read: Read,
) -> Metric {
    Metric {
        key,
        name,
        unit,
        better,
        read,
        default: false,
    }
}

use Better::{Higher, Lower, Neutral};
use Read::{
    Dist as D, Max, PerSec as Rate, Pointer as P, Quotient as Q, Ratio, Share, Sum,
    SystemDist as SD,
};
use Unit::{NsAsMs as Ms, NsAsUs as Us, Number as Num, PerSec as PS, Share as Pct};

/// The system table over every task of each report. Rates are per second of window
/// (runs need not be equally long). Directions as the column catalogue has them
/// ([`crate::columns`], checked by a test): switch counts, the vol/invol ratio and
/// utilization are neutral (a workload's own behaviour), migrations and waits lower,
/// Jain's index higher.
#[rustfmt::skip]
pub const SYSTEM_METRICS: &[Metric] = &[
    m("context_switches_per_sec", "context switches/s", PS, Neutral, P("/system/context_switches_per_sec")),
    m("wakeup_preemptions_per_sec", "wakeup preemptions/s", PS, Lower, P("/system/wakeup_preemption/per_sec")),
    w("voluntary_involuntary_ratio", "vol/invol switches", Num, Neutral, Ratio("/system/switches/voluntary", "/system/switches/involuntary")),
    m("wakeup_latency_p50", "wakeup latency p50", Us, Lower, SD(Dist::Wakeup, Stat::P50, "/system/wakeup_latency/p50_ns")),
    m("wakeup_latency_p99", "wakeup latency p99", Us, Lower, SD(Dist::Wakeup, Stat::P99, "/system/wakeup_latency/p99_ns")),
    m("wakeup_latency_max", "wakeup latency max", Us, Lower, SD(Dist::Wakeup, Stat::Max, "/system/wakeup_latency/max_ns")),
    m("preemption_wait_p99", "preemption wait p99", Us, Lower, SD(Dist::Preemption, Stat::P99, "/system/preemption_wait/p99_ns")),
    m("migrations_per_sec", "migrations/s", PS, Lower, P("/system/migrations_per_sec")),
    w("cross_llc_share", "cross-LLC migrations", Pct, Lower, P("/system/affinity/cross_llc_share")),
    m("utilization", "utilization", Pct, Neutral, P("/system/utilization")),
    m("idle_while_runnable_share", "idle while runnable", Pct, Lower, P("/system/work_conservation/idle_while_runnable_share")),
    m("jain_index", "Jain's index", Num, Higher, P("/system/fairness/jain")),
];

/// The system table over the `--workload` tasks only: the same keys where the meaning is
/// the same, computed from the workload's task rows. Idle-while-runnable stays the
/// report's (any runnable task, any CPU: the report does not split it per task) and is
/// labelled so.
#[rustfmt::skip]
pub const WORKLOAD_METRICS: &[Metric] = &[
    m("switches_per_sec", "switches/s", PS, Neutral, Rate(&["/switches/voluntary", "/switches/involuntary"])),
    m("wakeup_preemptions_per_sec", "preempted on wakeup/s", PS, Lower, Rate(&["/preemption/suffered"])),
    w("voluntary_involuntary_ratio", "vol/invol switches", Num, Neutral, Q("/switches/voluntary", "/switches/involuntary")),
    m("wakeup_latency_p50", "wakeup latency p50", Us, Lower, D(Dist::Wakeup, Stat::P50)),
    m("wakeup_latency_p99", "wakeup latency p99", Us, Lower, D(Dist::Wakeup, Stat::P99)),
    m("wakeup_latency_max", "wakeup latency max", Us, Lower, D(Dist::Wakeup, Stat::Max)),
    m("preemption_wait_p99", "preemption wait p99", Us, Lower, D(Dist::Preemption, Stat::P99)),
    m("migrations_per_sec", "migrations/s", PS, Lower, Rate(&["/migrations"])),
    m("idle_while_runnable_share", "idle while runnable (any task)", Pct, Lower, P("/system/work_conservation/idle_while_runnable_share")),
    m("jain_index", "Jain's index", Num, Higher, Read::Jain),
];

/// The task table: per role (the tasks one matching key gathers in a run). Shares are of
/// the workload's runtime and weight; runtime, counts and migrations are neutral (service
/// received and a task's own behaviour), waits and lag lower is better (as the column
/// catalogue says where it has the column).
#[rustfmt::skip]
pub const TASK_METRICS: &[Metric] = &[
    m("runtime", "runtime", Ms, Neutral, Sum(&["/runtime_ns"])),
    m("runtime-share", "runtime share", Pct, Neutral, Share("/runtime_ns")),
    m("weight-share", "weight share", Pct, Neutral, Share("/fairness/weight")),
    m("fairness", "fairness ratio", Num, Neutral, Q("/fairness/runtime_ns", "/fairness/entitlement_ns")),
    m("max-lag", "max lag", Ms, Lower, Max("/fairness/max_abs_lag_ns")),
    m("slice-mean", "slice mean", Ms, Neutral, D(Dist::Slices, Stat::Mean)),
    w("slice-p50", "slice p50", Ms, Neutral, D(Dist::Slices, Stat::P50)),
    w("slice-p99", "slice p99", Ms, Neutral, D(Dist::Slices, Stat::P99)),
    w("wakeup-mean", "wakeup latency mean", Us, Lower, D(Dist::Wakeup, Stat::Mean)),
    w("wakeup-p50", "wakeup latency p50", Us, Lower, D(Dist::Wakeup, Stat::P50)),
    m("wakeup-p99", "wakeup latency p99", Us, Lower, D(Dist::Wakeup, Stat::P99)),
    w("wakeup-max", "wakeup latency max", Us, Lower, D(Dist::Wakeup, Stat::Max)),
    w("preemption-wait-mean", "preemption wait mean", Us, Lower, D(Dist::Preemption, Stat::Mean)),
    m("preemption-wait-p99", "preemption wait p99", Us, Lower, D(Dist::Preemption, Stat::P99)),
    m("sched-delay-max", "longest wait", Ms, Lower, D(Dist::SchedDelay, Stat::Max)),
    m("switches", "switches/s", PS, Neutral, Rate(&["/switches/voluntary", "/switches/involuntary"])),
    w("voluntary", "voluntary switches/s", PS, Neutral, Rate(&["/switches/voluntary"])),
    w("involuntary", "involuntary switches/s", PS, Neutral, Rate(&["/switches/involuntary"])),
    w("wakeups", "wakeups/s", PS, Neutral, Rate(&["/wakeups"])),
    m("migrations", "migrations/s", PS, Neutral, Rate(&["/migrations"])),
];

/// The task metric called `key` (`--sort`, `--task-metrics`).
pub fn task_metric(key: &str) -> Result<&'static Metric, String> {
    TASK_METRICS.iter().find(|m| m.key == key).ok_or_else(|| {
        let names: Vec<&str> = TASK_METRICS.iter().map(|m| m.key).collect();
        format!(
            "unknown task metric {key:?}; expected one of {}",
            names.join(", ")
        )
    })
}

/// The metric of any table called `key` (for rendering a row of the JSON model).
pub fn any_metric(key: &str) -> Option<&'static Metric> {
    [SYSTEM_METRICS, WORKLOAD_METRICS, TASK_METRICS]
        .into_iter()
        .flatten()
        .find(|m| m.key == key)
}

/// The compare metrics that are columns of the analysis' catalogue (`crate::columns`):
/// (compare key, catalogue column key, system table?). Their directions must agree.
#[cfg(test)]
const CATALOGUE: &[(&str, &str, bool)] = &[
    ("context_switches_per_sec", "context_switches_per_sec", true),
    (
        "wakeup_preemptions_per_sec",
        "wakeup_preemptions_per_sec",
        true,
    ),
    (
        "voluntary_involuntary_ratio",
        "voluntary_involuntary_ratio",
        true,
    ),
    ("wakeup_latency_p50", "wakeup_latency.p50_ns", true),
    ("wakeup_latency_p99", "wakeup_latency.p99_ns", true),
    ("wakeup_latency_max", "wakeup_latency.max_ns", true),
    ("preemption_wait_p99", "preemption_wait.p99_ns", true),
    ("migrations_per_sec", "migrations_per_sec", true),
    ("cross_llc_share", "affinity.cross_llc_share", true),
    ("utilization", "utilization", true),
    (
        "idle_while_runnable_share",
        "work_conservation.idle_while_runnable_share",
        true,
    ),
    ("jain_index", "fairness.jain", true),
    ("runtime", "runtime_ns", false),
    ("fairness", "fairness.ratio", false),
    ("max-lag", "fairness.max_abs_lag_ns", false),
    ("wakeup-mean", "wakeup_latency.mean_ns", false),
    ("wakeup-p99", "wakeup_latency.p99_ns", false),
    ("wakeup-max", "wakeup_latency.max_ns", false),
    ("sched-delay-max", "sched_delay.max_ns", false),
    ("voluntary", "switches.voluntary", false),
    ("involuntary", "switches.involuntary", false),
    ("wakeups", "wakeups", false),
    ("migrations", "migrations", false),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{find, Direction, SYSTEM_COLUMNS, TASK_COLUMNS};

    #[test]
    fn directions_agree_with_the_column_catalogue() {
        for &(key, column, system) in CATALOGUE {
            let direction = if system {
                find(SYSTEM_COLUMNS, column).map(|c| c.direction)
            } else {
                find(TASK_COLUMNS, column).map(|c| c.direction)
            }
            .unwrap_or_else(|| panic!("no catalogue column {column}"));
            let want = match direction {
                Direction::LowerIsBetter => Better::Lower,
                Direction::HigherIsBetter => Better::Higher,
                Direction::Neutral => Better::Neutral,
            };
            let tables: &[&[Metric]] = if system {
                &[SYSTEM_METRICS, WORKLOAD_METRICS]
            } else {
                &[TASK_METRICS]
            };
            for m in tables
                .iter()
                .flat_map(|t| t.iter())
                .filter(|m| m.key == key)
            {
                assert_eq!(m.better, want, "{key} vs catalogue {column}");
            }
        }
    }
}
