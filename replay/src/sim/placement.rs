//! Where a waking task goes, the same for every model (the rule, a simplification
//! of `select_task_rq_fair` / `select_idle_sibling` and Project C's `select_task_rq`): its
//! previous CPU if idle, else an idle CPU sharing its last-level cache, else the previous
//! CPU. A new task (fork) goes to an idle CPU anywhere, else the least loaded: the kernel
//! balances forks over the whole machine (`sched_balance_find_dst_cpu`). And the idle pull:
//! which waiting task an idle CPU takes, a stand-in for the kernels' idle balancing.

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

/// The LLC of each CPU and the CPUs of each LLC, from the demand's groups; CPUs no group
/// names share one more.
pub(crate) fn llc_groups(groups: &[Vec<u32>], ncpu: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
    let mut llc_of = vec![usize::MAX; ncpu];
    let mut llcs: Vec<Vec<usize>> = Vec::new();
    for group in groups {
        let members: Vec<usize> = group
            .iter()
            .map(|&c| c as usize)
            .filter(|&c| c < ncpu && llc_of[c] == usize::MAX)
            .collect();
        for &c in &members {
            llc_of[c] = llcs.len();
        }
        if !members.is_empty() {
            llcs.push(members);
        }
    }
    let rest: Vec<usize> = (0..ncpu).filter(|&c| llc_of[c] == usize::MAX).collect();
    for &c in &rest {
        llc_of[c] = llcs.len();
    }
    if !rest.is_empty() {
        llcs.push(rest);
    }
    (llc_of, llcs)
}

/// What an idle `dst` pulls: (source CPU, task), the first task allowed on `dst` in the
/// queue of the busy CPU with the most waiting tasks (same LLC first on a tie, then the
/// lowest CPU number).
pub(crate) fn pull_choice(
    view: &CpuView<'_>,
    dst: usize,
    allowed: &[Vec<usize>],
    llc_of: &[usize],
) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None; // (score, src, task)
    for src in 0..view.cpus.len() {
        if src == dst || !view.cpus[src] {
            continue;
        }
        let queued = view.model.queued(src);
        let Some(&task) = queued.iter().find(|&&t| allowed[t].contains(&dst)) else {
            continue;
        };
        let score = queued.len() * 2 + usize::from(llc_of[src] == llc_of[dst]);
        if best.is_none_or(|(s, _, _)| score > s) {
            best = Some((score, src, task));
        }
    }
    best.map(|(_, src, task)| (src, task))
}
