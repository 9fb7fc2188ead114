//! The interval side of `--series`: per window, each CPU's busy time and runqueue depth,
//! the time tasks spent waiting and the wakeup-latency buckets, summed from state
//! intervals as they come — all of a finished timeline store at once, or chunk by chunk
//! while the trace is read (the export's drain, which keeps no store) — to the same
//! numbers either way.
//!
//! The number of windows is known only at the end (the window ends with the last event):
//! sums are kept for up to [`MAX_WINDOWS`] windows and cut to the final count then. The
//! runqueue depth is a sweep over +1/−1 edges in time order; edges are swept as soon as
//! no interval still to come can start before them (the watermark: a waiting task's open
//! wait, else the present), so the drain holds only the edges of recent waits. A finished
//! store is read the same way, slab of time by slab ([`IntervalSums::of_timeline`]), so
//! that it too holds only a slab's edges (all at once, they were 16 bytes × 2 per wait:
//! 384 MiB on a 23 M-event trace).

use crate::scope::Scope;
use crate::timeline_store::{EndReason, IntervalView, ThreadState, Timeline};
use crate::window::Window;

/// Buckets of the wakeup latency histograms: bucket b > 0 holds [2^(b-1), 2^b) ns.
pub const LOG2_BUCKETS: usize = 64;
/// The most windows a series holds (about 11 min of 10 ms windows; its pretty JSON some
/// 30 MB). A longer window, or a corrupt timestamp far ahead (a time jump of the
/// ledger), is cut there rather than allocating per window for all of it: `cut_at_ns` says
/// where, and nothing after it is in the series.
pub const MAX_WINDOWS: usize = 1 << 16;
/// Intervals per slab of [`IntervalSums::of_timeline`] (about 1 M: the edges of a slab's
/// waits take some 10–20 MiB; each slab costs a seek in each task's log).
const SLAB_INTERVALS: usize = 1 << 20;

/// Adds `[a, b)` (clipped to the windows) to the windows it overlaps via `add(window, ns)`.
fn split(origin: u64, len: u64, n: usize, a: u64, b: u64, mut add: impl FnMut(usize, u64)) {
    let end = origin.saturating_add(len.saturating_mul(n as u64));
    let (mut t, b) = (a.max(origin), b.min(end));
    while t < b {
        let w = ((t - origin) / len) as usize;
        let next = (origin + (w as u64 + 1) * len).min(b);
        add(w, next - t);
        t = next;
    }
}

/// The runqueue depth of one CPU: edges not yet swept and the sweep's state.
///
/// Edges wait in two lists: `pending`, sorted, held back by the watermark at an earlier
/// sweep, and `fresh`, as added since. A sweep sorts only the fresh ones and merges the
/// two: a task that waits for a second holds a second of edges back, and sorting them all
/// again at every drain was a twentieth of an export's CPU.
#[derive(Debug, Clone, Default)]
struct QueueSweep {
    pending: Vec<(u64, i32)>,
    fresh: Vec<(u64, i32)>,
    /// Reused: the pending edges of the next sweep.
    spare: Vec<(u64, i32)>,
    depth: Depth,
}

/// The sweep's state: the depth since the last edge, and its sums.
#[derive(Debug, Clone, Default)]
struct Depth {
    depth: i64,
    last: u64,
    /// Per window: depth × ns (divided by the window's length at the end), max depth.
    depth_ns: Vec<f64>,
    max: Vec<u32>,
}

impl Depth {
    /// Takes edge `(t, d)`, the next in time order, into windows of `len` from `origin`.
    fn sweep(&mut self, origin: u64, len: u64, (t, d): (u64, i32)) {
        if self.depth > 0 {
            let depth = self.depth as u64;
            let sums = &mut self.depth_ns;
            split(origin, len, MAX_WINDOWS, self.last, t, |w, ns| {
                *at(sums, w) += (depth * ns) as f64
            });
        }
        self.depth += i64::from(d);
        self.last = t;
        if self.depth > 0 && t >= origin {
            let w = (t - origin) / len;
            if w < MAX_WINDOWS as u64 {
                let m = at(&mut self.max, w as usize);
                *m = (*m).max(self.depth as u32);
            }
        }
    }
}

/// Sums of intervals per window from `origin`, windows of `len` ns.
#[derive(Debug, Clone)]
pub(crate) struct IntervalSums {
    origin: u64,
    len: u64,
    /// Per CPU number (CPUs in the scope): busy ns per window.
    busy: Vec<Vec<u64>>,
    /// Per CPU number: its runqueue.
    queues: Vec<QueueSweep>,
    runnable: Vec<u64>,
    /// Per window, wakeup latencies per log2 bucket (grown as they land).
    hist: Vec<Vec<u64>>,
}

/// `v[w]`, growing `v` to hold it.
fn at<T: Default + Clone>(v: &mut Vec<T>, w: usize) -> &mut T {
    if v.len() <= w {
        v.resize(w + 1, T::default());
    }
    &mut v[w]
}

fn log2_bucket(ns: u64) -> usize {
    (64 - ns.leading_zeros() as usize).min(LOG2_BUCKETS - 1)
}

/// What [`IntervalSums::finish`] gives, cut to the series' windows.
pub(crate) struct Sums {
    /// Per CPU number asked for: busy ns, depth × ns, max depth per window.
    pub(crate) busy: Vec<Vec<u64>>,
    pub(crate) depth_ns: Vec<Vec<f64>>,
    pub(crate) depth_max: Vec<Vec<u32>>,
    pub(crate) runnable: Vec<u64>,
    pub(crate) hist: Vec<Vec<u64>>,
}

impl IntervalSums {
    pub(crate) fn new(origin: u64, len: u64) -> IntervalSums {
        IntervalSums {
            origin,
            len: len.max(1),
            busy: Vec::new(),
            queues: Vec::new(),
            runnable: Vec::new(),
            hist: Vec::new(),
        }
    }

    /// The sums of a whole timeline store, for windows of `len` over `window`: every
    /// interval added once, slab of time by slab (an interval belongs to the slab it
    /// starts in), the runqueue edges swept at each slab's end. The edges are swept in the
    /// same order as all at once, so the sums are the same to the bit.
    pub(crate) fn of_timeline(
        timeline: &Timeline,
        window: Window,
        len: u64,
        scope: &Scope,
    ) -> IntervalSums {
        let mut sums = IntervalSums::new(window.start_ns, len);
        let intervals: usize = timeline.tasks().iter().map(|t| t.len()).sum();
        let slabs = intervals.div_ceil(SLAB_INTERVALS).max(1) as u64;
        let slab_len = window.len_ns().div_ceil(slabs).max(1);
        // The first slab takes everything before the window too, the last all after it.
        let bound = |k: u64| match k {
            0 => 0,
            k if k >= slabs => u64::MAX,
            k => window.start_ns.saturating_add(k * slab_len),
        };
        for k in 0..slabs {
            let (a, b) = (bound(k), bound(k + 1));
            for task in timeline.tasks().iter().filter(|t| t.spans(a, b)) {
                for v in task.intervals_in(a, b).filter(|v| v.start_ns >= a) {
                    sums.add(&v, scope);
                }
            }
            sums.sweep_until(b);
        }
        sums
    }

    /// Adds interval `v` (whole; clipped here to the window and `scope`).
    pub(crate) fn add(&mut self, v: &IntervalView, scope: &Scope) {
        let (origin, len) = (self.origin, self.len);
        // Every interval ends by the last event, so the window's end clips as `--time` does.
        let (a, b) = (
            v.start_ns.max(origin).max(scope.start),
            v.end_ns().min(scope.end),
        );
        match v.state {
            ThreadState::Running => {
                if let Some(c) = v.cpu.filter(|&c| scope.cpu(c)) {
                    let busy = at(&mut self.busy, c as usize);
                    split(origin, len, MAX_WINDOWS, a, b, |w, ns| *at(busy, w) += ns);
                }
            }
            ThreadState::RunnableWakeup | ThreadState::RunnablePreempted => {
                let runnable = &mut self.runnable;
                split(origin, len, MAX_WINDOWS, a, b, |w, ns| {
                    *at(runnable, w) += ns
                });
                if let Some(c) = v.cpu {
                    if a < b {
                        let q = at(&mut self.queues, c as usize);
                        q.fresh.push((a, 1));
                        q.fresh.push((b, -1));
                    }
                }
                let end = v.end_ns();
                let counted = v.cpu.is_some_and(|c| scope.counts(end, c));
                if v.state == ThreadState::RunnableWakeup
                    && v.latency_timed
                    && v.end == EndReason::SwitchedIn
                    && counted
                    && end >= origin
                {
                    let w = (end - origin) / len;
                    if w < MAX_WINDOWS as u64 {
                        let h = at(&mut self.hist, w as usize);
                        *at(h, log2_bucket(v.dur_ns)) += 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// Sweeps the runqueue edges before `watermark`: no interval added later starts before it.
    pub(crate) fn sweep_until(&mut self, watermark: u64) {
        let (origin, len) = (self.origin, self.len);
        for q in &mut self.queues {
            // At equal times the -1 first: a task leaving as another arrives is no deeper queue.
            // The fresh edges are runs, one per task (each task's waits come in time
            // order): the stable sort finds the runs and merges them.
            q.fresh.sort();
            let mut held = std::mem::take(&mut q.spare);
            held.clear();
            let (old, new) = (&q.pending, &q.fresh);
            let (mut i, mut j) = (0, 0);
            while i < old.len() || j < new.len() {
                let edge = if j < new.len() && (i == old.len() || new[j] < old[i]) {
                    j += 1;
                    new[j - 1]
                } else {
                    i += 1;
                    old[i - 1]
                };
                if edge.0 < watermark {
                    q.depth.sweep(origin, len, edge);
                } else {
                    held.push(edge);
                }
            }
            q.fresh.clear();
            q.spare = std::mem::replace(&mut q.pending, held);
        }
    }

    /// The sums of `n` windows for `cpus`; with `cut` false, latencies that ended exactly
    /// at the window's end belong to the last window.
    pub(crate) fn finish(mut self, n: usize, cut: bool, cpus: &[u32]) -> Sums {
        self.sweep_until(u64::MAX);
        fn fit<T: Default + Clone>(mut v: Vec<T>, n: usize) -> Vec<T> {
            v.resize(n, T::default());
            v
        }
        let mut hist = std::mem::take(&mut self.hist);
        if !cut && hist.len() > n {
            for late in hist.split_off(n) {
                let last = &mut hist[n - 1];
                for (b, k) in late.into_iter().enumerate() {
                    *at(last, b) += k;
                }
            }
        }
        let mut hist = fit(hist, n);
        for h in &mut hist {
            let used = h.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
            h.truncate(used);
        }
        let mut out = Sums {
            busy: Vec::new(),
            depth_ns: Vec::new(),
            depth_max: Vec::new(),
            runnable: fit(std::mem::take(&mut self.runnable), n),
            hist,
        };
        for &c in cpus {
            let busy = self.busy.get_mut(c as usize).map(std::mem::take);
            out.busy.push(fit(busy.unwrap_or_default(), n));
            let q = self.queues.get_mut(c as usize).map(std::mem::take);
            let q = q.unwrap_or_default();
            out.depth_ns.push(fit(q.depth.depth_ns, n));
            out.depth_max.push(fit(q.depth.max, n));
        }
        out
    }
}
