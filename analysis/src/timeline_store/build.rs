//! The store's side of the analyzer: a log for each new task while the store is on, the
//! periodic size check against the limit, and the [`Timeline`] built at the end.

use super::{
    interval::TaskLog, pyramid::Pyramid, TaskTimeline, Timeline, TimelineError, TimelineOptions,
    CHECK_EVERY,
};
use crate::analyzer::Analyzer;
use crate::report::Window;
use crate::timeline::Task;
use crate::timeline_store::ThreadState;

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
    pub fn new(options: TimelineOptions) -> StoreState {
        StoreState {
            options,
            countdown: CHECK_EVERY,
            failed: None,
        }
    }

    /// Past the limit (`tasks`' logs together), drops every log and remembers why.
    fn enforce_limit(&mut self, tasks: &mut [Task], now: u64) {
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
    pub fn recording(&self) -> bool {
        self.failed.is_none()
    }
}

impl Analyzer {
    /// A log for a new task when the store records.
    pub(crate) fn new_log(&self) -> Option<Box<TaskLog>> {
        self.store
            .as_ref()
            .filter(|s| s.recording())
            .map(|_| Box::default())
    }

    /// Called for every event when the store is on: every [`CHECK_EVERY`] events, the
    /// intervals' heap size against the limit; past it, every log is dropped.
    pub(crate) fn check_store(&mut self) {
        let Some(store) = &mut self.store else {
            return;
        };
        store.countdown -= 1;
        if store.countdown > 0 || store.failed.is_some() {
            return;
        }
        store.countdown = self.drain.as_ref().map_or(CHECK_EVERY, |d| d.every);
        if self.drain.is_none() {
            store.enforce_limit(&mut self.tasks, self.now);
            return;
        }
        // Drained, the store holds a few chunks at most: no limit to check.
        let mut tasks = std::mem::take(&mut self.tasks);
        self.drain_now(&mut tasks, false);
        self.tasks = tasks;
    }

    /// The finished timeline (after every task's last interval was closed), taking the
    /// logs out of `tasks`. None when the store was not asked for.
    pub(crate) fn take_timeline(
        &mut self,
        tasks: &mut [Task],
        window: Window,
    ) -> Option<Result<Timeline, TimelineError>> {
        if self.draining() {
            // Every interval goes to the drain: no store to give back.
            self.store = None;
            self.drain_now(tasks, true);
            return None;
        }
        let mut store = self.store.take()?;
        // The last check: the limit holds for the finished store too.
        store.enforce_limit(tasks, self.now);
        if let Some(e) = store.failed {
            return Some(Err(e));
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
        Some(Ok(Timeline {
            window,
            tasks,
            slices,
            pyramids,
        }))
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

impl Analyzer {
    /// The `--series` of the report, built from the store (which is then given back only
    /// when `Config::timeline` asked for it) and the fairness windows it recorded.
    pub(crate) fn series(
        &mut self,
        timeline: Option<Result<Timeline, TimelineError>>,
        tasks: &[Task],
        window: Window,
        cpus: &[u32],
    ) -> (
        Option<crate::series::Series>,
        Option<Result<Timeline, TimelineError>>,
    ) {
        let Some(counts) = self.series.take() else {
            return (None, timeline);
        };
        let asked = self.config.timeline.is_some();
        let sums = match (&timeline, self.drain.take()) {
            (_, Some(drained)) => drained.sums.unwrap_or_else(|| {
                crate::series_sums::IntervalSums::new(window.start_ns, counts.window_ns)
            }),
            (Some(Ok(store)), None) => {
                crate::series::sums_of(store, window, counts.window_ns, &self.scope)
            }
            // Past its memory limit the series cannot be built: say why (as for --timeline).
            _ => return (None, timeline),
        };
        let records = self
            .fairness
            .short
            .iter()
            .find(|st| st.len_ns == counts.window_ns)
            .and_then(|st| st.record.as_deref())
            .unwrap_or(&[]);
        let fair_set = self.config.fair_set.as_ref().map(|_| {
            (0..tasks.len())
                .filter(|&s| tasks[s].fair_member == 1 && tasks[s].fair.ent_ns > 0.0)
                .collect()
        });
        let inputs = crate::series::Inputs {
            counts: &counts,
            records,
            tasks,
            fair_set,
            window,
            cpus,
        };
        let series = crate::series::build(inputs, sums);
        (Some(series), if asked { timeline } else { None })
    }
}
