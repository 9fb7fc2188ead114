//! The "waited behind" section: for the tasks that waited longest, what their CPU was doing
//! while they waited (docs/metrics.md §3a) and the occupants they waited behind most.
//!
//! Apart from the main task table because it answers another question (why, not how
//! much), and because its last column is a list of names, not a number.

use crate::table::{Label, Table};
use crate::task_label;
use analysis::columns::TASK_COLUMNS;
use analysis::{Report, TaskRow};
use std::fmt::Write;

/// Tasks listed, by total wait.
const ROWS: usize = 10;
/// Occupants named per task.
const OCCUPANTS: usize = 3;

/// `comm:pid ms, …` of the task's top occupants (the "others" row is left out).
fn occupants(t: &TaskRow) -> String {
    t.wait_causes
        .behind
        .iter()
        .filter_map(|b| Some((b.pid?, b)))
        .take(OCCUPANTS)
        .map(|(pid, b)| format!("{}:{} {:.3}", b.comm, pid, b.ns as f64 / 1e6))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn render(r: &Report, out: &mut String) {
    let mut rows: Vec<&TaskRow> = r
        .tasks
        .iter()
        .filter(|t| t.sched_delay.sum_ns > 0)
        .collect();
    if rows.is_empty() {
        return;
    }
    rows.sort_by(|a, b| {
        b.sched_delay
            .sum_ns
            .cmp(&a.sched_delay.sum_ns)
            .then(a.pid.cmp(&b.pid))
    });
    rows.truncate(ROWS);
    let s = &r.system.wait_causes;
    let total = s.total_ns().max(1) as f64;
    let share = |ns: u64| 100.0 * ns as f64 / total;
    let _ = writeln!(
        out,
        "waited behind: all waits {:.3} ms = enqueue {:.1} % + idle {:.1} % + behind a task {:.1} % + unknown {:.1} %",
        s.total_ns() as f64 / 1e6,
        share(s.enqueue_ns),
        share(s.idle_ns),
        share(s.behind_ns),
        share(s.unknown_ns),
    );
    let p = &s.placement;
    if p.busy_wakeups > 0 {
        // Which CPUs count as usable: the allowed ones where the recording or --affinity
        // gave them, else those the task ran on (docs/metrics.md §3a).
        let usable = if r.system.work_conservation.affinity.tasks_known > 0 {
            "a CPU the task may use (allowed, else one it ran on)"
        } else {
            "a CPU the task had run on"
        };
        let _ = writeln!(
            out,
            "placement: {} wakeups queued on a busy CPU; {} while {usable} idled in the same LLC ({:.3} ms waited), {} while one idled elsewhere ({:.3} ms)",
            p.busy_wakeups,
            p.idle_allowed_llc,
            p.wait_llc_ns as f64 / 1e6,
            p.idle_allowed_other,
            p.wait_other_ns as f64 / 1e6,
        );
    }
    if !s.idle_ns_by_state.is_empty() {
        // power:cpu_idle: the idle waits by the state the CPU was leaving (docs/metrics.md §3b).
        let states: Vec<String> = s
            .idle_ns_by_state
            .iter()
            .map(|(state, &ns)| format!("{state} {:.3} ms", ns as f64 / 1e6))
            .collect();
        let _ = writeln!(
            out,
            "idle waits by the idle state left: {}",
            states.join(", ")
        );
    }
    let label = Label {
        header: "task:pid",
        width: crate::TASK_WIDTH,
        text: task_label,
    };
    let mut table = Table::of(
        TASK_COLUMNS,
        Some(label),
        &[
            "sched_delay.sum_ns",
            "wait_causes.enqueue_ns",
            "wait_causes.idle_ns",
            "wait_causes.behind_ns",
            "wait_causes.unknown_ns",
        ],
    );
    table.trailer = Some(Label {
        header: "behind most",
        width: 40,
        text: occupants,
    });
    table.render(rows, out);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::report::BehindRow;

    #[test]
    fn occupants_name_the_top_three_and_skip_the_rest_row() {
        let mut t = TaskRow::empty();
        let b = |pid: Option<i32>, comm: &str, ns| BehindRow {
            pid,
            comm: comm.to_string(),
            ns,
            count: 1,
        };
        t.wait_causes.behind = vec![
            b(Some(1), "a", 3_000_000),
            b(Some(2), "b", 2_500_000),
            b(Some(3), "c", 1_000),
            b(Some(4), "d", 10),
            b(None, "(2 others)", 5),
        ];
        assert_eq!(occupants(&t), "a:1 3.000, b:2 2.500, c:3 0.001");
    }
}
