//! The drain's chunks as owned batches, for the table writers on their own threads: the
//! analysis hands over borrowed slices and a lookup of the task a pid names *now*, so
//! what the rows need of them (a task's tgid and name at that moment) is copied here.
//!
//! A task's name is shared by the rows that carry it ([`Names`]): it is copied when it
//! changes, not once per row.

use analysis::drain::TaskInfo;
use analysis::records::{PreemptionRecord, WaitRecord};
use analysis::timeline_store::IntervalView;
use std::collections::HashMap;
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

/// Intervals of many tasks (only those that overlap the report's window).
#[derive(Debug, Default)]
pub(crate) struct IntervalBatch {
    pub(crate) tasks: Vec<Named>,
    /// Each view with the index of its task in `tasks`.
    pub(crate) views: Vec<(u32, IntervalView)>,
}

/// Waits, each with the task its pid named when it was drained (None: no such task).
pub(crate) type WaitBatch = Vec<(WaitRecord, Option<Named>)>;

/// Wakeup preemptions with the names of their waker, wakee and victim.
pub(crate) type PreemptionBatch = Vec<(PreemptionRecord, [Option<Arc<str>>; 3])>;

/// The last name seen of each pid, shared by every row that carries it.
#[derive(Debug, Default)]
pub(crate) struct Names(HashMap<i32, Arc<str>>);

impl Names {
    /// `comm` of `pid`, the shared copy when it is the name seen last.
    pub(crate) fn comm(&mut self, pid: i32, comm: &str) -> Arc<str> {
        match self.0.get(&pid) {
            Some(known) if **known == *comm => known.clone(),
            _ => {
                let fresh: Arc<str> = Arc::from(comm);
                self.0.insert(pid, fresh.clone());
                fresh
            }
        }
    }

    pub(crate) fn named(&mut self, task: &TaskInfo) -> Named {
        Named {
            pid: task.pid,
            tgid: task.tgid,
            comm: self.comm(task.pid, &task.comm),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_shared_until_it_changes() {
        let mut names = Names::default();
        let a = names.comm(7, "bash");
        let b = names.comm(7, "bash");
        assert!(Arc::ptr_eq(&a, &b));
        let c = names.comm(7, "make");
        assert_eq!(&*c, "make");
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(&*names.comm(8, "bash"), "bash");
        assert!(
            !Arc::ptr_eq(&names.comm(8, "bash"), &a),
            "another pid, its own copy"
        );
    }
}
