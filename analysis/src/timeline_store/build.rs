//! The store's bookkeeping during the pass: a log for each new task while the store is on,
//! the periodic size check against the limit, and the [`Timeline`] built at the end. The
//! engine calls it (from `engine/concerns.rs` and `engine/assemble.rs`); it does not import
//! the engine.

use super::{
    pyramid::Pyramid, TaskTimeline, Timeline, TimelineError, TimelineOptions, CHECK_EVERY,
};
use crate::interval::TaskLog;
use crate::timeline::Task;
use crate::timeline_store::ThreadState;
use crate::window::Window;

/// The analyzer's store bookkeeping.
#[derive(Debug)]
pub(crate) struct StoreState {
    options: TimelineOptions,
    /// Events until the next size check (or drain).
    pub countdown: u32,
    /// Set when the limit was exceeded: the logs are gone, new tasks get none.
    failed: Option<TimelineError>,
}

impl StoreState {
    pub(crate) fn new(options: TimelineOptions) -> StoreState {
        StoreState {
            options,
            countdown: CHECK_EVERY,
            failed: None,
        }
    }

    /// Past the limit (`tasks`' logs together), drops every log and remembers why.
    pub(crate) fn enforce_limit(&mut self, tasks: &mut [Task], now: u64) {
        if self.failed.is_some() {
            return;
        }
        let bytes: u64 = tasks
            .iter()
            .filter_map(|t| t.log.as_ref())
            .map(|l| l.bytes())
            .sum();
        if bytes <= self.options.mem_limit_bytes {
            return;
        }
        let intervals = tasks
            .iter_mut()
            .filter_map(|t| t.log.take())
            .map(|l| l.intervals.len() as u64)
            .sum();
        self.failed = Some(TimelineError::MemoryLimit {
            limit_mib: self.options.mem_limit_bytes >> 20,
            intervals,
            at_s: now as f64 / 1e9,
        });
    }

    /// Whether new tasks get a log.
    #[inline]
    pub(crate) fn recording(&self) -> bool {
        self.failed.is_none()
    }

    /// A log for a new task when the store records.
    pub(crate) fn new_log(&self) -> Option<Box<TaskLog>> {
        self.recording().then(Box::default)
    }

    /// The finished timeline (after every task's last interval was closed), taking the
    /// logs out of `tasks`.
    pub(crate) fn finish(
        mut self,
        tasks: &mut [Task],
        now: u64,
        window: Window,
    ) -> Result<Timeline, TimelineError> {
        // The last check: the limit holds for the finished store too.
        self.enforce_limit(tasks, now);
        if let Some(e) = self.failed {
            return Err(e);
        }
        let tasks: Vec<TaskTimeline> = tasks
            .iter_mut()
            .filter_map(|t| {
                let log = t.log.take()?;
                (!log.intervals.is_empty()).then(|| TaskTimeline {
                    pid: t.pid,
                    tgid: (t.tgid >= 0).then_some(t.tgid),
                    comm: t.comm.to_string_lossy(),
                    intervals: log.intervals,
                    end_ns: log.end_ns,
                })
            })
            .collect();
        let slices = cpu_slices(&tasks);
        let pyramids = (0..slices.len())
            .map(|cpu| Pyramid::build(cpu as u32, &tasks, &slices[cpu], window))
            .collect();
        Ok(Timeline {
            window,
            tasks,
            slices,
            pyramids,
        })
    }
}

/// Per CPU, the running intervals of every task in time order.
fn cpu_slices(tasks: &[TaskTimeline]) -> Vec<Vec<(u32, u32)>> {
    let mut per_cpu: Vec<Vec<(u64, u32, u32)>> = Vec::new();
    for (t, task) in tasks.iter().enumerate() {
        for (i, iv) in task.intervals.iter().enumerate() {
            if iv.state() != Some(ThreadState::Running) {
                continue;
            }
            let Some(cpu) = iv.cpu() else { continue };
            let c = cpu as usize;
            if per_cpu.len() <= c {
                per_cpu.resize_with(c + 1, Vec::new);
            }
            per_cpu[c].push((iv.start_ns, t as u32, i as u32));
        }
    }
    per_cpu
        .into_iter()
        .map(|mut list| {
            list.sort_unstable();
            list.into_iter().map(|(_, t, i)| (t, i)).collect()
        })
        .collect()
}
