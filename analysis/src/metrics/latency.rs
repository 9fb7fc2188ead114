//! Waits (`docs/metrics.md` §3): wakeup latency (woken → running), preemption wait
//! (preempted → running) and sched delay (both), kept as exact samples per task so that
//! grouped rows and the system-wide statistics stay exact (nearest rank).
//!
//! The samples are taken by the task state machine ([`crate::timeline`]) when a wait ends;
//! this module owns what is kept and how it is summarised and merged.

use crate::stats::{Samples, Stats};
use serde::{Deserialize, Serialize};

/// Exact durations of one task, kept in memory next to its row.
#[derive(Debug, Clone, Default)]
pub struct TaskSamples {
    pub slices: Samples,
    pub preemption_wait: Samples,
    /// The wakeup latencies, split by whether the wakee ran on the waker's CPU; together
    /// they are all of them (see [`TaskSamples::wakeup_latency`]).
    pub latency_local: Samples,
    pub latency_remote: Samples,
}

impl TaskSamples {
    /// Sched delay = every wait episode, wakeup or preemption (metrics.md §3).
    pub fn sched_delay(&self) -> Samples {
        Samples::union(&[
            &self.latency_local,
            &self.latency_remote,
            &self.preemption_wait,
        ])
    }

    /// Every wakeup latency, local and remote.
    pub fn wakeup_latency(&self) -> Samples {
        Samples::union(&[&self.latency_local, &self.latency_remote])
    }

    /// A timed wakeup wait of `value` ns ended at `at`, the wakee on the waker's CPU
    /// (`local`) or not.
    #[inline]
    pub(crate) fn push_wakeup_latency(&mut self, local: bool, value: u64, at: u64) {
        if local {
            self.latency_local.push(value, at);
        } else {
            self.latency_remote.push(value, at);
        }
    }

    /// Whether no wait and no slice was sampled.
    pub(crate) fn is_empty(&self) -> bool {
        self.slices.is_empty()
            && self.preemption_wait.is_empty()
            && self.latency_local.is_empty()
            && self.latency_remote.is_empty()
    }

    pub fn merge(&mut self, other: &TaskSamples) {
        self.slices.merge(&other.slices);
        self.preemption_wait.merge(&other.preemption_wait);
        self.latency_local.merge(&other.latency_local);
        self.latency_remote.merge(&other.latency_remote);
    }
}

/// The statistics of one task's (or group's) waits and slices.
pub(crate) struct WaitStats {
    pub slices: Stats,
    pub wakeup_latency: Stats,
    pub preemption_wait: Stats,
    pub sched_delay: Stats,
    pub wakeup_latency_local: Stats,
    pub wakeup_latency_remote: Stats,
    pub histograms: TaskHistograms,
}

/// Log2 histograms of a task's durations (`Samples::log2_histogram`: bucket 0 is 0 ns,
/// bucket b holds [2^(b-1), 2^b) ns, trailing empty buckets left out).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TaskHistograms {
    pub wakeup_latency_log2: Vec<u64>,
    pub preemption_wait_log2: Vec<u64>,
    pub slices_log2: Vec<u64>,
}

impl TaskHistograms {
    /// Adds another task's counts (the merge rule of grouped rows read back from JSON;
    /// with samples at hand a group's histograms come from its merged samples).
    pub fn add(&mut self, other: &TaskHistograms) {
        fn add(a: &mut Vec<u64>, b: &[u64]) {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        add(&mut self.wakeup_latency_log2, &other.wakeup_latency_log2);
        add(&mut self.preemption_wait_log2, &other.preemption_wait_log2);
        add(&mut self.slices_log2, &other.slices_log2);
    }
}

impl TaskSamples {
    /// Every statistic of these samples (reorders them: selection, not a sort).
    pub(crate) fn stats(&mut self) -> WaitStats {
        let mut wakeup = self.wakeup_latency();
        let histograms = TaskHistograms {
            wakeup_latency_log2: wakeup.log2_histogram(),
            preemption_wait_log2: self.preemption_wait.log2_histogram(),
            slices_log2: self.slices.log2_histogram(),
        };
        WaitStats {
            histograms,
            slices: self.slices.stats(),
            wakeup_latency: wakeup.stats(),
            preemption_wait: self.preemption_wait.stats(),
            sched_delay: self.sched_delay().stats(),
            wakeup_latency_local: self.latency_local.stats(),
            wakeup_latency_remote: self.latency_remote.stats(),
        }
    }
}

/// The system-wide statistics over every task's samples.
pub(crate) struct SystemWaits {
    pub wakeup_latency: Stats,
    pub preemption_wait: Stats,
    pub sched_delay: Stats,
}

/// One system-wide set at a time, each allocated at its exact size and dropped before the
/// next: these are the largest allocations of the whole analysis.
pub(crate) fn system<'a>(samples: impl Iterator<Item = &'a TaskSamples>) -> SystemWaits {
    let samples: Vec<&TaskSamples> = samples.collect();
    let wakeup: Vec<&Samples> = samples
        .iter()
        .flat_map(|s| [&s.latency_local, &s.latency_remote])
        .collect();
    let preemption: Vec<&Samples> = samples.iter().map(|s| &s.preemption_wait).collect();
    let wakeup_latency = Samples::union(&wakeup).stats();
    let preemption_wait = Samples::union(&preemption).stats();
    // Sched delay = every wakeup latency, then every preemption wait (merge order as for
    // one task's: wakeups first).
    let sched_delay = Samples::union(&[wakeup, preemption].concat()).stats();
    SystemWaits {
        wakeup_latency,
        preemption_wait,
        sched_delay,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Local waits 100 and 300 ns, a remote one of 200, a preemption wait of 50.
    #[test]
    fn sched_delay_is_every_wait_and_wakeup_latency_the_wakeup_ones() {
        let mut s = TaskSamples::default();
        s.latency_local.push(100, 1_000);
        s.latency_local.push(300, 2_000);
        s.latency_remote.push(200, 3_000);
        s.preemption_wait.push(50, 4_000);
        let st = s.stats();
        let w = st.wakeup_latency;
        // Nearest rank: p50 of 3 values is the 2nd smallest.
        assert_eq!(
            (w.count, w.sum_ns, w.p50_ns, w.max_ns, w.max_at_ns),
            (3, 600, 200, 300, 2_000)
        );
        let d = st.sched_delay;
        // 650 / 4 = 162.5, rounded to the nearest ns.
        assert_eq!((d.count, d.sum_ns, d.mean_ns, d.p50_ns), (4, 650, 163, 100));
        assert_eq!(st.wakeup_latency_remote.count, 1);
        let sys = system([&s, &s].into_iter());
        assert_eq!((sys.wakeup_latency.count, sys.sched_delay.count), (6, 8));
    }
}
