//! The columns of the Tasks table: a choice of columns from the analysis' column catalogue
//! ([`analysis::columns::TASK_COLUMNS`], which gives header, unit, width and accessor, the
//! same the text report uses), each with a short key for sorting (`<`/`>`, `:sort KEY`)
//! and typed filter predicates (`lat.p99>5ms`). First the text report's columns, formatted
//! the same way, so a number on screen can be found in `analyze` output.

use analysis::columns::{Column as Catalogued, Unit, TASK_COLUMNS};
use analysis::TaskRow;
use std::sync::OnceLock;

pub(crate) struct Column {
    /// Name in `:sort KEY`, `--sort` and filter predicates.
    pub key: &'static str,
    /// The catalogue key; `None` for the `task:pid` label.
    catalogue: Option<&'static str>,
}

#[rustfmt::skip] // one column per line reads as the table it is
pub(crate) static COLUMNS: &[Column] = &[
    Column { key: "task", catalogue: None },
    Column { key: "runtime", catalogue: Some("runtime_ns") },
    Column { key: "vol", catalogue: Some("switches.voluntary") },
    Column { key: "invol", catalogue: Some("switches.involuntary") },
    Column { key: "wakeups", catalogue: Some("wakeups") },
    Column { key: "lat.avg", catalogue: Some("wakeup_latency.mean_ns") },
    Column { key: "lat.p99", catalogue: Some("wakeup_latency.p99_ns") },
    Column { key: "lat.max", catalogue: Some("wakeup_latency.max_ns") },
    Column { key: "dly.avg", catalogue: Some("sched_delay.mean_ns") },
    Column { key: "dly.max", catalogue: Some("sched_delay.max_ns") },
    Column { key: "migr", catalogue: Some("migrations") },
    Column { key: "caused", catalogue: Some("preemption.caused") },
    Column { key: "suffered", catalogue: Some("preemption.suffered") },
    Column { key: "fair", catalogue: Some("fairness.ratio") },
    Column { key: "lag", catalogue: Some("fairness.max_abs_lag_ns") },
    Column { key: "warm", catalogue: Some("affinity.warm_restart_share") },
    Column { key: "local", catalogue: Some("affinity.wakeups_local") },
    Column { key: "remote", catalogue: Some("affinity.wakeups_remote") },
];

/// Width of the `task:pid` column.
const LABEL_WIDTH: u16 = 24;

/// The catalogue entry of every column (`None` for the label), looked up once.
fn resolved() -> &'static [Option<&'static Catalogued<TaskRow>>] {
    static RESOLVED: OnceLock<Vec<Option<&'static Catalogued<TaskRow>>>> = OnceLock::new();
    RESOLVED.get_or_init(|| {
        COLUMNS
            .iter()
            .map(|c| {
                c.catalogue
                    .and_then(|key| analysis::columns::find(TASK_COLUMNS, key))
            })
            .collect()
    })
}

/// The column named `key` (its short key or its catalogue key).
pub(crate) fn find(key: &str) -> Option<usize> {
    COLUMNS
        .iter()
        .position(|c| c.key == key || c.catalogue == Some(key))
}

/// `task:pid` as in the text report; a grouped row says how many tasks it merged.
pub(crate) fn task_label(t: &TaskRow) -> String {
    render::task_label(t)
}

impl Column {
    fn entry(&self) -> Option<&'static Catalogued<TaskRow>> {
        let i = COLUMNS.iter().position(|c| std::ptr::eq(c, self))?;
        resolved()[i]
    }

    pub(crate) fn is_label(&self) -> bool {
        self.catalogue.is_none()
    }

    pub(crate) fn header(&self) -> &'static str {
        self.entry().map_or("task:pid", |e| e.header)
    }

    pub(crate) fn width(&self) -> u16 {
        self.entry().map_or(LABEL_WIDTH, |e| e.width as u16)
    }

    /// The unit of a value column.
    pub(crate) fn unit(&self) -> Option<Unit> {
        self.entry().map(|e| e.unit)
    }

    /// The stored value (ns, count, fraction); `None` for the label or a missing value.
    pub(crate) fn value(&self, row: &TaskRow) -> Option<f64> {
        self.entry().and_then(|e| (e.value)(row).as_f64())
    }

    /// The cell text of `row`, as the text report formats it (`-` when missing).
    pub(crate) fn cell(&self, row: &TaskRow) -> String {
        match self.entry() {
            Some(e) => e.unit.format((e.value)(row)),
            None => task_label(row),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_column_is_in_the_catalogue() {
        for (c, entry) in super::COLUMNS.iter().zip(super::resolved()) {
            assert_eq!(entry.is_some(), c.catalogue.is_some(), "{}", c.key);
        }
    }
}
