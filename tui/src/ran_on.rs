//! Which tasks ran on a CPU, for the Tasks filter's `cpu=N` predicate. The report keeps no
//! per-CPU time per task, so the sets come from the timeline store's running slices of
//! that CPU inside the report's window; they are built once per filter and run, not per
//! sort or frame.

use analysis::{Report, TaskRow, Timeline};
use std::collections::{HashMap, HashSet};

/// The pids that ran on each CPU a filter names.
#[derive(Debug, Clone, Default)]
pub(crate) struct RanOn {
    by_cpu: HashMap<u32, HashSet<i32>>,
}

impl RanOn {
    /// The pids with a running slice on each of `cpus` within the report's window
    /// (the store keeps whole intervals, not clipped to `--time`).
    pub(crate) fn of(timeline: &Timeline, report: &Report, cpus: &[u32]) -> RanOn {
        let (start, end) = (report.window.start_ns, report.window.end_ns);
        let tasks = timeline.tasks();
        let by_cpu = cpus
            .iter()
            .map(|&cpu| {
                let pids = timeline
                    .tasks_run_on(cpu, start, end)
                    .map(|task| tasks[task].pid)
                    .collect();
                (cpu, pids)
            })
            .collect();
        RanOn { by_cpu }
    }

    /// True when the task of `row` (any member of a grouped row) ran on `cpu`.
    pub(crate) fn ran(&self, cpu: u32, row: &TaskRow) -> bool {
        let Some(pids) = self.by_cpu.get(&cpu) else {
            return false;
        };
        if row.members.is_empty() {
            pids.contains(&row.pid)
        } else {
            row.members.iter().any(|pid| pids.contains(pid))
        }
    }
}
