//! The per-CPU summary pyramid: the report window cut into equal bins (at most
//! [`MAX_BINS`], a power of two ns wide), each with the CPU's busy time, the time tasks
//! waited on its runqueue and the task that ran most; each level above halves the bins.
//! A view of `columns` bins over any span reads the level whose bins are just narrower
//! than a column: O(columns) per CPU, never O(intervals).

use super::{TaskTimeline, ThreadState};
use crate::window::Window;

/// Bins of the finest level per CPU (16 Ki: far more than a screen's columns; a view
/// zoomed in further reads the intervals themselves).
const MAX_BINS: u64 = 1 << 14;
const NO_TASK: u32 = u32::MAX;

/// One column of a zoomed-out CPU view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BinSummary {
    pub start_ns: u64,
    pub len_ns: u64,
    /// Time a task ran on the CPU.
    pub busy_ns: u64,
    /// Time-weighted number of tasks waiting on the CPU's runqueue.
    pub queue_depth_mean: f64,
    /// The task (index into `Timeline::tasks`) that ran most in the bin. Exact on the
    /// finest level; above it, the larger of the two halves' top tasks.
    pub top_task: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
struct Bin {
    busy_ns: u64,
    queued_ns: u64,
    top_task: u32,
    top_ns: u64,
}

impl Default for Bin {
    fn default() -> Bin {
        Bin {
            busy_ns: 0,
            queued_ns: 0,
            top_task: NO_TASK,
            top_ns: 0,
        }
    }
}

impl Bin {
    fn merge(a: Bin, b: Bin) -> Bin {
        let (top_task, top_ns) = if a.top_task == b.top_task {
            (a.top_task, a.top_ns.saturating_add(b.top_ns))
        } else if b.top_ns > a.top_ns {
            (b.top_task, b.top_ns)
        } else {
            (a.top_task, a.top_ns)
        };
        // Saturating: queued time is summed over tasks, and a bin of a coarse level after a
        // corrupt far-ahead timestamp can hold more than u64 ns of it.
        Bin {
            busy_ns: a.busy_ns.saturating_add(b.busy_ns),
            queued_ns: a.queued_ns.saturating_add(b.queued_ns),
            top_task,
            top_ns,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Pyramid {
    origin: u64,
    /// Width of a finest-level bin (a power of two ns).
    width: u64,
    /// End of the finest level's last bin: the bins of coarser levels may reach past it,
    /// and only their part before it holds time.
    end: u64,
    /// levels[0] is the finest; levels[k] has bins `width << k` wide.
    levels: Vec<Vec<Bin>>,
}

/// Adds `[a, b)` to the bins it overlaps (bins `width` wide from `origin`), calling
/// `add(bin, ns)` for each.
fn spread(origin: u64, width: u64, bins: usize, a: u64, b: u64, mut add: impl FnMut(usize, u64)) {
    let end = origin + width * bins as u64;
    let (a, b) = (a.max(origin), b.min(end));
    if a >= b {
        return;
    }
    let mut t = a;
    while t < b {
        let bin = ((t - origin) / width) as usize;
        let bin_end = origin + (bin as u64 + 1) * width;
        let next = bin_end.min(b);
        add(bin, next - t);
        t = next;
    }
}

/// The finest level of one CPU while the tasks are read, and the current task's share of
/// each bin it ran in (bins ascending: a task's intervals come in time order).
struct Finest {
    bins: Vec<Bin>,
    current: Vec<(usize, u64)>,
}

impl Finest {
    /// Gives the bins the current task (`task`) ran in to it as top task where it ran more
    /// than the top so far (a tie keeps the earlier task).
    fn settle(&mut self, task: u32) {
        for &(bin, ns) in &self.current {
            let b = &mut self.bins[bin];
            if b.top_task == NO_TASK || ns > b.top_ns {
                b.top_task = task;
                b.top_ns = ns;
            }
        }
        self.current.clear();
    }
}

impl Pyramid {
    /// The pyramid of each of `cpus` CPUs (none for a CPU where nothing ran or waited)
    /// over `window`, in one read of every task's intervals.
    pub(super) fn build_all(
        tasks: &[TaskTimeline],
        window: Window,
        cpus: u32,
    ) -> Vec<Option<Pyramid>> {
        let span = window.len_ns().max(1);
        let width = span.div_ceil(MAX_BINS).next_power_of_two();
        let bins = span.div_ceil(width) as usize;
        let origin = window.start_ns;
        // A CPU's level is made when the first interval lands on it.
        let mut finest: Vec<Option<Finest>> = (0..cpus).map(|_| None).collect();
        for (t, task) in tasks.iter().enumerate() {
            for v in task.intervals() {
                let on_cpu = matches!(
                    v.state,
                    ThreadState::Running
                        | ThreadState::RunnableWakeup
                        | ThreadState::RunnablePreempted
                );
                let Some(slot) = v
                    .cpu
                    .filter(|_| on_cpu)
                    .and_then(|c| finest.get_mut(c as usize))
                else {
                    continue;
                };
                let f = slot.get_or_insert_with(|| Finest {
                    bins: vec![Bin::default(); bins],
                    current: Vec::new(),
                });
                match v.state {
                    // Busy time, and the task's share of each bin for the exact top task.
                    ThreadState::Running => {
                        spread(origin, width, bins, v.start_ns, v.end_ns(), |bin, ns| {
                            f.bins[bin].busy_ns += ns;
                            match f.current.last_mut() {
                                Some((b, sum)) if *b == bin => *sum += ns,
                                _ => f.current.push((bin, ns)),
                            }
                        })
                    }
                    // Queue depth: every runnable interval whose runqueue is this CPU.
                    ThreadState::RunnableWakeup | ThreadState::RunnablePreempted => {
                        spread(origin, width, bins, v.start_ns, v.end_ns(), |bin, ns| {
                            f.bins[bin].queued_ns = f.bins[bin].queued_ns.saturating_add(ns)
                        })
                    }
                    _ => {}
                }
            }
            for f in finest.iter_mut().flatten() {
                f.settle(t as u32);
            }
        }
        finest
            .into_iter()
            .map(|f| Some(Pyramid::stack(f?.bins, origin, width)))
            .collect()
    }

    /// The levels above the finest, each halving the one below.
    fn stack(level: Vec<Bin>, origin: u64, width: u64) -> Pyramid {
        let end = origin + width * level.len() as u64;
        let mut levels = vec![level];
        while levels.last().unwrap().len() > 1 {
            let below = levels.last().unwrap();
            let above = below
                .chunks(2)
                .map(|pair| match pair {
                    [a, b] => Bin::merge(*a, *b),
                    [a] => *a,
                    _ => unreachable!(),
                })
                .collect();
            levels.push(above);
        }
        Pyramid {
            origin,
            width,
            end,
            levels,
        }
    }

    pub(super) fn bytes(&self) -> u64 {
        self.levels
            .iter()
            .map(|l| (l.capacity() * std::mem::size_of::<Bin>()) as u64)
            .sum()
    }

    /// `columns` equal bins over `[start, end)`.
    pub(super) fn summary(&self, start: u64, end: u64, columns: usize) -> Vec<BinSummary> {
        let columns = columns.max(1);
        let span = end.saturating_sub(start).max(1);
        let col = span as f64 / columns as f64;
        // The coarsest level whose bins are not wider than a column.
        let mut k = 0;
        while k + 1 < self.levels.len() && ((self.width << (k + 1)) as f64) <= col {
            k += 1;
        }
        let (bins, width) = (&self.levels[k], self.width << k);
        (0..columns)
            .map(|c| {
                let a = start + (c as f64 * col) as u64;
                let b = if c + 1 == columns {
                    end
                } else {
                    start + ((c + 1) as f64 * col) as u64
                };
                let (mut busy, mut queued, mut top, mut top_ns) = (0.0, 0.0, NO_TASK, 0.0);
                // Each overlapped bin counts in proportion to the part of it in the column.
                let (ca, cb) = (a.min(self.end), b.min(self.end));
                spread(self.origin, width, bins.len(), ca, cb, |bin, ns| {
                    let bin_start = self.origin + bin as u64 * width;
                    let filled = (bin_start + width).min(self.end) - bin_start;
                    let share = ns as f64 / filled as f64;
                    let x = &bins[bin];
                    busy += x.busy_ns as f64 * share;
                    queued += x.queued_ns as f64 * share;
                    if x.top_task != NO_TASK && x.top_ns as f64 * share > top_ns {
                        top = x.top_task;
                        top_ns = x.top_ns as f64 * share;
                    }
                });
                BinSummary {
                    start_ns: a,
                    len_ns: b - a,
                    busy_ns: busy.round() as u64,
                    queue_depth_mean: if b > a { queued / (b - a) as f64 } else { 0.0 },
                    top_task: (top != NO_TASK).then_some(top as usize),
                }
            })
            .collect()
    }
}

/// The summary of a CPU that ran nothing.
pub(crate) fn empty(start: u64, end: u64, columns: usize) -> Vec<BinSummary> {
    let p = Pyramid {
        origin: start,
        width: 1,
        end: start,
        levels: vec![Vec::new()],
    };
    p.summary(start, end, columns)
}
