//! The timeline store (opt-in, `Config::timeline`): every closed interval of every task
//! — running, runnable after a wakeup or a preemption, sleeping, blocked, unknown — with
//! its CPU, start, duration, what ended it and the waker where known (Perfetto's
//! `thread_state` shape), plus a per-CPU summary pyramid for zoomed-out views.
//!
//! Recording costs one untaken branch per task transition when the store is off (the
//! task's `log` is None). When it is on, each interval takes 3–5 bytes in its task's log
//! ([`crate::interval`]: durations and only what changes, as varints); the analyzer checks
//! the total against `mem_limit_bytes` every [`CHECK_EVERY`] events and, past it, drops
//! the store and says so at the end ([`TimelineError`]) rather than run the machine out of
//! memory. Nothing is indexed per CPU: a CPU's slices are the running intervals of its
//! tasks, merged in time order when asked for ([`cpu_slices`]).
//!
//! Intervals are whole, not clipped to `--time` or `-C`: a view clips what it shows.

mod build;
mod cpu_slices;
mod pyramid;

pub use crate::interval::{EndReason, IntervalView, ThreadState};
pub(crate) use build::StoreState;
pub use pyramid::BinSummary;

use crate::interval::{Cursor, TaskLog};
use crate::window::Window;
use pyramid::Pyramid;
use std::sync::OnceLock;

/// Default `--timeline-mem`: 512 MiB.
pub const DEFAULT_MEM_LIMIT: u64 = 512 << 20;
/// Events between two checks of the store's size against its limit.
pub(crate) const CHECK_EVERY: u32 = 1 << 16;

/// How the store is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineOptions {
    /// Heap bytes the intervals may take (`--timeline-mem`).
    pub mem_limit_bytes: u64,
}

impl Default for TimelineOptions {
    fn default() -> TimelineOptions {
        TimelineOptions {
            mem_limit_bytes: DEFAULT_MEM_LIMIT,
        }
    }
}

/// Why there is no timeline.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TimelineError {
    #[error(
        "the timeline store needed more than its limit of {limit_mib} MiB ({intervals} intervals \
         by trace time {at_s:.6} s) and was dropped; raise --timeline-mem or narrow the trace \
         with --time (the report itself is complete)"
    )]
    MemoryLimit {
        limit_mib: u64,
        intervals: u64,
        /// Trace time (s) of the event at which the limit was found exceeded.
        at_s: f64,
    },
}

/// One task (one pid lifetime) and its intervals.
#[derive(Debug, Clone)]
pub struct TaskTimeline {
    pub pid: i32,
    pub tgid: Option<i32>,
    /// The last name seen.
    pub comm: String,
    log: TaskLog,
}

impl TaskTimeline {
    /// Number of stored intervals (dead gaps between a pid's exit and its reuse included).
    pub fn len(&self) -> usize {
        self.log.len()
    }

    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    /// Every interval in time order.
    pub fn intervals(&self) -> impl Iterator<Item = IntervalView> + '_ {
        self.log.cursor()
    }

    /// The intervals overlapping `[start_ns, end_ns)` (and those of no length at
    /// `start_ns`), in time order: O(log n + k).
    pub fn intervals_in(
        &self,
        start_ns: u64,
        end_ns: u64,
    ) -> impl Iterator<Item = IntervalView> + '_ {
        within(self.log.cursor_near(start_ns), start_ns, end_ns)
    }

    /// Whether the task's intervals reach into `[start_ns, end_ns)` at all.
    pub(crate) fn spans(&self, start_ns: u64, end_ns: u64) -> bool {
        !self.log.is_empty() && self.log.start_ns() < end_ns && self.log.end_ns() >= start_ns
    }
}

/// The intervals of `cursor` (read from near `start_ns`) overlapping `[start_ns, end_ns)`.
fn within(
    cursor: Cursor<'_>,
    start_ns: u64,
    end_ns: u64,
) -> impl Iterator<Item = IntervalView> + '_ {
    cursor
        .take_while(move |v| v.start_ns < end_ns)
        .filter(move |v| v.end_ns() > start_ns || v.start_ns >= start_ns)
}

/// The timeline of a whole trace.
#[derive(Debug, Clone)]
pub struct Timeline {
    window: Window,
    tasks: Vec<TaskTimeline>,
    /// Per CPU number up to the last that ran a task: its summary, none if nothing ran or
    /// waited there. Built on first use: `analyze --timeline` and the series never need
    /// it, and its build reads every interval (a third of a second on 28 M intervals).
    pyramids: OnceLock<Vec<Option<Pyramid>>>,
    cpu_count: u32,
}

impl Timeline {
    /// The report's window (first to last event, clipped to `--time`).
    pub fn window(&self) -> Window {
        self.window
    }

    /// One entry per pid lifetime, in order of first sight.
    pub fn tasks(&self) -> &[TaskTimeline] {
        &self.tasks
    }

    /// CPUs seen running a task (numbers below it may be idle or offline).
    pub fn cpu_count(&self) -> u32 {
        self.cpu_count
    }

    /// The per-CPU summaries, built now if no view asked for them yet (a loader calls this
    /// off the UI thread, so that the first zoomed-out frame does not wait for the build).
    pub fn prepare_summaries(&self) {
        self.pyramids();
    }

    fn pyramids(&self) -> &[Option<Pyramid>] {
        self.pyramids
            .get_or_init(|| Pyramid::build_all(&self.tasks, self.window, self.cpu_count))
    }

    /// The running intervals on `cpu` overlapping `[start_ns, end_ns)`, in time order (ties
    /// by task), with the index of their task in [`Timeline::tasks`]: a merge of the tasks'
    /// intervals, O(tasks × log n + k × log tasks).
    pub fn cpu_slices(
        &self,
        cpu: u32,
        start_ns: u64,
        end_ns: u64,
    ) -> impl Iterator<Item = (usize, IntervalView)> + '_ {
        cpu_slices::CpuSlices::new(&self.tasks, cpu, start_ns, end_ns)
    }

    /// The tasks (indexes into [`Timeline::tasks`]) that ran on `cpu` for some time within
    /// `[start_ns, end_ns)`, in index order: cheaper than [`Timeline::cpu_slices`] when only
    /// who ran matters (each task is read up to its first such slice).
    pub fn tasks_run_on(
        &self,
        cpu: u32,
        start_ns: u64,
        end_ns: u64,
    ) -> impl Iterator<Item = usize> + '_ {
        self.tasks.iter().enumerate().filter_map(move |(i, task)| {
            let ran = task.spans(start_ns, end_ns)
                && cpu_slices::running_on(task.intervals_in(start_ns, end_ns), cpu, start_ns)
                    .any(|v| v.dur_ns > 0);
            ran.then_some(i)
        })
    }

    /// `columns` equal bins over `[start_ns, end_ns)` on `cpu`: busy time, mean queue depth
    /// and the task that ran most, from the summary pyramid. O(columns) whatever the span;
    /// bins finer than the pyramid's finest level share its values pro rata.
    pub fn cpu_summary(
        &self,
        cpu: u32,
        start_ns: u64,
        end_ns: u64,
        columns: usize,
    ) -> Vec<BinSummary> {
        match self.pyramids().get(cpu as usize) {
            Some(Some(p)) => p.summary(start_ns, end_ns, columns),
            _ => pyramid::empty(start_ns, end_ns, columns),
        }
    }

    /// Heap bytes of the stored intervals and (once built) summaries.
    pub fn memory_bytes(&self) -> u64 {
        let logs: u64 = self.tasks.iter().map(|t| t.log.bytes()).sum();
        let built = self.pyramids.get().map_or(&[][..], |p| &p[..]);
        let pyramids: u64 = built.iter().flatten().map(Pyramid::bytes).sum();
        logs + pyramids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::SwitchReason::{Block, WakeupPreempt};
    use crate::{Analyzer, Config};
    use ingest::PrevState::{self, Preempted};
    use ingest::{Comm, Event, EventKind, EventSink, Ingested, TaskRef};
    use EndReason::{SwitchedIn, SwitchedOut, TraceEnd, Woken};
    use ThreadState::*;

    fn task(pid: i32) -> TaskRef {
        TaskRef {
            pid,
            comm: Comm::from(format!("t{pid}").as_str()),
            prio: 120,
        }
    }

    fn switch(ts: u64, prev: i32, state: PrevState, next: i32) -> Event {
        let kind = EventKind::Switch {
            prev: task(prev),
            prev_state: state,
            next: task(next),
        };
        Event {
            ts,
            cpu: 0,
            current_pid: prev,
            kind,
        }
    }

    fn waking(ts: u64, cpu: u32, waker: i32, pid: i32) -> Event {
        let kind = EventKind::Waking {
            task: task(pid),
            target_cpu: 0,
        };
        Event {
            ts,
            cpu,
            current_pid: waker,
            kind,
        }
    }

    /// Task 10 is woken by 5 (on cpu1) onto cpu0, runs, sleeps, is woken from idle, is
    /// wakeup-preempted by 20 (woken by 10), waits, and runs to the end; 20 blocks.
    fn stream() -> Vec<Event> {
        vec![
            waking(100, 1, 5, 10),
            switch(150, 0, Preempted, 10),
            switch(400, 10, PrevState::Sleeping, 0),
            waking(500, 0, 0, 10),
            switch(520, 0, Preempted, 10),
            waking(600, 0, 10, 20),
            switch(610, 10, Preempted, 20),
            switch(700, 20, PrevState::Blocked, 10),
            Event {
                ts: 1000,
                cpu: 1,
                current_pid: -1,
                kind: EventKind::Other,
            },
        ]
    }

    fn run(
        events: &[Event],
        options: Option<TimelineOptions>,
    ) -> (crate::Report, Option<Result<Timeline, TimelineError>>) {
        let mut analyzer = Analyzer::new(Config {
            timeline: options,
            ..Default::default()
        });
        for e in events {
            analyzer.event(e);
        }
        analyzer.finish_with_timeline(&Ingested::default(), "hand-made")
    }

    type Row = (u64, u64, ThreadState, Option<u32>, EndReason, Option<i32>);

    fn rows(t: &TaskTimeline) -> Vec<Row> {
        t.intervals()
            .map(|v| (v.start_ns, v.dur_ns, v.state, v.cpu, v.end, v.waker_pid))
            .collect()
    }

    #[test]
    fn every_interval_with_its_cpu_end_and_waker() {
        let (report, timeline) = run(&stream(), Some(TimelineOptions::default()));
        let tl = timeline.unwrap().unwrap();
        assert_eq!((tl.window().start_ns, tl.window().end_ns), (100, 1000));
        let pids: Vec<i32> = tl.tasks().iter().map(|t| t.pid).collect();
        assert_eq!(pids, [10, 20]);
        assert_eq!(
            rows(&tl.tasks()[0]),
            [
                (100, 50, RunnableWakeup, Some(0), SwitchedIn, Some(5)),
                (150, 250, Running, Some(0), SwitchedOut(Block), None),
                (400, 100, Sleeping, None, Woken, None),
                (500, 20, RunnableWakeup, Some(0), SwitchedIn, Some(0)),
                (520, 90, Running, Some(0), SwitchedOut(WakeupPreempt), None),
                (610, 90, RunnablePreempted, Some(0), SwitchedIn, None),
                (700, 300, Running, Some(0), TraceEnd, None),
            ]
        );
        assert_eq!(
            rows(&tl.tasks()[1]),
            [
                (600, 10, RunnableWakeup, Some(0), SwitchedIn, Some(10)),
                (610, 90, Running, Some(0), SwitchedOut(Block), None),
                (700, 300, Blocked, None, TraceEnd, None),
            ]
        );
        // The report agrees: runtime 250 + 90 + 300 and 90; busy 730.
        let runtime: Vec<u64> = report.tasks.iter().map(|t| t.runtime_ns).collect();
        assert_eq!(runtime, [640, 90]);
        assert_eq!(report.cpus[0].busy_ns, 730);

        let on_cpu0: Vec<(usize, u64)> = tl
            .cpu_slices(0, 0, u64::MAX)
            .map(|(t, v)| (t, v.start_ns))
            .collect();
        assert_eq!(on_cpu0, [(0, 150), (0, 520), (1, 610), (0, 700)]);
        // [150, 400) ends at 400: not in [400, 611).
        let some: Vec<u64> = tl
            .cpu_slices(0, 400, 611)
            .map(|(_, v)| v.start_ns)
            .collect();
        assert_eq!(some, [520, 610]);
        assert_eq!(tl.cpu_slices(1, 0, u64::MAX).count(), 0);
        let around: Vec<ThreadState> = tl.tasks()[0]
            .intervals_in(450, 515)
            .map(|v| v.state)
            .collect();
        assert_eq!(around, [Sleeping, RunnableWakeup]);
    }

    #[test]
    fn the_pyramid_keeps_busy_time_queue_and_top_task_at_any_zoom() {
        let (_, timeline) = run(&stream(), Some(TimelineOptions::default()));
        let tl = timeline.unwrap().unwrap();
        // 1 ns bins over the 900 ns window: every column exact.
        let fine = tl.cpu_summary(0, 100, 1000, 900);
        assert_eq!(fine.iter().map(|b| b.busy_ns).sum::<u64>(), 730);
        assert_eq!(fine[(650 - 100) as usize].top_task, Some(1));
        assert_eq!(fine[(200 - 100) as usize].top_task, Some(0));
        assert_eq!(fine[(450 - 100) as usize].top_task, None);
        // Queue: 10 waits 100..150, 500..520, 610..700 and 20 waits 600..610 on cpu0: 170 ns.
        let queued: f64 = fine
            .iter()
            .map(|b| b.queue_depth_mean * b.len_ns as f64)
            .sum();
        assert!((queued - 170.0).abs() < 1e-9, "{queued}");
        // Coarser views read coarser levels, pro rata at their edges: the totals stay.
        for columns in [1, 3, 7, 64] {
            let bins = tl.cpu_summary(0, 100, 1000, columns);
            assert_eq!(bins.len(), columns);
            let busy: u64 = bins.iter().map(|b| b.busy_ns).sum();
            assert!(busy.abs_diff(730) <= columns as u64, "{columns}: {busy}");
        }
        // 100..400 is task 10's; the whole window too (640 of 730 ns).
        assert_eq!(tl.cpu_summary(0, 100, 400, 1)[0].top_task, Some(0));
        assert_eq!(tl.cpu_summary(0, 100, 1000, 1)[0].top_task, Some(0));
        assert!(tl
            .cpu_summary(5, 0, 10, 2)
            .iter()
            .all(|b| b.busy_ns == 0 && b.top_task.is_none()));
    }

    #[test]
    fn off_by_default_and_dropped_past_its_limit() {
        assert!(run(&stream(), None).1.is_none());
        let (report, timeline) = run(
            &stream(),
            Some(TimelineOptions {
                mem_limit_bytes: 100,
            }),
        );
        let err = timeline.unwrap().unwrap_err();
        assert_eq!(
            err,
            TimelineError::MemoryLimit {
                limit_mib: 0,
                intervals: 10,
                at_s: 1e-6
            }
        );
        assert!(err.to_string().contains("raise --timeline-mem"), "{err}");
        // The report does not depend on the store.
        assert_eq!(report.cpus[0].busy_ns, 730);
    }
}
