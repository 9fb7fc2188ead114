//! The columns of the Tasks table, as data: header, width, how to read the value from a
//! report row, and its unit. One table serves display, sorting (`<`/`>`, `:sort KEY`) and
//! typed filter predicates (`lat.p99>5ms`). The first columns are those of the text
//! report, formatted the same way, so a number can be checked against `analyze`.

use analysis::TaskRow;

/// How a column's value is stored and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// The `task:pid` label (sorted by name).
    Label,
    Count,
    /// ns, shown in ms with 3 decimals.
    Ms,
    /// ns, shown in us with 3 decimals.
    Us,
    /// A plain ratio, 3 decimals.
    Ratio,
    /// A fraction 0..1, shown in % with 1 decimal.
    Percent,
}

pub struct Column {
    /// Name in `:sort KEY` and filter predicates.
    pub key: &'static str,
    pub header: &'static str,
    pub width: u16,
    pub unit: Unit,
    /// The value in the stored unit (ns, count, fraction); `None` = not available.
    pub value: fn(&TaskRow) -> Option<f64>,
}

fn ns(v: u64) -> Option<f64> {
    Some(v as f64)
}

#[rustfmt::skip] // one column per line reads as the table it is
pub const COLUMNS: &[Column] = &[
    Column { key: "task", header: "task:pid", width: 24, unit: Unit::Label, value: |_| None },
    Column { key: "runtime", header: "runtime ms", width: 11, unit: Unit::Ms, value: |t| ns(t.runtime_ns) },
    Column { key: "vol", header: "vol", width: 7, unit: Unit::Count, value: |t| ns(t.switches.voluntary) },
    Column { key: "invol", header: "invol", width: 7, unit: Unit::Count, value: |t| ns(t.switches.involuntary) },
    Column { key: "wakeups", header: "wakeups", width: 7, unit: Unit::Count, value: |t| ns(t.wakeups) },
    Column { key: "lat.avg", header: "lat avg us", width: 10, unit: Unit::Us, value: |t| ns(t.wakeup_latency.mean_ns) },
    Column { key: "lat.p99", header: "lat p99 us", width: 10, unit: Unit::Us, value: |t| ns(t.wakeup_latency.p99_ns) },
    Column { key: "lat.max", header: "lat max us", width: 10, unit: Unit::Us, value: |t| ns(t.wakeup_latency.max_ns) },
    Column { key: "dly.avg", header: "dly avg us", width: 10, unit: Unit::Us, value: |t| ns(t.sched_delay.mean_ns) },
    Column { key: "dly.max", header: "dly max us", width: 10, unit: Unit::Us, value: |t| ns(t.sched_delay.max_ns) },
    Column { key: "dly.sum", header: "dly sum ms", width: 10, unit: Unit::Ms, value: |t| ns(t.sched_delay.sum_ns) },
    Column { key: "migr", header: "migr", width: 6, unit: Unit::Count, value: |t| ns(t.migrations) },
    Column { key: "caused", header: "caused", width: 6, unit: Unit::Count, value: |t| ns(t.preemption.caused) },
    Column { key: "suffered", header: "suffer", width: 6, unit: Unit::Count, value: |t| ns(t.preemption.suffered) },
    Column { key: "fair", header: "ratio", width: 6, unit: Unit::Ratio, value: |t| t.fairness.map(|f| f.ratio) },
    Column { key: "lag", header: "max lag ms", width: 10, unit: Unit::Ms, value: |t| t.fairness.map(|f| f.max_abs_lag_ns) },
    Column { key: "warm", header: "warm %", width: 6, unit: Unit::Percent, value: |t| t.affinity.warm_restart_share },
];

/// The column named `key` (also accepted: the header without its unit, `runtime ms`).
pub fn find(key: &str) -> Option<usize> {
    COLUMNS.iter().position(|c| c.key == key || c.header == key)
}

/// `task:pid` as in the text report; a grouped row says how many tasks it merged.
pub fn task_label(t: &TaskRow) -> String {
    match t.group.as_deref() {
        Some("name") => format!("{}:({})", t.comm, t.members.len()),
        Some(_) => format!("{}:{}({})", t.comm, t.pid, t.members.len()),
        None => format!("{}:{}", t.comm, t.pid),
    }
}

impl Column {
    /// The cell text of `row`.
    pub fn cell(&self, row: &TaskRow) -> String {
        match self.unit {
            Unit::Label => task_label(row),
            unit => (self.value)(row).map_or_else(|| "-".into(), |v| format_value(unit, v)),
        }
    }
}

/// A stored value in the column's display unit.
pub fn format_value(unit: Unit, v: f64) -> String {
    match unit {
        Unit::Label => String::new(),
        Unit::Count => format!("{v:.0}"),
        Unit::Ms => format!("{:.3}", v / 1e6),
        Unit::Us => format!("{:.3}", v / 1e3),
        Unit::Ratio => format!("{v:.3}"),
        Unit::Percent => format!("{:.1}", v * 100.0),
    }
}
