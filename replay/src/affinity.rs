//! The CPUs a task may run on. Traces do not record `sched_setaffinity` masks (another
//! change adds recorded affinity); until then a task's allowed CPUs are those it was seen
//! running on for at least [`MIN_SHARE`] of its runtime, so that the start a task runs
//! where it was forked, before it pins itself, does not count (3.3 % of `pp1-ping`'s runtime
//! in the CFS `pp1` fixture). A free task spread thinner than that over many CPUs loses some. Exact for a pinned task, too
//! narrow for a free one that happened to stay on one CPU: the replay then keeps it there,
//! as the traced kernel did. One function, so the recorded mask can take its place.
//!
//! The bursts a task ran before it pinned itself did run elsewhere: its first bursts that
//! ran on none of its allowed CPUs may run on any CPU ([`free_bursts`]); held to the later
//! CPU they would run one after another there (the `nice` fixture's CFS identity replay:
//! involuntary switches/s 46 % off with them held, 43 % free).

use std::collections::BTreeMap;

use crate::segment::RunPiece;

/// Least share of a task's runtime on a CPU for the CPU to count as allowed.
const MIN_SHARE: f64 = 0.10;

/// Allowed CPUs from the running time per CPU; a task that never ran may run anywhere.
pub(crate) fn allowed_cpus(ran: &BTreeMap<u32, u64>, cpu_count: u32) -> Vec<u32> {
    let total: u64 = ran.values().sum();
    if total == 0 {
        return (0..cpu_count).collect();
    }
    ran.iter()
        .filter(|&(_, &ns)| ns as f64 >= MIN_SHARE * total as f64)
        .map(|(&cpu, _)| cpu)
        .collect()
}

/// How many of the first bursts ran on none of `allowed`: the bursts before the first one
/// with a running interval on an allowed CPU (or on an unknown one). A burst the task moved
/// itself out of midway is not free: counting those (ping's and pong's first in the CFS
/// `pp1` fixture, 11.3 ms on CPU 2 then 1.9 ms on CPU 1) fixed `pp1`'s identity but made
/// four other identity cells worse (docs/replay.md).
pub(crate) fn free_bursts(runs: &[RunPiece], allowed: &[u32]) -> u32 {
    runs.iter()
        .find(|r| r.cpu.is_none_or(|c| allowed.contains(&c)))
        .map_or(0, |r| r.burst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(burst: u32, into_ns: u64, cpu: u32) -> RunPiece {
        RunPiece {
            start_ns: 0,
            end_ns: 0,
            burst,
            into_ns,
            cpu: Some(cpu),
            ends_burst: true,
        }
    }

    #[test]
    fn bursts_before_pinning_are_free() {
        // Burst 0 on CPU 2, burst 1 begins on 3 and ends on the allowed 1 (not free), burst
        // 3 (back on 2) does not count: the task pinned itself before it.
        let runs = [
            run(0, 0, 2),
            run(1, 0, 3),
            run(1, 40, 1),
            run(2, 0, 1),
            run(3, 0, 2),
        ];
        assert_eq!(free_bursts(&runs, &[1]), 1);
        assert_eq!(free_bursts(&runs, &[2]), 0);
        assert_eq!(free_bursts(&runs, &[3]), 1);
        // Never began on an allowed CPU: nothing is free (no pinning point in the trace).
        assert_eq!(free_bursts(&runs, &[0]), 0);
        assert_eq!(free_bursts(&[], &[1]), 0);
    }

    #[test]
    fn observed_or_all() {
        assert_eq!(
            allowed_cpus(&BTreeMap::from([(3, 50), (1, 50)]), 4),
            vec![1, 3]
        );
        assert_eq!(allowed_cpus(&BTreeMap::new(), 3), vec![0, 1, 2]);
        // 0.6 ms on the fork's CPU, then 2.27 s pinned (the nice fixture's nice-n0).
        assert_eq!(
            allowed_cpus(&BTreeMap::from([(2, 600_000), (1, 2_269_000_000)]), 4),
            vec![1]
        );
    }
}
