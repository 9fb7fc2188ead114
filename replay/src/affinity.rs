//! The CPUs a task may run on. Traces do not record `sched_setaffinity` masks (another
//! change adds recorded affinity); until then a task's allowed CPUs are those it was seen
//! running on for at least [`MIN_SHARE`] of its runtime, so that the start a task runs
//! where it was forked, before it pins itself, does not count (3.3 % of `pp1-ping`'s runtime
//! in the CFS `pp1` fixture). A free task spread thinner than that over many CPUs loses some. Exact for a pinned task, too
//! narrow for a free one that happened to stay on one CPU: the replay then keeps it there,
//! as the traced kernel did. One function, so the recorded mask can take its place.

use std::collections::BTreeMap;

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

#[cfg(test)]
mod tests {
    use super::*;

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
