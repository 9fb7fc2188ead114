//! `cpus`: one row per CPU — the `analyze --json` CPU row, flat.

use crate::cell::{ColumnDef, RowSink};
use crate::flatten::{self, Leaf};
use analysis::columns::CPU_COLUMNS;
use analysis::CpuRow;

/// For `schemas/export.md` (made by `schema_doc`, under test).
#[cfg(test)]
pub(crate) const DOC: &str = "one row per CPU: the CPU row of `analyze --json`, every field flat";

/// A CPU row with every optional field set, so that each leaf has a type.
fn template() -> CpuRow {
    CpuRow {
        cpu: 0,
        busy_ns: 0,
        idle_ns: 0,
        unknown_ns: 0,
        utilization: 0.5,
        switches: 0,
        switches_per_sec: 0.5,
        context_switch_bugs: 0,
        lost_events: 0,
        runqueue: analysis::report::Runqueue {
            mean_depth: 0.5,
            max_depth: 0,
        },
        wakeup_preemptions: 0,
        fairness_jain: Some(0.5),
        // A list (power:cpu_idle): not a flat column; `analyze --json` has it.
        idle_states: Vec::new(),
    }
}

fn leaves() -> Vec<Leaf> {
    let template = serde_json::to_value(template()).expect("a CPU row serializes");
    flatten::leaves(&template, CPU_COLUMNS, &[], &[])
}

pub(crate) fn columns() -> Vec<ColumnDef> {
    leaves().into_iter().map(|l| l.def).collect()
}

pub(crate) fn rows(report: &analysis::Report, sink: &mut dyn RowSink) -> std::io::Result<()> {
    flatten::write_rows(&report.cpus, &leaves(), sink)
}
