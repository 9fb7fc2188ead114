//! A CPU's running slices in time order, merged from its tasks' logs as they are read.
//!
//! The store keeps no per-CPU index: one (task, interval) pair per slice would cost 8 bytes
//! a slice on top of the 3–5 of the interval itself, for a query that only the TUI's
//! zoomed-in views and the pyramid's build make. A merge of the tasks' cursors (a heap of
//! each task's next slice) gives the same order at O(log tasks) a slice.

use super::{within, TaskTimeline};
use crate::interval::{IntervalView, ThreadState};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The running intervals on `cpu` among `intervals`, those ending after `start_ns`.
pub(super) fn running_on(
    intervals: impl Iterator<Item = IntervalView>,
    cpu: u32,
    start_ns: u64,
) -> impl Iterator<Item = IntervalView> {
    intervals.filter(move |v| {
        v.state == ThreadState::Running && v.cpu == Some(cpu) && v.end_ns() > start_ns
    })
}

type Lane<'a> = Box<dyn Iterator<Item = IntervalView> + 'a>;

/// The merge: each task with a slice to give has a lane; the heap holds each lane's next
/// slice by (start, task).
pub(super) struct CpuSlices<'a> {
    lanes: Vec<Lane<'a>>,
    next: Vec<Option<IntervalView>>,
    heap: BinaryHeap<Reverse<(u64, usize, usize)>>,
}

impl<'a> CpuSlices<'a> {
    pub(super) fn new(tasks: &'a [TaskTimeline], cpu: u32, start_ns: u64, end_ns: u64) -> Self {
        let mut merge = CpuSlices {
            lanes: Vec::new(),
            next: Vec::new(),
            heap: BinaryHeap::new(),
        };
        for (t, task) in tasks.iter().enumerate() {
            if !task.spans(start_ns, end_ns) {
                continue;
            }
            let cursor = task.log.cursor_near(start_ns);
            let mut lane: Lane<'a> =
                Box::new(running_on(within(cursor, start_ns, end_ns), cpu, start_ns));
            if let Some(first) = lane.next() {
                let l = merge.lanes.len();
                merge.heap.push(Reverse((first.start_ns, t, l)));
                merge.lanes.push(lane);
                merge.next.push(Some(first));
            }
        }
        merge
    }
}

impl Iterator for CpuSlices<'_> {
    type Item = (usize, IntervalView);

    fn next(&mut self) -> Option<(usize, IntervalView)> {
        let Reverse((_, t, l)) = self.heap.pop()?;
        let slice = self.next[l]
            .take()
            .expect("a lane in the heap has its next slice");
        if let Some(after) = self.lanes[l].next() {
            self.heap.push(Reverse((after.start_ns, t, l)));
            self.next[l] = Some(after);
        }
        Some((t, slice))
    }
}
