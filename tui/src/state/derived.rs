//! Orders and sums over every task that views would otherwise recompute on each frame
//! (O(tasks) per frame is too slow at 100 000 tasks): computed once per run and load.

use analysis::{Report, Stats, TaskRow};

/// Tasks in the Overview's "waited most" table.
pub(crate) const TOP_WAITS: usize = 8;

#[derive(Debug, Clone, Default)]
pub(crate) struct Derived {
    /// The tasks with the most sched delay, most first (at most [`TOP_WAITS`]).
    pub top_waits: Vec<usize>,
    /// The competing tasks (those with fairness), most runtime first.
    pub competing: Vec<usize>,
    /// Mean local and remote wakeup latency over every task, in us (weighted by count).
    pub latency_local_us: Option<f64>,
    pub latency_remote_us: Option<f64>,
}

impl Derived {
    pub(crate) fn of(r: &Report) -> Derived {
        let waited = |i: &usize| std::cmp::Reverse(r.tasks[*i].sched_delay.sum_ns);
        let mut top_waits: Vec<usize> = (0..r.tasks.len()).collect();
        if top_waits.len() > TOP_WAITS {
            top_waits.select_nth_unstable_by_key(TOP_WAITS - 1, waited);
            top_waits.truncate(TOP_WAITS);
        }
        top_waits.sort_by_key(|i| (waited(i), *i));
        let mut competing: Vec<usize> = (0..r.tasks.len())
            .filter(|&i| r.tasks[i].fairness.is_some())
            .collect();
        competing.sort_by_key(|&i| (std::cmp::Reverse(r.tasks[i].runtime_ns), r.tasks[i].pid));
        Derived {
            top_waits,
            competing,
            latency_local_us: mean_us(r, |t| &t.affinity.wakeup_latency_local),
            latency_remote_us: mean_us(r, |t| &t.affinity.wakeup_latency_remote),
        }
    }
}

fn mean_us(r: &Report, pick: fn(&TaskRow) -> &Stats) -> Option<f64> {
    let (sum, n) = r.tasks.iter().map(pick).fold((0u128, 0u64), |(s, n), st| {
        (s + u128::from(st.sum_ns), n + st.count)
    });
    (n > 0).then(|| sum as f64 / n as f64 / 1e3)
}
