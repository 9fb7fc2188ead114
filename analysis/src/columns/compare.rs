//! The columns `compare` offers, in its three tables (system, `--workload`, task roles).
//!
//! Each row compares a column of the report's catalogue across runs — its direction (and
//! so its `*` / `^` flag and the sign of its change) is the catalogue column's, never
//! restated here — or, where the report has no such column (a share of the workload, a
//! rate of a task's counts, a slice percentile), a quantity only a comparison has, with its
//! direction given once, here. What a row adds to its column is what a comparison needs:
//! the key and name `compare` has always written, the unit it is shown in, how one
//! repeat's value is read from a report ([`Read`]) and whether it is pooled across repeats
//! (the percentiles of metrics.md §8: [`Read::pools`]).

use super::{find, Direction, Unit, SYSTEM_COLUMNS, TASK_COLUMNS};

/// A distribution of per-event durations of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dist {
    Wakeup,
    Preemption,
    Slices,
    /// Every wait: wakeup latency and preemption wait.
    SchedDelay,
}

impl Dist {
    pub fn name(self) -> &'static str {
        match self {
            Dist::Wakeup => "wakeup latency",
            Dist::Preemption => "preemption wait",
            Dist::Slices => "slice",
            Dist::SchedDelay => "sched delay",
        }
    }
}

/// A statistic of a distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    Mean,
    P50,
    P90,
    P99,
    Max,
}

impl Stat {
    pub fn name(self) -> &'static str {
        match self {
            Stat::Mean => "mean",
            Stat::P50 => "p50",
            Stat::P90 => "p90",
            Stat::P99 => "p99",
            Stat::Max => "max",
        }
    }
}

/// How one repeat's value of a row is read (evaluated by `compare`, which holds the
/// reports).
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
    /// Where the value comes from, for the JSON output (`source`).
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

    /// The distribution and statistic whose value over every repeat is of the pooled
    /// samples, not the mean of the repeats' values; `None` for other reads.
    pub(crate) fn pools(self) -> Option<(Dist, Stat)> {
        match self {
            Read::Dist(d, s) | Read::SystemDist(d, s, _) => Some((d, s)),
            _ => None,
        }
    }
}

/// Where a row's direction comes from.
#[derive(Debug, Clone, Copy)]
pub enum Judged {
    /// The column of this key in the system table of the catalogue.
    System(&'static str),
    /// The column of this key in the task table of the catalogue.
    Task(&'static str),
    /// A quantity the report has no column for: its own direction.
    Own(Direction),
}

/// One row of a comparison table.
#[derive(Debug, Clone, Copy)]
pub struct Compared {
    /// Stable identifier (JSON `key`, `--sort`, `--task-metrics`).
    pub key: &'static str,
    /// What the text shows.
    pub name: &'static str,
    /// The unit of the value (a rate of a count column is per second; a share a fraction).
    pub unit: Unit,
    pub judged: Judged,
    pub read: Read,
    /// Shown in the default text (the rest with `--wide`).
    pub default: bool,
}

impl Compared {
    /// Which way of change is an improvement: the catalogue column's, or its own.
    pub fn direction(&self) -> Direction {
        match self.judged {
            Judged::System(key) => column_direction(find(SYSTEM_COLUMNS, key), key),
            Judged::Task(key) => column_direction(find(TASK_COLUMNS, key), key),
            Judged::Own(d) => d,
        }
    }
}

fn column_direction<Row>(column: Option<&super::Column<Row>>, key: &str) -> Direction {
    // A test walks every row, so a key that names no column fails there first.
    column
        .unwrap_or_else(|| panic!("compare row of catalogue column {key:?}: no such column"))
        .direction
}

const fn m(
    key: &'static str,
    name: &'static str,
    unit: Unit,
    judged: Judged,
    read: Read,
) -> Compared {
    Compared {
        key,
        name,
        unit,
        judged,
        read,
        default: true,
    }
}

/// `row`, shown only with `--wide` (and in JSON).
const fn w(row: Compared) -> Compared {
    Compared {
        default: false,
        ..row
    }
}

use Direction::Neutral;
use Judged::{Own, System as S, Task as T};
use Read::{
    Dist as D, Max, PerSec as Rate, Pointer as P, Quotient as Q, Ratio, Share, Sum,
    SystemDist as SD,
};
const PS: Unit = Unit::PerSec;
const US: Unit = Unit::NsAsUs;
const MS: Unit = Unit::NsAsMs;
const PCT: Unit = Unit::Percent { decimals: 1 };
const NUM: Unit = Unit::Number { decimals: 3 };

/// The system table over every task of each report: the catalogue's system columns, in
/// its order. Rates are per second of window (runs need not be equally long).
#[rustfmt::skip]
pub static SYSTEM: &[Compared] = &[
    m("context_switches_per_sec", "context switches/s", PS, S("context_switches_per_sec"), P("/system/context_switches_per_sec")),
    m("wakeup_preemptions_per_sec", "wakeup preemptions/s", PS, S("wakeup_preemptions_per_sec"), P("/system/wakeup_preemption/per_sec")),
    w(m("voluntary_involuntary_ratio", "vol/invol switches", NUM, S("voluntary_involuntary_ratio"), Ratio("/system/switches/voluntary", "/system/switches/involuntary"))),
    m("wakeup_latency_p50", "wakeup latency p50", US, S("wakeup_latency.p50_ns"), SD(Dist::Wakeup, Stat::P50, "/system/wakeup_latency/p50_ns")),
    m("wakeup_latency_p99", "wakeup latency p99", US, S("wakeup_latency.p99_ns"), SD(Dist::Wakeup, Stat::P99, "/system/wakeup_latency/p99_ns")),
    m("wakeup_latency_max", "wakeup latency max", US, S("wakeup_latency.max_ns"), SD(Dist::Wakeup, Stat::Max, "/system/wakeup_latency/max_ns")),
    m("preemption_wait_p99", "preemption wait p99", US, S("preemption_wait.p99_ns"), SD(Dist::Preemption, Stat::P99, "/system/preemption_wait/p99_ns")),
    m("migrations_per_sec", "migrations/s", PS, S("migrations_per_sec"), P("/system/migrations_per_sec")),
    w(m("cross_llc_share", "cross-LLC migrations", PCT, S("affinity.cross_llc_share"), P("/system/affinity/cross_llc_share"))),
    m("utilization", "utilization", PCT, S("utilization"), P("/system/utilization")),
    m("idle_while_runnable_share", "idle while runnable", PCT, S("work_conservation.idle_while_runnable_share"), P("/system/work_conservation/idle_while_runnable_share")),
    m("jain_index", "Jain's index", NUM, S("fairness.jain"), P("/system/fairness/jain")),
];

/// The system table over the `--workload` tasks only: the same columns where the meaning
/// is the same, computed from the workload's task rows. Idle-while-runnable stays the
/// report's (any runnable task, any CPU: the report does not split it per task) and is
/// labelled so.
#[rustfmt::skip]
pub(crate) static WORKLOAD: &[Compared] = &[
    m("switches_per_sec", "switches/s", PS, S("context_switches_per_sec"), Rate(&["/switches/voluntary", "/switches/involuntary"])),
    m("wakeup_preemptions_per_sec", "preempted on wakeup/s", PS, S("wakeup_preemptions_per_sec"), Rate(&["/preemption/suffered"])),
    w(m("voluntary_involuntary_ratio", "vol/invol switches", NUM, S("voluntary_involuntary_ratio"), Q("/switches/voluntary", "/switches/involuntary"))),
    m("wakeup_latency_p50", "wakeup latency p50", US, S("wakeup_latency.p50_ns"), D(Dist::Wakeup, Stat::P50)),
    m("wakeup_latency_p99", "wakeup latency p99", US, S("wakeup_latency.p99_ns"), D(Dist::Wakeup, Stat::P99)),
    m("wakeup_latency_max", "wakeup latency max", US, S("wakeup_latency.max_ns"), D(Dist::Wakeup, Stat::Max)),
    m("preemption_wait_p99", "preemption wait p99", US, S("preemption_wait.p99_ns"), D(Dist::Preemption, Stat::P99)),
    m("migrations_per_sec", "migrations/s", PS, S("migrations_per_sec"), Rate(&["/migrations"])),
    m("idle_while_runnable_share", "idle while runnable (any task)", PCT, S("work_conservation.idle_while_runnable_share"), P("/system/work_conservation/idle_while_runnable_share")),
    m("jain_index", "Jain's index", NUM, S("fairness.jain"), Read::Jain),
];

/// The task table: per role (the tasks one matching key gathers in a run). Shares are of
/// the workload's runtime and weight (judged as the runtime and weight columns: service
/// received, neutral). Where the task table has no column, the system table's column of
/// the same quantity judges (wakeup latency p50, preemption wait p99, the switch total);
/// slice lengths (a workload's own behaviour: neutral) and the mean preemption wait (a
/// wait: lower is better) have none anywhere and say their own.
#[rustfmt::skip]
pub static TASK: &[Compared] = &[
    m("runtime", "runtime", MS, T("runtime_ns"), Sum(&["/runtime_ns"])),
    m("runtime-share", "runtime share", PCT, T("runtime_ns"), Share("/runtime_ns")),
    m("weight-share", "weight share", PCT, T("fairness.weight"), Share("/fairness/weight")),
    m("fairness", "fairness ratio", NUM, T("fairness.ratio"), Q("/fairness/runtime_ns", "/fairness/entitlement_ns")),
    m("max-lag", "max lag", MS, T("fairness.max_abs_lag_ns"), Max("/fairness/max_abs_lag_ns")),
    m("slice-mean", "slice mean", MS, Own(Neutral), D(Dist::Slices, Stat::Mean)),
    w(m("slice-p50", "slice p50", MS, Own(Neutral), D(Dist::Slices, Stat::P50))),
    w(m("slice-p99", "slice p99", MS, Own(Neutral), D(Dist::Slices, Stat::P99))),
    w(m("wakeup-mean", "wakeup latency mean", US, T("wakeup_latency.mean_ns"), D(Dist::Wakeup, Stat::Mean))),
    w(m("wakeup-p50", "wakeup latency p50", US, S("wakeup_latency.p50_ns"), D(Dist::Wakeup, Stat::P50))),
    w(m("wakeup-p90", "wakeup latency p90", US, Own(Direction::LowerIsBetter), D(Dist::Wakeup, Stat::P90))),
    m("wakeup-p99", "wakeup latency p99", US, T("wakeup_latency.p99_ns"), D(Dist::Wakeup, Stat::P99)),
    w(m("wakeup-max", "wakeup latency max", US, T("wakeup_latency.max_ns"), D(Dist::Wakeup, Stat::Max))),
    w(m("preemption-wait-mean", "preemption wait mean", US, Own(Direction::LowerIsBetter), D(Dist::Preemption, Stat::Mean))),
    m("preemption-wait-p99", "preemption wait p99", US, S("preemption_wait.p99_ns"), D(Dist::Preemption, Stat::P99)),
    m("sched-delay-max", "longest wait", MS, T("sched_delay.max_ns"), D(Dist::SchedDelay, Stat::Max)),
    m("switches", "switches/s", PS, S("context_switches_per_sec"), Rate(&["/switches/voluntary", "/switches/involuntary"])),
    w(m("voluntary", "voluntary switches/s", PS, T("switches.voluntary"), Rate(&["/switches/voluntary"]))),
    w(m("involuntary", "involuntary switches/s", PS, T("switches.involuntary"), Rate(&["/switches/involuntary"]))),
    w(m("wakeups", "wakeups/s", PS, T("wakeups"), Rate(&["/wakeups"]))),
    w(m("preempting-wakeups", "wakeups preempting", NUM, Own(Neutral), Q("/preemption/caused", "/wakeups"))),
    m("migrations", "migrations/s", PS, T("migrations"), Rate(&["/migrations"])),
];

/// The task row called `key` (`--sort`, `--task-metrics`).
pub fn task_row(key: &str) -> Result<&'static Compared, String> {
    TASK.iter().find(|m| m.key == key).ok_or_else(|| {
        let names: Vec<&str> = TASK.iter().map(|m| m.key).collect();
        format!(
            "unknown task metric {key:?}; expected one of {}",
            names.join(", ")
        )
    })
}

/// The row of any table called `key` (for rendering a row of the comparison's JSON).
pub fn any_row(key: &str) -> Option<&'static Compared> {
    [SYSTEM, WORKLOAD, TASK]
        .into_iter()
        .flatten()
        .find(|m| m.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directions are the ones `compare` had before its rows were derived from the
    /// catalogue (its JSON `better` and flags must not change): every row resolves to a
    /// column, and to this direction.
    #[test]
    #[rustfmt::skip]
    fn every_row_resolves_to_its_former_direction() {
        use Direction::{HigherIsBetter as H, LowerIsBetter as L, Neutral as N};
        let want = |table: &[Compared]| table.iter().map(|m| (m.key, m.direction())).collect::<Vec<_>>();
        assert_eq!(
            want(SYSTEM),
            [
                ("context_switches_per_sec", N), ("wakeup_preemptions_per_sec", L),
                ("voluntary_involuntary_ratio", N), ("wakeup_latency_p50", L),
                ("wakeup_latency_p99", L), ("wakeup_latency_max", L), ("preemption_wait_p99", L),
                ("migrations_per_sec", L), ("cross_llc_share", L), ("utilization", N),
                ("idle_while_runnable_share", L), ("jain_index", H),
            ]
        );
        assert_eq!(
            want(WORKLOAD),
            [
                ("switches_per_sec", N), ("wakeup_preemptions_per_sec", L),
                ("voluntary_involuntary_ratio", N), ("wakeup_latency_p50", L),
                ("wakeup_latency_p99", L), ("wakeup_latency_max", L), ("preemption_wait_p99", L),
                ("migrations_per_sec", L), ("idle_while_runnable_share", L), ("jain_index", H),
            ]
        );
        assert_eq!(
            want(TASK),
            [
                ("runtime", N), ("runtime-share", N), ("weight-share", N), ("fairness", N),
                ("max-lag", L), ("slice-mean", N), ("slice-p50", N), ("slice-p99", N),
                ("wakeup-mean", L), ("wakeup-p50", L), ("wakeup-p90", L), ("wakeup-p99", L),
                ("wakeup-max", L),
                ("preemption-wait-mean", L), ("preemption-wait-p99", L), ("sched-delay-max", L),
                ("switches", N), ("voluntary", N), ("involuntary", N), ("wakeups", N),
                ("preempting-wakeups", N), ("migrations", N),
            ]
        );
    }

    /// A row that compares a column as it is (not a rate or share of it) stores the
    /// column's unit.
    #[test]
    fn rows_store_their_columns_unit() {
        for row in [SYSTEM, WORKLOAD, TASK].into_iter().flatten() {
            let column_unit = match row.judged {
                Judged::System(k) => find(SYSTEM_COLUMNS, k).map(|c| c.unit),
                Judged::Task(k) => find(TASK_COLUMNS, k).map(|c| c.unit),
                Judged::Own(_) => None,
            };
            let derived = matches!(row.read, Read::PerSec(_) | Read::Share(_));
            if let (Some(unit), false) = (column_unit, derived) {
                assert_eq!(row.unit.stored(), unit.stored(), "{}", row.key);
            }
        }
    }

    #[test]
    fn pooled_reads_are_the_distributions() {
        assert_eq!(TASK.iter().filter(|m| m.read.pools().is_some()).count(), 11);
        assert!(SYSTEM
            .iter()
            .all(|m| m.read.pools().is_some() == matches!(m.read, Read::SystemDist(..))));
    }
}
