//! The one interface every scheduler model implements, and what a model says about itself.
//!
//! Why one trait shaped like `struct sched_class`: the engine (`engine/`) owns time, the
//! demand and the CPUs' current tasks; a model owns only its runqueues and its per-task
//! state, and answers the questions the kernel's core asks a class (enqueue, dequeue,
//! pick, tick, wakeup preemption). A model never sees the demand, so it cannot cheat by
//! knowing how long a burst will be.

use std::fmt;

/// Which model to run (`--as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModelName {
    Cfs,
    Eevdf,
    Pds,
    Bmq,
}

impl ModelName {
    pub const ALL: [ModelName; 4] = [
        ModelName::Cfs,
        ModelName::Eevdf,
        ModelName::Pds,
        ModelName::Bmq,
    ];

    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelName::Cfs => "cfs",
            ModelName::Eevdf => "eevdf",
            ModelName::Pds => "pds",
            ModelName::Bmq => "bmq",
        }
    }

    pub fn parse(s: &str) -> Option<ModelName> {
        ModelName::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s))
    }
}

impl fmt::Display for ModelName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a model is: its name, the kernel it follows, its parameters and feature flags with
/// the values in use. Written into the predicted trace and printed by `replay`.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    pub name: ModelName,
    /// The scheduler and the kernel release it follows ("CFS of Linux 6.1").
    pub follows: &'static str,
    /// The model's own version: bumped when its rules change, so a prediction names the
    /// rules that made it.
    pub version: u32,
    /// A kernel release string for the predicted trace: the readers take the scheduler
    /// (and PDS / BMQ's priority scale) from it, and "predicted" in it marks the run.
    pub release: &'static str,
    /// Parameters (ns or counts) and feature flags (0 / 1), by their kernel names.
    pub parameters: Vec<(&'static str, i64)>,
}

impl ModelInfo {
    /// One line: `eevdf v4 (EEVDF of Linux 6.12): sched_base_slice_ns=2100000 RUN_TO_PARITY=1 ...`.
    pub fn describe(&self) -> String {
        let mut s = format!("{} v{} ({})", self.name, self.version, self.follows);
        for (k, v) in &self.parameters {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

/// A fair-class task's policy: what the models do differently for SCHED_BATCH and
/// SCHED_IDLE (the real-time policies are a class above the models: `rt.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum FairPolicy {
    /// SCHED_OTHER (and a task whose policy is not known, or SCHED_EXT with no BPF
    /// scheduler modelled).
    #[default]
    Normal,
    Batch,
    Idle,
}

/// Why a task joins a runqueue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Enqueue {
    /// First wakeup of a forked task (`wake_up_new_task`).
    New,
    /// A wakeup after a block of `slept_ns`.
    Wakeup { slept_ns: u64 },
    /// Moved here by the idle pull while runnable.
    Migrated,
}

/// Why a task leaves a runqueue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dequeue {
    /// The running task blocks.
    Sleep,
    /// The task exits (the running one, or a queued one whose time is up).
    Exit,
    /// A queued (not running) task is pulled to another CPU.
    Migrate,
}

/// A scheduler policy over per-CPU runqueues. CPU numbers are indices `0..cpus`; task
/// numbers are the demand's task ids. Every call gets the current time: a model accounts
/// its running task's runtime itself (the kernel's `update_curr`).
pub(crate) trait SchedulerModel {
    fn info(&self) -> ModelInfo;

    /// Declares a task before it is first enqueued (its static nice).
    fn add_task(&mut self, task: usize, nice: i32, parent: Option<usize>);

    /// Gives an added task its fair policy (SCHED_OTHER until told).
    fn set_policy(&mut self, task: usize, policy: FairPolicy);

    /// `task` becomes runnable on `cpu`. A task the model still holds on a runqueue (EEVDF's
    /// delayed dequeue) is requeued where it is: the engine asks [`Self::still_queued_on`]
    /// first and wakes it there.
    fn enqueue(&mut self, cpu: usize, task: usize, now: u64, how: Enqueue);

    /// `task` leaves `cpu`'s runqueue: the running task blocking or exiting, or a queued one
    /// migrating.
    fn dequeue(&mut self, cpu: usize, task: usize, now: u64, how: Dequeue);

    /// The running task `task` stays runnable but gives the CPU up (preemption): back into
    /// the queue, before [`Self::pick_next`].
    fn put_prev(&mut self, cpu: usize, task: usize, now: u64);

    /// The task to run next on `cpu` (it leaves the queue and becomes the model's current),
    /// or None to idle.
    fn pick_next(&mut self, cpu: usize, now: u64) -> Option<usize>;

    /// The scheduler tick on a busy CPU; true asks for a reschedule.
    fn tick(&mut self, cpu: usize, now: u64) -> bool;

    /// `wakee` was just enqueued on busy `cpu`: true preempts the running task.
    fn check_preempt_wakeup(&mut self, cpu: usize, wakee: usize, now: u64) -> bool;

    /// When the running task's slice ends by a high-resolution timer (PDS / BMQ; mainline
    /// with HRTICK off: never), as an absolute time.
    fn slice_timer(&self, _cpu: usize) -> Option<u64> {
        None
    }

    /// The slice timer fired; true asks for a reschedule.
    fn slice_timer_fired(&mut self, _cpu: usize, _now: u64) -> bool {
        false
    }

    /// Runnable tasks on `cpu` other than the running one (what an idle CPU may pull), in
    /// the order the model would give them up.
    fn queued(&self, cpu: usize) -> Vec<usize>;

    /// The CPU whose runqueue still holds a blocked `task` (EEVDF's DELAY_DEQUEUE).
    fn still_queued_on(&self, _task: usize) -> Option<usize> {
        None
    }

    /// The kernel priority the model's trace events carry for `task` (its scale: mainline
    /// 120 + nice, PDS 172 + nice, BMQ 120 + nice + boost).
    fn prio(&self, task: usize) -> i32;
}

/// The kernel's weight of a nice level (`sched_prio_to_weight[]`), through the analysis'
/// own table.
pub(crate) fn weight_of_nice(nice: i32) -> u64 {
    let nice = nice.clamp(-20, 19);
    u64::from(
        analysis::PrioScale::Mainline
            .weight(120 + nice)
            .expect("every nice from -20 to 19 has a weight"),
    )
}

/// `WEIGHT_IDLEPRIO`: a SCHED_IDLE task's weight in CFS and EEVDF whatever its nice
/// (`set_load_weight`).
pub(crate) const WEIGHT_IDLEPRIO: u64 = 3;

/// `1 + ilog2(min(cpus, 8))`: mainline's default ("log") scaling of its latency tunables by
/// the online CPU count (`get_update_sysctl_factor`).
pub(crate) fn sysctl_factor(cpus: usize) -> u64 {
    let n = cpus.clamp(1, 8) as u64;
    1 + u64::from(n.ilog2())
}

/// `delta` ns of real time in the virtual time of a task of `weight` (`calc_delta_fair`,
/// exact division where the kernel uses a fixed-point inverse).
pub(crate) fn to_virtual(delta: u64, weight: u64) -> u64 {
    ((u128::from(delta) * 1024) / u128::from(weight.max(1))) as u64
}

/// The entry of `task` in a model's per-task table, grown to hold it (`add_task`).
pub(crate) fn slot<T: Default + Clone>(table: &mut Vec<T>, task: usize) -> &mut T {
    if table.len() <= task {
        table.resize(task + 1, T::default());
    }
    &mut table[task]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_and_weights() {
        // 1 CPU: 1 + log2(1) = 1; 4 CPUs: 3; 8 and more: 4.
        assert_eq!(sysctl_factor(1), 1);
        assert_eq!(sysctl_factor(4), 3);
        assert_eq!(sysctl_factor(64), 4);
        assert_eq!(weight_of_nice(0), 1024);
        assert_eq!(weight_of_nice(5), 335);
        // 3 ms of a nice-5 task: 3e6 * 1024 / 335 = 9_170_149 virtual ns.
        assert_eq!(to_virtual(3_000_000, 335), 9_170_149);
    }
}
