//! Time series (opt-in, `Config::series`, `analyze --series 10ms`): the window cut into
//! equal windows from its start, and per window and CPU the busy time, runqueue depth
//! (mean, max), switches, wakeup preemptions and lost-event records; for the system the
//! mean number of waiting tasks, a log2 histogram of wakeup latency, Jain's index and the
//! lag of the competing tasks at each window's end.
//!
//! Counts are taken in the pass ([`SeriesCounts`], O(1) per counted event); the
//! durations are summed from the timeline store's intervals ([`crate::series_sums`]: at
//! the end, or as they are drained by an export), so they are exactly the report's: a CPU's busy time summed over the windows is its `busy_ns`.
//! Jain's index and the lags come from the fairness windows (`fairness::ShortTerm`) of
//! the same length and origin, so for 10 ms their mean is the report's short-term mean.
//! The runqueue depth counts a waiting task on the runqueue it was switched in from.

use crate::metrics::fairness::WindowRecord;
use crate::series_sums::IntervalSums;
use crate::timeline::Task;
use crate::window::Window;
use serde::{Deserialize, Serialize};

/// Tasks whose lag is given when no `--fair-set` names them: the top ones by runtime.
pub(crate) const LAG_TASKS: usize = 8;
// Defined beside the interval sums that size their windows by them (series_sums sits below
// this module); named here too, where the series' readers look for them.
pub use crate::series_sums::{LOG2_BUCKETS, MAX_WINDOWS};

/// What the pass counts per window, CPU and kind.
#[derive(Debug, Clone)]
pub(crate) struct SeriesCounts {
    pub window_ns: u64,
    /// Per CPU, per window: switches, wakeup preemptions, lost-event records.
    counts: Vec<Vec<[u32; 3]>>,
    /// The last window counted in, `(origin, start, end, index)`: events come in time
    /// order, so most fall in the window of the one before, and the 64-bit division that
    /// finds a window was most of this module's time in a profile.
    last: (u64, u64, u64, usize),
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Count {
    Switch = 0,
    WakeupPreemption = 1,
    Lost = 2,
}

impl SeriesCounts {
    pub(crate) fn new(window_ns: u64) -> SeriesCounts {
        SeriesCounts {
            window_ns: window_ns.max(1),
            counts: Vec::new(),
            last: (0, 0, 0, 0),
        }
    }

    /// One `what` at `ts` on `cpu` (a counted event: in the scope); `origin` is the
    /// report window's start.
    pub(crate) fn count(&mut self, what: Count, ts: u64, origin: u64, cpu: u32) {
        let (o, start, end, last) = self.last;
        let w = if o == origin && start <= ts && ts < end {
            last
        } else {
            let w = ts.saturating_sub(origin) / self.window_ns;
            if w >= MAX_WINDOWS as u64 {
                return;
            }
            let start = origin.saturating_add(w * self.window_ns);
            let end = start.saturating_add(self.window_ns);
            // A time before the origin counts in window 0 but is no window of its own.
            if ts >= origin {
                self.last = (origin, start, end, w as usize);
            }
            w as usize
        };
        let c = cpu as usize;
        if self.counts.len() <= c {
            self.counts.resize_with(c + 1, Vec::new);
        }
        let per = &mut self.counts[c];
        if per.len() <= w {
            per.resize(w + 1, [0; 3]);
        }
        per[w][what as usize] += 1;
    }
}

/// JSON `series`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Series {
    pub window_ns: u64,
    /// Start of the first window (the report window's start).
    pub start_ns: u64,
    /// Windows; the last may be partial (it ends with the report window).
    pub windows: u64,
    /// Where the series stops when the window holds more than [`MAX_WINDOWS`] windows
    /// (absent otherwise): time after it is in no window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_at_ns: Option<u64>,
    pub cpus: Vec<CpuSeries>,
    /// Mean number of tasks waiting on any runqueue.
    pub runnable_tasks_mean: Vec<f64>,
    /// Per window, wakeup latencies (of the switch-ins in it) per log2 bucket: bucket 0 is
    /// 0 ns, bucket b holds [2^(b-1), 2^b) ns; buckets past the last non-empty one are left out.
    pub wakeup_latency_log2: Vec<Vec<u64>>,
    /// Jain's index of the competing tasks' fairness ratios per window; null when the
    /// window is incomplete or had fewer than two competitors.
    pub jain: Vec<Option<f64>>,
    /// Lag (entitlement − runtime) at every window end of the `--fair-set` tasks, else of
    /// the top competing tasks by runtime.
    pub lag: Vec<TaskLag>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuSeries {
    pub cpu: u32,
    pub busy_ns: Vec<u64>,
    pub runqueue_depth_mean: Vec<f64>,
    pub runqueue_depth_max: Vec<u32>,
    pub switches: Vec<u64>,
    pub wakeup_preemptions: Vec<u64>,
    pub lost_events: Vec<u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TaskLag {
    pub pid: i32,
    pub comm: String,
    /// At each window's end; null while the task did not compete.
    pub lag_ns: Vec<Option<f64>>,
}

/// Everything the series is built from, besides the interval sums.
pub(crate) struct Inputs<'a> {
    pub counts: &'a SeriesCounts,
    pub records: &'a [WindowRecord],
    pub tasks: &'a [Task],
    /// Slots of the tasks in `--fair-set`, if one was given.
    pub fair_set: Option<Vec<usize>>,
    pub window: Window,
    pub cpus: &'a [u32],
}

/// The windows of `window` in windows of `len`: how many, and where they are cut.
fn windows(window: Window, len: u64) -> (usize, Option<u64>) {
    let whole = window.len_ns().div_ceil(len).max(1);
    let n = whole.min(MAX_WINDOWS as u64) as usize;
    (
        n,
        (whole > n as u64).then(|| window.start_ns + n as u64 * len),
    )
}

pub(crate) fn build(inp: Inputs, sums: IntervalSums) -> Series {
    let len = inp.counts.window_ns;
    let origin = inp.window.start_ns;
    // Time past the window end is never counted: clip to it as to `--time`.
    let (n, cut_at_ns) = windows(inp.window, len);
    let hi = cut_at_ns.unwrap_or(inp.window.end_ns);
    let sums = sums.finish(n, cut_at_ns.is_some(), inp.cpus);
    let window_len = |w: usize| {
        let a = origin + w as u64 * len;
        (a + len).min(hi).saturating_sub(a).max(1) as f64
    };
    let cpus: Vec<CpuSeries> = inp
        .cpus
        .iter()
        .zip(sums.busy.into_iter().zip(sums.depth_ns).zip(sums.depth_max))
        .map(|(&cpu, ((busy_ns, depth_ns), runqueue_depth_max))| {
            let counts = inp.counts.counts.get(cpu as usize);
            let count = |k: usize| -> Vec<u64> {
                (0..n)
                    .map(|w| counts.and_then(|c| c.get(w)).map_or(0, |x| u64::from(x[k])))
                    .collect()
            };
            CpuSeries {
                cpu,
                busy_ns,
                runqueue_depth_mean: depth_ns
                    .iter()
                    .enumerate()
                    .map(|(w, &d)| d / window_len(w))
                    .collect(),
                runqueue_depth_max,
                switches: count(Count::Switch as usize),
                wakeup_preemptions: count(Count::WakeupPreemption as usize),
                lost_events: count(Count::Lost as usize),
            }
        })
        .collect();
    let mut jain = vec![None; n];
    let index = |end: u64| ((end.saturating_sub(origin) / len) as usize).checked_sub(1);
    for rec in inp.records {
        if let Some(w) = index(rec.end_ns).filter(|&w| w < n) {
            jain[w] = rec.jain;
        }
    }
    Series {
        window_ns: len,
        start_ns: origin,
        windows: n as u64,
        cut_at_ns,
        runnable_tasks_mean: (0..n)
            .map(|w| sums.runnable[w] as f64 / window_len(w))
            .collect(),
        wakeup_latency_log2: sums.hist,
        jain,
        lag: lags(&inp, n, index),
        cpus,
    }
}

/// The lag rows: the `--fair-set` tasks, else the top [`LAG_TASKS`] competing tasks by
/// runtime while competing.
fn lags(inp: &Inputs, n: usize, index: impl Fn(u64) -> Option<usize>) -> Vec<TaskLag> {
    let slots: Vec<usize> = match &inp.fair_set {
        Some(set) => set.clone(),
        None => {
            let mut competing: Vec<usize> = (0..inp.tasks.len())
                .filter(|&s| inp.tasks[s].fair.ent_ns > 0.0)
                .collect();
            competing.sort_by_key(|&s| (std::cmp::Reverse(inp.tasks[s].fair.run_ns), s));
            competing.truncate(LAG_TASKS);
            competing
        }
    };
    let mut rows: Vec<TaskLag> = slots
        .iter()
        .map(|&s| TaskLag {
            pid: inp.tasks[s].pid,
            comm: inp.tasks[s].comm.to_string_lossy(),
            lag_ns: vec![None; n],
        })
        .collect();
    for rec in inp.records {
        let Some(w) = index(rec.end_ns).filter(|&w| w < n) else {
            continue;
        };
        for &(slot, lag) in &rec.lags {
            if let Some(i) = slots.iter().position(|&s| s == slot as usize) {
                rows[i].lag_ns[w] = Some(lag);
            }
        }
    }
    rows
}
