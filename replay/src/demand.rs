//! The demand model: what a workload asked of the scheduler, with the scheduler's own
//! decisions taken out. A task is a sequence of CPU bursts and blocks; how long it waited
//! runnable, where it ran and who preempted it are the traced kernel's answers, not its
//! demand, so none of that is kept. A replay (rt-app, the simulator) asks the same again.
//!
//! Why bursts end only at blocking switch-outs: a preemption is the scheduler's decision,
//! so a burst preempted five times is still one piece of work (`perf sched replay` splits
//! it at every switch-out and replays the preemptions as sleeps, which is why it drifts).

use serde::{Deserialize, Serialize};

/// Version of the `--demand-json` layout (2: recorded policies, `policy_from`, `nice_from`,
/// `rt_priority`, `replayed_as`; 3: `wall_budget`).
pub const SCHEMA_VERSION: u32 = 3;

/// One trace's workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Demand {
    pub schema_version: u32,
    /// The trace, as given.
    pub source: String,
    pub kernel_release: Option<String>,
    /// The traced scheduler ("CFS", "EEVDF", "PDS", "BMQ", ...), from the release.
    pub scheduler: String,
    /// CPUs of the traced system.
    pub cpus: u32,
    /// CPU groups sharing a last-level cache, and where they came from.
    pub llcs: Vec<Vec<u32>>,
    pub topology_source: String,
    /// The kernel's tick rate, and where it came from.
    pub hz: Hz,
    /// The analysed window (trace clock, ns).
    pub start_ns: u64,
    pub end_ns: u64,
    /// One entry per task lifetime (a reused pid is a new task), in order of first sight;
    /// a task's `id` is its index here.
    pub tasks: Vec<TaskDemand>,
    /// What could not be told apart and was taken as something else.
    pub ledger: Ledger,
    /// The traced cost of a wakeup onto an idle CPU: the mean time from the wakeup to the
    /// task running, over the waits that ended on an idle CPU (the idle pieces of
    /// `wait_causes` / the waits `ended_by` idle, every task of the trace). The simulator
    /// delays such a wakeup by it; 0 when the trace has none.
    #[serde(default)]
    pub idle_wakeup_ns: u64,
    /// The traced cost of a wakeup preemption: the median time from the wakeup to the
    /// wakee running, over the wakeups that preempted the running task (`preempt_cost.rs`).
    /// The simulator switches that much after a model decides such a preemption (the
    /// waker runs on meanwhile); 0 when the trace has none.
    #[serde(default)]
    pub preempt_wakeup_ns: u64,
    /// The median time from a wakeup's `sched_waking` to its `sched_wakeup`
    /// (`waking_lag.rs`), where the kernel reads its clock for the wakeup: the simulator
    /// checks a wakeup's preemption that much after the wakeup, so the running task is
    /// charged up to there and a preempting wakee from there; 0 when the trace has no
    /// `sched_waking`.
    #[serde(default)]
    pub waking_wakeup_ns: u64,
}

/// A tick rate and how it was known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hz {
    pub value: u32,
    pub source: HzSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HzSource {
    /// `--hz`.
    Given,
    /// The recording's sidecar (`host.hz`: the kernel's `CONFIG_HZ`, or measured by `record`).
    Recorded,
    /// The traced kernel's switches of runnable tasks fall on one tick grid (`hz.rs`).
    Detected,
    /// Neither: the common distribution default.
    Assumed,
}

/// Where a task's allowed CPUs came from, most trusted first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CpusFrom {
    /// Sampled by `schedtrace record` (the trace's sidecar), at the end of each burst.
    Recorded,
    /// An `--affinity REGEX=CPULIST` rule matching its name.
    Given,
    /// The CPUs it ran on for at least 10 % of its runtime.
    #[default]
    Observed,
}

/// A task's scheduling policy: the kernel's own from the recording's sidecar, else the
/// class its traced priority tells (`policy.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Recorded `SCHED_OTHER`.
    Other,
    /// Recorded `SCHED_BATCH`.
    Batch,
    /// Recorded `SCHED_IDLE`.
    Idle,
    /// Recorded `SCHED_FIFO`.
    Fifo,
    /// Recorded `SCHED_RR`.
    Rr,
    /// Recorded `SCHED_DEADLINE`.
    Deadline,
    /// Recorded `SCHED_EXT`.
    Ext,
    /// Traced: SCHED_OTHER, SCHED_BATCH or SCHED_IDLE (the priority is `120 + nice` for
    /// all three); nice applies.
    Normal,
    /// Traced: SCHED_FIFO or SCHED_RR (the trace does not tell the two apart).
    RealTime,
    /// No priority traced or recorded, or one the kernel's scale does not map.
    Unknown,
}

/// Where a task's `policy` or `nice` came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedFrom {
    /// Sampled by `schedtrace record` (the trace's sidecar), in force at the task's end.
    Recorded,
    /// The task's last traced kernel priority.
    Traced,
    /// Neither knows it (`nice` of a real-time task; a task with no priority).
    #[default]
    None,
}

/// Where a task's policy and nice came from, and what the simulator runs it as.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sched {
    #[serde(default)]
    pub policy_from: SchedFrom,
    #[serde(default)]
    pub nice_from: SchedFrom,
    /// The real-time priority (1-99) of a `fifo`, `rr` or `real_time` task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rt_priority: Option<u32>,
    /// The policy the simulator runs a task as when it does not run the task's own
    /// (`policy.rs`): `SCHED_FIFO N` for `deadline` (N = 99) and `real_time`, `SCHED_OTHER
    /// at nice N` for `ext` and `unknown`; absent for the policies it runs as themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed_as: Option<String>,
}

/// One task lifetime.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDemand {
    pub id: usize,
    pub pid: i32,
    pub tgid: Option<i32>,
    pub comm: String,
    /// The last traced kernel priority (the kernel's own scale).
    pub prio: Option<i32>,
    /// nice, where it applies (the fair policies, `idle` included; not the real-time ones):
    /// recorded, else from `prio` when the scale maps.
    pub nice: Option<i32>,
    pub policy: Policy,
    /// Where `policy` and `nice` came from, and how the models run the policy.
    #[serde(flatten)]
    pub sched: Sched,
    /// The CPUs it may run on (`affinity.rs`), from its last burst on.
    pub cpus: Vec<u32>,
    /// Where `cpus` came from.
    #[serde(default)]
    pub cpus_from: CpusFrom,
    /// Its first bursts, which may run on any CPU: the task was held to `cpus` only after
    /// them (it pinned itself, or its recorded mask changed; `affinity.rs`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub free_bursts: u32,
    /// Who created it, when the fork was traced.
    pub fork: Option<Fork>,
    /// When it first wanted a CPU: its wakeup, or its first traced moment when it was
    /// already runnable or running.
    pub start_ns: u64,
    pub end: TaskEnd,
    /// Sum of the bursts: the analysis' runtime of the task.
    pub runtime_ns: u64,
    pub phases: Vec<Phase>,
    /// When its last burst first ran: a long last burst is replayed as running for the
    /// traced time from there to the task's end (`sim/wall_clock.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_burst_ran_ns: Option<u64>,
    /// Busy for a wall-clock time per burst, as the trace tells (`wall_budget.rs`): each
    /// burst but a wall-bounded last one is replayed as running until that time has passed
    /// from its first run, and then for its tail (`sim/engine`), not as its traced CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_budget: Option<WallBudget>,
}

/// A wall-clock budget per burst and what it was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallBudget {
    /// From a burst's first run to when it is done, the way to the sleep included: the
    /// earliest time its preempted bursts are seen done (`wall_budget.rs`).
    pub budget_ns: u64,
    /// The CPU a burst runs once its time is up (its way to the sleep): the median last
    /// run of the preempted bursts.
    pub tail_ns: u64,
    /// The preempted bursts read, and the most of them one budget fits (still busy at the
    /// end of their last run before the last resume, done by the end of their last run).
    pub preempted_bursts: u32,
    pub fitted: u32,
}

impl TaskDemand {
    /// The bursts' lengths, in order.
    pub fn bursts(&self) -> impl Iterator<Item = u64> + '_ {
        self.phases.iter().filter_map(|p| match p {
            Phase::Burst { ns } => Some(*ns),
            Phase::Block { .. } => None,
        })
    }

    /// The nice a fair model runs the task at: its nice, 0 when unknown (`policy.rs`).
    pub(crate) fn model_nice(&self) -> i32 {
        self.nice.unwrap_or(0)
    }

    /// The class and policy the simulator runs the task in (`policy.rs`).
    pub(crate) fn sim_class(&self) -> crate::policy::SimClass {
        crate::policy::sim_class(self.policy, self.nice, self.sched.rt_priority)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fork {
    /// The parent's task id, when the parent is a traced task.
    pub parent: Option<usize>,
    pub parent_pid: i32,
    pub at_ns: u64,
}

/// How a task's trace ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaskEnd {
    /// It exited.
    Exit { at_ns: u64 },
    /// Still running or runnable at the end of the trace.
    Running,
    /// Asleep at the end of the trace (a final block with no wakeup is not a phase).
    Asleep,
}

/// A piece of demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Phase {
    /// CPU time between two blocking switch-outs (preemptions inside it do not split it).
    Burst { ns: u64 },
    /// Off the CPU, not runnable, for `ns` in the traced run, until `wake`.
    Block { ns: u64, wake: Wake },
}

/// What ended a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Wake {
    /// Time alone: a timer or an interrupt (the waker was the idle task or a kernel
    /// thread), or no waker known. A replay sleeps the block's length.
    Timed {
        source: TimedBy,
        waker_pid: Option<i32>,
    },
    /// Another task: `task` woke it when that task had completed `after_bursts` bursts
    /// and run `into_ns` of the next (a pipe peer writing, then reading). A replay wakes
    /// it when the waker reaches that point, however long that takes.
    Dependency {
        task: usize,
        pid: i32,
        after_bursts: u32,
        into_ns: u64,
    },
}

/// Where a timed wakeup came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimedBy {
    /// An interrupt on an idle CPU (the waker was pid 0).
    Idle,
    /// A kernel thread (kworker, ksoftirqd, rcu, ...): a timer or deferred work.
    Kernel,
    /// A user task that is not the one that usually wakes this task (see `extract.rs`):
    /// an interrupt on its CPU, not its doing.
    Interrupt,
    /// The waker is not known (an untimed wakeup, a waker outside the trace).
    Unknown,
    /// The task's state was lost (lost events, a context-switch bug): not a real block.
    Lost,
}

/// Counts of what the extraction had to guess.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    /// Blocks whose end was not traced as a wakeup (lost events, unknown state).
    pub lost_blocks: u64,
    /// Blocks woken by a task that is not in the trace or not found at that time.
    pub unknown_wakers: u64,
    /// Tasks with no running time (only waits or sleeps traced).
    pub idle_tasks: u64,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
