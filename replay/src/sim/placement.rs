//! Where a waking task goes, the same for every model (the rule, a simplification
//! of `select_task_rq_fair` / `select_idle_sibling` and Project C's `select_task_rq`): its
//! previous CPU if idle, else an idle CPU sharing its last-level cache, else the previous
//! CPU. A new task (fork) goes to an idle CPU anywhere, else the least loaded: the kernel
//! balances forks over the whole machine (`sched_balance_find_dst_cpu`).

use super::model::SchedulerModel;

/// What placement may look at: which CPUs run something, and the model's queues.
pub(crate) struct CpuView<'a> {
    /// `busy[cpu]`: a task is running there.
    pub(crate) cpus: &'a [bool],
    pub(crate) model: &'a dyn SchedulerModel,
}

impl CpuView<'_> {
    fn idle(&self, cpu: usize) -> bool {
        !self.cpus[cpu] && self.model.queued(cpu).is_empty()
    }

    fn load(&self, cpu: usize) -> usize {
        usize::from(self.cpus[cpu]) + self.model.queued(cpu).len()
    }
}

/// The CPU for a waking task last on `prev`, allowed on `allowed` (sorted, not empty),
/// `prev`'s LLC being `llc`.
pub(crate) fn place(
    view: &CpuView<'_>,
    prev: usize,
    allowed: &[usize],
    llc: &[usize],
    new: bool,
) -> usize {
    let prev_ok = allowed.contains(&prev);
    if prev_ok && view.idle(prev) {
        return prev;
    }
    // Scan from the CPU after `prev`, wrapping, as the kernel's idle search does.
    let after_prev = |set: &[usize]| -> Vec<usize> {
        let split = set.partition_point(|&c| c <= prev);
        set[split..].iter().chain(&set[..split]).copied().collect()
    };
    let search: Vec<usize> = if new {
        after_prev(allowed)
    } else {
        let mut in_llc: Vec<usize> = llc
            .iter()
            .copied()
            .filter(|c| allowed.contains(c))
            .collect();
        in_llc.sort_unstable();
        after_prev(&in_llc)
    };
    if let Some(&c) = search.iter().find(|&&c| view.idle(c)) {
        return c;
    }
    if new {
        let start = if prev_ok { prev } else { allowed[0] };
        let mut order = vec![start];
        order.extend(search.iter().copied().filter(|&c| c != start));
        return order
            .into_iter()
            .min_by_key(|&c| view.load(c))
            .expect("allowed is not empty");
    }
    if prev_ok {
        prev
    } else {
        allowed[0]
    }
}
