//! The drain's chunks as owned batches, for the table writers on their own threads.
//!
//! Tasks are named by id ([`NameId`]): the analysis hands each name (pid, tgid, comm) over
//! once, the analysing thread ([`crate::drain::DrainedTables`]) keeps them in one table, and each batch carries the names its writer
//! has not been sent yet ([`Batch::names`]), which the writer adds to its own copy of the
//! table before it formats the batch's rows. A row thus costs a table index on the writer
//! thread, not a lookup and a copy of a name on the analysing thread.

use analysis::drain::NameId;
use analysis::records::{PreemptionRecord, WaitRecord};
use analysis::timeline_store::IntervalView;
use analysis::Window;
use std::sync::Arc;

/// A task as its rows name it.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub(crate) pid: i32,
    /// None when the trace has not said.
    pub(crate) tgid: Option<i32>,
    /// Its last name when the row was taken.
    pub(crate) comm: Arc<str>,
}

/// Rows for one writer and the names they need that it was not sent before.
#[derive(Debug)]
pub(crate) struct Batch<T> {
    pub(crate) names: Vec<Named>,
    pub(crate) rows: T,
}

/// One drain's intervals of one task, as the analysis handed them over (not copied).
#[derive(Debug)]
pub(crate) struct Segment {
    pub(crate) task: NameId,
    pub(crate) views: Vec<IntervalView>,
    /// The report's window as far as known when drained: the rows are the views that
    /// overlap it ([`crate::tables::in_window`]).
    pub(crate) window: Window,
}

impl Segment {
    /// The views that are rows, as the runs of consecutive ones (a task's views tile its
    /// life in time order: all of them in one run but at the window's edges).
    pub(crate) fn runs_of_rows(&self) -> impl Iterator<Item = &[IntervalView]> {
        let window = self.window;
        self.views
            .split(move |v| !crate::tables::in_window(window, v.start_ns, v.dur_ns))
            .filter(|run| !run.is_empty())
    }
}

/// Intervals of many tasks, a segment a task.
pub(crate) type IntervalRows = Vec<Segment>;

/// Waits, each with the name of the task its pid named when drained (None: no such task).
pub(crate) type WaitRows = (Vec<WaitRecord>, Vec<Option<NameId>>);

/// Wakeup preemptions with the names of their waker, wakee and victim.
pub(crate) type PreemptionRows = (Vec<PreemptionRecord>, Vec<[Option<NameId>; 3]>);

/// The name of `id` in a writer's table (the analysing thread sends every name before its first use).
pub(crate) fn named(names: &[Named], id: NameId) -> &Named {
    &names[id as usize]
}
