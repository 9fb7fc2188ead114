//! The store's bookkeeping during the pass: a log for each new task while the store is on,
//! the periodic size check against the limit, and the [`Timeline`] built at the end. The
//! engine calls it (from `engine/concerns.rs` and `engine/assemble.rs`); it does not import
//! the engine.

use super::{TaskTimeline, Timeline, TimelineError, TimelineOptions, CHECK_EVERY};
use crate::interval::TaskLog;
use crate::timeline::Task;
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
            .map(|l| l.len() as u64)
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

    /// A log for a new task when the store records (`drained`: for a drain, which takes
    /// its intervals every few thousand events, so they are kept unencoded; `summed`: kept,
    /// and summed for a series in the pass).
    pub(crate) fn new_log(&self, drained: bool, summed: bool) -> Option<Box<TaskLog>> {
        let log = || match (drained, summed) {
            (true, _) => TaskLog::drained(),
            (false, true) => TaskLog::summed(),
            (false, false) => TaskLog::default(),
        };
        self.recording().then(|| Box::new(log()))
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
                let mut log = *t.log.take()?;
                log.shrink();
                (!log.is_empty()).then(|| TaskTimeline {
                    pid: t.pid,
                    tgid: (t.tgid >= 0).then_some(t.tgid),
                    comm: t.comm.to_string_lossy(),
                    log,
                })
            })
            .collect();
        let cpu_count = tasks.iter().map(|t| t.log.cpus_run()).max().unwrap_or(0);
        Ok(Timeline {
            window,
            tasks,
            pyramids: Default::default(),
            cpu_count,
        })
    }
}
