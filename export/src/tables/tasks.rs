//! `tasks`: one row per task (pid lifetime) — the `analyze --json` task row, flat.

use crate::cell::{ColumnDef, RowSink};
use crate::flatten::{self, Leaf};
use analysis::columns::TASK_COLUMNS;
use analysis::report::{TaskFairness, TaskRow};
use analysis::Stats;

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str =
    "one row per task (one pid lifetime): the task row of `analyze --json`, every field flat";

/// A task row with every optional field set, so that each leaf has a type.
fn template() -> TaskRow {
    let stats = Stats {
        count: 1,
        ..Stats::default()
    };
    let mut affinity = analysis::report::TaskAffinityRow {
        wakeup_latency_local: stats,
        wakeup_latency_remote: stats,
        ..Default::default()
    };
    affinity.warm_restart_share = Some(0.5);
    affinity.top_cpu_share = Some(0.5);
    affinity.top_llc_share = Some(0.5);
    TaskRow {
        pid: 1,
        tgid: Some(1),
        slices: stats,
        wakeup_latency: stats,
        preemption_wait: stats,
        sched_delay: stats,
        fairness: Some(TaskFairness {
            ratio: Some(1.0),
            max_abs_lag_at_ns: Some(1),
            ..Default::default()
        }),
        affinity,
        wait_causes: analysis::report::WaitCauses {
            longest: Some(Default::default()),
            ..Default::default()
        },
        ..TaskRow::empty()
    }
}

/// Catalogue keys that are not their JSON field: `same_llc` there also counts SMT
/// siblings (`same_core`); the field does not.
const DERIVED: &[&str] = &["affinity.placement.same_llc"];

fn leaves() -> Vec<Leaf> {
    let template = serde_json::to_value(template()).expect("a task row serializes");
    // Grouping is not an export option: `group` and `members` never have a value.
    flatten::leaves(&template, TASK_COLUMNS, &["group", "members"], DERIVED)
}

pub(crate) fn columns() -> Vec<ColumnDef> {
    leaves().into_iter().map(|l| l.def).collect()
}

pub(crate) fn rows(report: &analysis::Report, sink: &mut dyn RowSink) -> std::io::Result<()> {
    flatten::write_rows(&report.tasks, &leaves(), sink)
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::columns::Value;

    /// The catalogue documents a column only where it is the JSON field: its accessor
    /// must read the same value (else the doc would describe another number).
    #[test]
    fn catalogue_docs_describe_the_fields_they_are_attached_to() {
        let mut row = template();
        row.runtime_ns = 7;
        row.switches.voluntary = 3;
        row.affinity.placement.same_core = 2;
        row.affinity.placement.same_llc = 5;
        row.wakeup_latency.p99_ns = 11;
        let json = serde_json::to_value(&row).unwrap();
        let mut mismatched = Vec::new();
        for c in TASK_COLUMNS {
            let pointer = format!("/{}", c.key.replace('.', "/"));
            let Some(leaf) = json.pointer(&pointer) else {
                continue;
            };
            let catalogue = match (c.value)(&row) {
                Value::Int(n) => serde_json::json!(n),
                Value::Real(x) => serde_json::json!(x),
                Value::Missing => serde_json::Value::Null,
            };
            if leaf.as_f64() != catalogue.as_f64() {
                mismatched.push(c.key);
            }
        }
        assert_eq!(mismatched, DERIVED);
    }
}
