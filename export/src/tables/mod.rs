//! The tables of an export, one module each: what columns a table has
//! ([`Table::columns`]) and its rows, streamed to a [`RowSink`] (a writer) one at a time,
//! so no table is built in memory. The per-event tables (`slices`, `intervals`, `waits`,
//! `preemptions`) are written from the analysis' drain as the trace is read
//! ([`crate::drain`]); the others from the report ([`Table::rows`]).

mod cpus;
pub(crate) mod intervals;
pub(crate) mod preemptions;
pub(crate) mod runs;
mod series;
pub(crate) mod slices;
mod tasks;
pub(crate) mod waits;

use crate::batch::Named;
use crate::cell::{Cell, ColumnDef, RowSink};
use analysis::timeline_store::EndReason;
use analysis::{Report, Window};

/// Version of the tables' layout (`schemas/export.md`): a column removed, renamed or
/// retyped raises it; added columns do not.
pub(crate) const SCHEMA_VERSION: u32 = 2;

/// The columns that name a task in the interval tables: pid, tgid, comm.
fn task_columns() -> Vec<ColumnDef> {
    use crate::cell::Kind;
    vec![
        ColumnDef::new("pid", Kind::Int, "pid", "thread id"),
        ColumnDef::new(
            "tgid",
            Kind::Int,
            "pid",
            "process id; null when the trace does not say",
        ),
        ColumnDef::new(
            "comm",
            Kind::Text,
            "",
            "the task's name (its last one when the row was written)",
        ),
    ]
}

/// The cells of [`task_columns`].
pub(crate) fn task_cells(task: &Named) -> [Cell<'_>; 3] {
    [
        Cell::int(task.pid),
        Cell::opt_int(task.tgid),
        Cell::text(&*task.comm),
    ]
}

/// The (tgid, comm) cells of a task, null when the pid names none.
fn who(task: Option<&Named>) -> [Cell<'_>; 2] {
    match task {
        Some(t) => [Cell::opt_int(t.tgid), Cell::text(&*t.comm)],
        None => [Cell::Null, Cell::Null],
    }
}

/// The tables, in the order they are written (`runs` is written last: see `dataset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Tasks,
    Cpus,
    Slices,
    Waits,
    Intervals,
    Series,
    Preemptions,
    Runs,
}

impl Table {
    pub const ALL: [Table; 8] = [
        Table::Runs,
        Table::Tasks,
        Table::Cpus,
        Table::Slices,
        Table::Waits,
        Table::Intervals,
        Table::Series,
        Table::Preemptions,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Table::Runs => "runs",
            Table::Tasks => "tasks",
            Table::Cpus => "cpus",
            Table::Slices => "slices",
            Table::Waits => "waits",
            Table::Intervals => "intervals",
            Table::Series => "series",
            Table::Preemptions => "preemptions",
        }
    }

    pub fn parse(name: &str) -> Result<Table, String> {
        Table::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
                format!("`{name}` is not a table (tables: {})", names.join(", "))
            })
    }

    /// One line that says what a row is (for `schemas/export.md`).
    #[cfg(test)]
    pub(crate) fn doc(self) -> &'static str {
        match self {
            Table::Runs => runs::DOC,
            Table::Tasks => tasks::DOC,
            Table::Cpus => cpus::DOC,
            Table::Slices => slices::DOC,
            Table::Waits => waits::DOC,
            Table::Intervals => intervals::DOC,
            Table::Series => series::DOC,
            Table::Preemptions => preemptions::DOC,
        }
    }

    pub fn columns(self) -> Vec<ColumnDef> {
        match self {
            Table::Runs => runs::columns(),
            Table::Tasks => tasks::columns(),
            Table::Cpus => cpus::columns(),
            Table::Slices => slices::columns(),
            Table::Waits => waits::columns(),
            Table::Intervals => intervals::columns(),
            Table::Series => series::columns(),
            Table::Preemptions => preemptions::columns(),
        }
    }

    /// Whether the drain writes it while the trace is read (else [`Table::rows`] after).
    pub(crate) fn drained(self) -> bool {
        matches!(
            self,
            Table::Slices | Table::Waits | Table::Intervals | Table::Preemptions
        )
    }

    /// Streams the rows of a table made from the report to `sink`. `runs` has no rows here
    /// (its row needs the run's label: [`runs::facts`]), nor have the drained tables.
    pub(crate) fn rows(self, report: &Report, sink: &mut dyn RowSink) -> std::io::Result<()> {
        match self {
            Table::Tasks => tasks::rows(report, sink),
            Table::Cpus => cpus::rows(report, sink),
            Table::Series => series::rows(report, sink),
            _ => Ok(()),
        }
    }
}

/// What ended an interval, as the `slices` and `intervals` tables name it.
pub(crate) fn end_reason(end: EndReason) -> &'static str {
    match end {
        EndReason::SwitchedIn => "switched_in",
        EndReason::SwitchedOut(r) => match r {
            analysis::SwitchReason::Block => "block",
            analysis::SwitchReason::WakeupPreempt => "wakeup_preempt",
            analysis::SwitchReason::Preempt => "preempt",
            analysis::SwitchReason::Exit => "exit",
        },
        EndReason::Woken => "woken",
        EndReason::LostTrack => "lost_track",
        EndReason::TraceEnd => "trace_end",
    }
}

/// Whether `[start, start + dur)` overlaps the report's window (the `--time` range): the
/// interval tables keep whole intervals, as the timeline store does, for those.
pub(crate) fn in_window(w: Window, start_ns: u64, dur_ns: u64) -> bool {
    start_ns <= w.end_ns && start_ns + dur_ns >= w.start_ns
}
