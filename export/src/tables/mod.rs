//! The tables of an export, one module each: what columns a table has
//! ([`Table::columns`]) and its rows from one analysed trace ([`Table::rows`]), streamed
//! to a [`RowSink`] (a writer) one at a time, so no table is built in memory.

mod cpus;
mod intervals;
mod preemptions;
pub(crate) mod runs;
mod series;
mod slices;
mod tasks;
mod waits;

use crate::cell::{Cell, ColumnDef};
use analysis::records::EventRecords;
use analysis::timeline_store::{EndReason, Timeline};
use analysis::Report;
use std::collections::HashMap;

/// Version of the tables' layout (`schemas/export.md`): a column removed, renamed or
/// retyped raises it; added columns do not.
pub const SCHEMA_VERSION: u32 = 1;

/// Where rows go (a writer). An error stops the table.
pub trait RowSink {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()>;
}

/// Everything one trace's tables are made of.
pub struct Input<'a> {
    pub report: &'a Report,
    pub timeline: &'a Timeline,
    pub records: &'a EventRecords,
    /// pid → (tgid, comm) for the records, which name tasks by pid only.
    pub names: HashMap<i32, (Option<i32>, &'a str)>,
}

impl<'a> Input<'a> {
    pub fn new(report: &'a Report, timeline: &'a Timeline, records: &'a EventRecords) -> Self {
        // A pid reused by a later task names the last one (the task tables keep each life).
        let names = timeline
            .tasks()
            .iter()
            .map(|t| (t.pid, (t.tgid, t.comm.as_str())))
            .collect();
        Input {
            report,
            timeline,
            records,
            names,
        }
    }

    /// The (tgid, comm) cells of `pid`.
    fn who(&self, pid: i32) -> [Cell; 2] {
        match self.names.get(&pid) {
            Some((tgid, comm)) => [Cell::opt_int(*tgid), Cell::text(*comm)],
            None => [Cell::Null, Cell::Null],
        }
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

    /// One line that says what a row is.
    pub fn doc(self) -> &'static str {
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

    /// Streams the table's rows of `input` to `sink`. `runs` has no rows here (its row
    /// needs the run's label: [`runs::facts`]).
    pub fn rows(self, input: &Input, sink: &mut dyn RowSink) -> std::io::Result<()> {
        match self {
            Table::Runs => Ok(()),
            Table::Tasks => tasks::rows(input, sink),
            Table::Cpus => cpus::rows(input, sink),
            Table::Slices => slices::rows(input, sink),
            Table::Waits => waits::rows(input, sink),
            Table::Intervals => intervals::rows(input, sink),
            Table::Series => series::rows(input, sink),
            Table::Preemptions => preemptions::rows(input, sink),
        }
    }
}

/// What ended an interval, as the `slices` and `intervals` tables name it.
fn end_reason(end: EndReason) -> &'static str {
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
fn in_window(report: &Report, start_ns: u64, dur_ns: u64) -> bool {
    let w = report.window;
    start_ns <= w.end_ns && start_ns + dur_ns >= w.start_ns
}
