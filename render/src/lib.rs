//! Text for people: the fixed-width report of `schedtrace analyze` (a run header, the task
//! and CPU tables, the wakeup-preemption, fairness, affinity and work-conservation sections),
//! and the text, LKML and markdown layouts of `schedtrace compare` ([`compare`]).
//!
//! Kept apart from `analysis` (which computes numbers and formats none) the way ripgrep keeps
//! its printer apart from its searcher: the binary and the TUI print through here, and every
//! table takes its headers, widths and formats from the column catalogue
//! ([`analysis::columns`]). Columns are explained in `docs/guide.md`.

#![warn(unreachable_pub)]

pub mod compare;
mod header;
mod sections;
mod table;
mod waits;

use analysis::{Report, TaskRow};

/// What the text report shows.
#[derive(Debug, Clone)]
pub struct TextOptions {
    pub header: bool,
    pub tasks: bool,
    pub cpus: bool,
    /// The §4–7 sections: wakeup preemption, fairness, affinity, work conservation.
    pub metrics: bool,
    /// Warn in the header when unknown time exceeds this share of task time.
    pub unknown_warn_ratio: f64,
}

impl Default for TextOptions {
    fn default() -> TextOptions {
        TextOptions {
            header: true,
            tasks: true,
            cpus: true,
            metrics: true,
            unknown_warn_ratio: 0.01,
        }
    }
}

/// The whole text report of `report`.
pub fn report(report: &Report, opts: &TextOptions) -> String {
    let mut out = String::new();
    if opts.header {
        header::render(report, opts, &mut out);
    }
    if opts.tasks {
        sections::tasks(report, &mut out);
    }
    if opts.cpus {
        sections::cpus(report, &mut out);
    }
    if opts.metrics {
        out.push('\n');
        sections::preemption(report, &mut out);
        sections::fairness(report, &mut out);
        sections::affinity(report, &mut out);
        sections::work_conservation(report, &mut out);
        waits::render(report, &mut out);
    }
    out
}

const TASK_WIDTH: usize = 24;

/// The `task:pid` cell; a grouped row shows how many tasks it merged. Cut from the left to
/// the column's width, keeping the pid end, which identifies the row.
pub fn task_label(t: &TaskRow) -> String {
    let label = match t.group.as_deref() {
        Some("name") => format!("{}:({})", t.comm, t.members.len()),
        Some(_) => format!("{}:{}({})", t.comm, t.pid, t.members.len()),
        None => format!("{}:{}", t.comm, t.pid),
    };
    let n = label.chars().count();
    if n > TASK_WIDTH {
        label.chars().skip(n - TASK_WIDTH).collect()
    } else {
        label
    }
}
