//! The column catalogue: every column of the task, CPU and system tables described once —
//! its key, header, unit, width, direction and how to read it from a row.
//!
//! Why one table of data rather than code per view: the text report, `compare`, the TUI and
//! the tabular export all show the same numbers, and each needs the same facts about them
//! (what the unit is, whether a rise is good news). Written once here, a new column is one
//! line, and no view can disagree with another about a header or a direction. The tables
//! of `compare` ([`compare`]) are rows over these columns: what a comparison adds (how a
//! repeat's value is read, pooled across repeats) and nothing they already say.

pub mod compare;

use crate::report::{CpuRow, Report, TaskRow};

/// Which way of change is an improvement. `Neutral` columns (runtime, switch counts,
/// wakeups) describe a workload rather than judge a scheduler: no `*` / `^` for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    LowerIsBetter,
    HigherIsBetter,
    Neutral,
}

impl Direction {
    /// The name in JSON (`better` of a comparison's row).
    pub fn name(self) -> &'static str {
        match self {
            Direction::HigherIsBetter => "higher",
            Direction::LowerIsBetter => "lower",
            Direction::Neutral => "neutral",
        }
    }
}

/// What a stored value is, and so how it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A duration in ns, shown in ms with 3 decimals.
    NsAsMs,
    /// A duration in ns, shown in µs with 3 decimals.
    NsAsUs,
    /// A trace timestamp in ns, shown in seconds with 6 decimals (µs).
    Timestamp,
    /// A count of things.
    Count,
    /// Things per second of the window, shown with 1 decimal.
    PerSec,
    /// A fraction 0..1, shown in % with `decimals`.
    Percent { decimals: u8 },
    /// A plain number (ratio, index, mean depth) with `decimals`.
    Number { decimals: u8 },
}

impl Unit {
    /// The unit of the stored value, for schemas and exported column names.
    pub fn stored(self) -> &'static str {
        match self {
            Unit::NsAsMs | Unit::NsAsUs | Unit::Timestamp => "ns",
            Unit::Count => "count",
            Unit::PerSec => "1/s",
            Unit::Percent { .. } => "fraction",
            Unit::Number { .. } => "number",
        }
    }

    /// The unit a value is shown in, after [`Unit::scale`] (`""` for plain numbers).
    pub fn shown(self) -> &'static str {
        match self {
            Unit::PerSec => "/s",
            Unit::NsAsUs => "us",
            Unit::NsAsMs => "ms",
            Unit::Timestamp => "s",
            Unit::Percent { .. } => "%",
            Unit::Count | Unit::Number { .. } => "",
        }
    }

    /// `value` (stored unit) scaled to the shown unit.
    pub fn scale(self, value: f64) -> f64 {
        match self {
            Unit::NsAsUs => value / 1e3,
            Unit::NsAsMs => value / 1e6,
            Unit::Timestamp => value / 1e9,
            Unit::Percent { .. } => value * 100.0,
            Unit::PerSec | Unit::Count | Unit::Number { .. } => value,
        }
    }

    /// `value` as the text tables show it; `-` when there is none.
    pub fn format(self, value: Value) -> String {
        match (self, value) {
            (_, Value::Missing) => "-".to_string(),
            (Unit::Count, Value::Int(n)) => n.to_string(),
            (Unit::Timestamp, Value::Int(ns)) => {
                format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
            }
            (unit, v) => {
                let x = v.as_f64().unwrap_or(0.0);
                match unit {
                    Unit::NsAsMs => format!("{:.3}", x / 1e6),
                    Unit::NsAsUs => format!("{:.3}", x / 1e3),
                    Unit::Timestamp => format!("{:.6}", x / 1e9),
                    Unit::Count => format!("{x:.0}"),
                    Unit::PerSec => format!("{x:.1}"),
                    Unit::Percent { decimals } => format!("{:.*}", decimals as usize, 100.0 * x),
                    Unit::Number { decimals } => format!("{x:.*}", decimals as usize),
                }
            }
        }
    }
}

/// One cell's value as stored: integers stay exact (timestamps do not fit an f64's 53 bits).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(u64),
    Real(f64),
    /// Not defined for this row (no samples, never competed, no topology).
    Missing,
}

impl Value {
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Value::Int(n) => Some(n as f64),
            Value::Real(x) => Some(x),
            Value::Missing => None,
        }
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Int(n)
    }
}

impl From<u32> for Value {
    fn from(n: u32) -> Value {
        Value::Int(n.into())
    }
}

impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Real(x)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Missing, Into::into)
    }
}

/// One column of a table of `Row`s.
pub struct Column<Row: 'static> {
    /// Stable name: the JSON path of the field (`wakeup_latency.p99_ns`), or a derived name.
    pub key: &'static str,
    /// What the text table prints above it (unit included).
    pub header: &'static str,
    pub unit: Unit,
    /// Text width (right-aligned).
    pub width: usize,
    pub direction: Direction,
    /// One line that defines it (for `--help`, the guide and the TUI's help).
    pub doc: &'static str,
    pub value: fn(&Row) -> Value,
}

impl<Row> Column<Row> {
    /// The cell of `row`, formatted and right-aligned to the column's width.
    pub fn cell(&self, row: &Row) -> String {
        format!(
            "{:>w$}",
            self.unit.format((self.value)(row)),
            w = self.width
        )
    }

    /// The header, right-aligned to the column's width.
    pub fn head(&self) -> String {
        format!("{:>w$}", self.header, w = self.width)
    }
}

/// The column called `key` of `table`.
pub fn find<Row>(table: &'static [Column<Row>], key: &str) -> Option<&'static Column<Row>> {
    table.iter().find(|c| c.key == key)
}

use Direction::{HigherIsBetter as Higher, LowerIsBetter as Lower, Neutral};

macro_rules! col {
    ($key:literal, $header:literal, $unit:expr, $width:literal, $dir:expr, $doc:literal, $value:expr) => {
        Column {
            key: $key,
            header: $header,
            unit: $unit,
            width: $width,
            direction: $dir,
            doc: $doc,
            value: $value,
        }
    };
}

const MS: Unit = Unit::NsAsMs;
const US: Unit = Unit::NsAsUs;
const N: Unit = Unit::Count;

/// The task table's columns (one row per task or group), in the text report's order:
/// the main table first, then the fairness and the affinity tables.
#[rustfmt::skip]
pub static TASK_COLUMNS: &[Column<TaskRow>] = &[
    col!("runtime_ns", "runtime ms", MS, 11, Neutral, "time on a CPU in the window", |t| t.runtime_ns.into()),
    col!("switches.voluntary", "vol", N, 7, Neutral, "slices ended by blocking (sleep, I/O, lock)", |t| t.switches.voluntary.into()),
    col!("switches.involuntary", "invol", N, 7, Neutral, "slices ended while still runnable (preempted)", |t| t.switches.involuntary.into()),
    col!("wakeups", "wakeups", N, 7, Neutral, "times the task was woken", |t| t.wakeups.into()),
    col!("wakeup_latency.mean_ns", "lat avg us", US, 10, Lower, "mean wakeup latency: wakeup to running", |t| t.wakeup_latency.mean().into()),
    col!("wakeup_latency.p99_ns", "lat p99 us", US, 10, Lower, "99th percentile of wakeup latency (nearest rank)", |t| t.wakeup_latency.p99().into()),
    col!("wakeup_latency.max_ns", "lat max us", US, 10, Lower, "largest wakeup latency", |t| t.wakeup_latency.max().into()),
    col!("wakeup_latency.max_at_ns", "lat max at s", Unit::Timestamp, 17, Neutral, "when the largest wakeup latency ended (the switch-in)", |t| t.wakeup_latency.max_at().into()),
    col!("sched_delay.mean_ns", "dly avg us", US, 10, Lower, "mean sched delay: every wait runnable to running (wakeups and preemptions)", |t| t.sched_delay.mean().into()),
    col!("sched_delay.max_ns", "dly max us", US, 10, Lower, "largest sched delay (perf sched latency's max delay)", |t| t.sched_delay.max().into()),
    col!("migrations", "migr", N, 6, Neutral, "switch-ins on another CPU than the previous slice's", |t| t.migrations.into()),
    // Wait causes (§3a): the sched delay split by what the task's CPU ran.
    col!("sched_delay.sum_ns", "waited ms", MS, 11, Lower, "total sched delay: every counted wait, runnable to running", |t| t.sched_delay.sum_ns.into()),
    col!("wait_causes.enqueue_ns", "enqueue ms", MS, 11, Lower, "waited in the wakeup path: sched_waking to sched_wakeup", |t| t.wait_causes.enqueue_ns.into()),
    col!("wait_causes.idle_ns", "idle ms", MS, 10, Lower, "waited while its CPU ran the idle task (idle exit, schedule)", |t| t.wait_causes.idle_ns.into()),
    col!("wait_causes.behind_ns", "behind ms", MS, 11, Lower, "waited while its CPU ran another task", |t| t.wait_causes.behind_ns.into()),
    col!("wait_causes.unknown_ns", "unknown ms", MS, 11, Lower, "waited while what its CPU ran is not known (lost events, before the CPU's first switch)", |t| t.wait_causes.unknown_ns.into()),
    // Fairness (metrics.md §7).
    col!("fairness.weight", "weight", N, 6, Neutral, "nice weight it competed with (1024 at nice 0)", |t| t.fairness.map(|f| f.weight).into()),
    col!("fairness.runtime_ns", "runtime ms", MS, 12, Neutral, "runtime while competing", |t| t.fairness.map(|f| f.runtime_ns).into()),
    col!("fairness.entitlement_ns", "entitled ms", MS, 12, Neutral, "fluid-share entitlement: what its weight earned while it competed", |t| t.fairness.map(|f| f.entitlement_ns).into()),
    col!("fairness.ratio", "ratio", Unit::Number { decimals: 3 }, 7, Neutral, "runtime / entitlement (1 = fair)", |t| t.fairness.and_then(|f| f.ratio).into()),
    col!("fairness.max_abs_lag_ns", "max lag ms", MS, 11, Lower, "largest |entitlement - runtime| at any moment", |t| t.fairness.map(|f| f.max_abs_lag_ns).into()),
    col!("preemption.caused", "caused", N, 7, Neutral, "wakeup preemptions it caused (as the woken task)", |t| t.preemption.caused.into()),
    col!("preemption.suffered", "suffer", N, 7, Lower, "wakeup preemptions it suffered (as the task switched out)", |t| t.preemption.suffered.into()),
    // Cache affinity and placement (§6).
    col!("affinity.wakeups_local", "local", N, 7, Neutral, "wakeups that ran on the waker's CPU", |t| t.affinity.wakeups_local.into()),
    col!("affinity.wakeups_remote", "remote", N, 7, Neutral, "wakeups that ran on another CPU than the waker's", |t| t.affinity.wakeups_remote.into()),
    col!("affinity.wakeup_latency_local.mean_ns", "lat loc us", US, 11, Lower, "mean wakeup latency of local wakeups", |t| t.affinity.wakeup_latency_local.mean().into()),
    col!("affinity.wakeup_latency_remote.mean_ns", "lat rem us", US, 11, Lower, "mean wakeup latency of remote wakeups", |t| t.affinity.wakeup_latency_remote.mean().into()),
    col!("affinity.placement.same_cpu", "cpu", N, 6, Neutral, "wakeups placed on the CPU of the previous slice", |t| t.affinity.placement.same_cpu.into()),
    col!("affinity.placement.same_llc", "llc", N, 6, Neutral, "wakeups placed on another CPU sharing the previous slice's LLC (SMT siblings included)", |t| t.affinity.placement.within_llc().into()),
    col!("affinity.placement.cross_llc", "xllc", N, 6, Lower, "wakeups placed across an LLC boundary (same or remote node)", |t| t.affinity.placement.cross_llc().into()),
    col!("affinity.placement.waker_cpu", "w-cpu", N, 6, Neutral, "wakeups placed on the waker's CPU", |t| t.affinity.placement.waker_cpu.into()),
    col!("affinity.placement.waker_llc", "w-llc", N, 6, Neutral, "wakeups placed on another CPU of the waker's LLC", |t| t.affinity.placement.waker_llc.into()),
    col!("affinity.warm_restart_share", "warm%", Unit::Percent { decimals: 1 }, 6, Higher, "switch-ins on the CPU of the previous slice", |t| t.affinity.warm_restart_share.into()),
    col!("affinity.top_cpu_share", "top%", Unit::Percent { decimals: 1 }, 6, Neutral, "share of runtime on its most used CPU", |t| t.affinity.top_cpu_share.into()),
];

/// The CPU table's columns, in the text report's order (main table, then runqueue table).
#[rustfmt::skip]
pub static CPU_COLUMNS: &[Column<CpuRow>] = &[
    col!("cpu", "cpu", N, 4, Neutral, "CPU number", |c| c.cpu.into()),
    col!("busy_ns", "busy ms", MS, 12, Neutral, "time running a task (not idle)", |c| c.busy_ns.into()),
    col!("idle_ns", "idle ms", MS, 12, Neutral, "time running the idle task", |c| c.idle_ns.into()),
    col!("unknown_ns", "unknown ms", MS, 12, Lower, "time its occupant was not known (before its first switch, after lost events or a context-switch bug)", |c| c.unknown_ns.into()),
    col!("utilization", "util %", Unit::Percent { decimals: 2 }, 7, Neutral, "busy / window", |c| c.utilization.into()),
    col!("switches", "switches", N, 9, Neutral, "context switches on the CPU", |c| c.switches.into()),
    col!("switches_per_sec", "switches/s", Unit::PerSec, 11, Neutral, "context switches per second of window", |c| c.switches_per_sec.into()),
    col!("context_switch_bugs", "bugs", N, 5, Lower, "switches inconsistent with what the CPU was believed to run", |c| c.context_switch_bugs.into()),
    col!("runqueue.mean_depth", "rq mean", Unit::Number { decimals: 3 }, 10, Lower, "time-weighted mean of tasks waiting on its runqueue", |c| c.runqueue.mean_depth.into()),
    col!("runqueue.max_depth", "rq max", N, 9, Lower, "most tasks waiting on its runqueue at once", |c| c.runqueue.max_depth.into()),
    col!("wakeup_preemptions", "wk-pre", N, 9, Neutral, "wakeup preemptions on the CPU", |c| c.wakeup_preemptions.into()),
    col!("fairness_jain", "jain", Unit::Number { decimals: 4 }, 8, Higher, "Jain's index of the fairness ratios of the tasks that competed on it", |c| c.fairness_jain.into()),
];

/// The system table's columns (one value per run): what `compare` compares.
#[rustfmt::skip]
pub static SYSTEM_COLUMNS: &[Column<Report>] = &[
    col!("context_switches_per_sec", "context switches", Unit::PerSec, 12, Neutral, "context switches per second of window", |r| r.system.context_switches_per_sec.into()),
    col!("wakeup_preemptions_per_sec", "wakeup preemptions", Unit::PerSec, 12, Lower, "wakeup preemptions per second of window", |r| r.system.wakeup_preemption.per_sec.into()),
    col!("voluntary_involuntary_ratio", "vol/invol switches", Unit::Number { decimals: 3 }, 12, Neutral, "voluntary / involuntary switches", |r| { let s = r.system.switches; (s.involuntary > 0).then(|| s.voluntary as f64 / s.involuntary as f64).into() }),
    col!("wakeup_latency.p50_ns", "wakeup latency p50", US, 12, Lower, "median wakeup latency over every task", |r| r.system.wakeup_latency.p50().into()),
    col!("wakeup_latency.p99_ns", "wakeup latency p99", US, 12, Lower, "99th percentile of wakeup latency over every task", |r| r.system.wakeup_latency.p99().into()),
    col!("wakeup_latency.max_ns", "wakeup latency max", US, 12, Lower, "largest wakeup latency", |r| r.system.wakeup_latency.max().into()),
    col!("preemption_wait.p99_ns", "preemption wait p99", US, 12, Lower, "99th percentile of the waits of preempted tasks", |r| r.system.preemption_wait.p99().into()),
    col!("migrations_per_sec", "migrations", Unit::PerSec, 12, Lower, "migrations per second of window", |r| r.system.migrations_per_sec.into()),
    col!("affinity.cross_llc_share", "cross-LLC migrations", Unit::Percent { decimals: 1 }, 12, Lower, "migrations across an LLC boundary / all migrations", |r| r.system.affinity.cross_llc_share.into()),
    col!("utilization", "utilization", Unit::Percent { decimals: 1 }, 12, Neutral, "busy time / (window x CPUs)", |r| r.system.utilization.into()),
    col!("work_conservation.idle_while_runnable_share", "idle while runnable", Unit::Percent { decimals: 2 }, 12, Lower, "CPU time idle while a task waited on another CPU / (window x CPUs)", |r| r.system.work_conservation.idle_while_runnable_share.into()),
    col!("fairness.jain", "Jain's index", Unit::Number { decimals: 4 }, 12, Higher, "Jain's index of the competing tasks' fairness ratios", |r| r.system.fairness.jain.into()),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_per_table() {
        fn unique<R>(table: &[Column<R>]) {
            let mut keys: Vec<&str> = table.iter().map(|c| c.key).collect();
            keys.sort_unstable();
            let n = keys.len();
            keys.dedup();
            assert_eq!(keys.len(), n);
        }
        unique(TASK_COLUMNS);
        unique(CPU_COLUMNS);
        unique(SYSTEM_COLUMNS);
    }

    #[test]
    fn every_header_fits_its_width() {
        fn fits<R>(table: &[Column<R>]) {
            for c in table {
                assert!(c.header.len() <= c.width || c.width >= 12, "{}", c.key);
            }
        }
        fits(TASK_COLUMNS);
        fits(CPU_COLUMNS);
    }

    #[test]
    fn formats_follow_the_unit() {
        assert_eq!(Unit::NsAsMs.format(Value::Int(1_234_567)), "1.235");
        assert_eq!(Unit::NsAsUs.format(Value::Int(1_500)), "1.500");
        assert_eq!(
            Unit::Timestamp.format(Value::Int(63_476_219_123)),
            "63.476219"
        );
        assert_eq!(
            Unit::Percent { decimals: 1 }.format(Value::Real(0.5)),
            "50.0"
        );
        assert_eq!(Unit::Count.format(Value::Missing), "-");
        assert_eq!(
            Unit::Number { decimals: 4 }.format(Value::Real(0.99893)),
            "0.9989"
        );
    }
}
