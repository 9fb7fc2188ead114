//! Report fields of the scheduler metrics of `docs/metrics.md` §4–7 (wakeup preemption,
//! fairness, cache affinity and placement, work conservation, runqueue depth). JSON
//! paths: `/work/notes/system-json.md`; every field is optional on input so that older
//! reports still load. Field names are a contract: add, never rename.

use crate::stats::Stats;
use serde::{Deserialize, Serialize};

/// Per task: wakeup preemptions caused (as the wakee) and suffered (as the victim).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Preemption {
    pub caused: u64,
    pub suffered: u64,
}

/// Per task fairness (§7); absent for tasks that never competed (RT, outside `--fair-set`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct TaskFairness {
    /// Weight from the nice-to-weight table (the last one it competed with).
    pub weight: u32,
    /// Fluid-share service it was entitled to.
    pub entitlement_ns: f64,
    /// Running time while competing.
    pub runtime_ns: u64,
    /// runtime / entitlement (1.0 = fair); null when the entitlement is 0.
    pub ratio: Option<f64>,
    pub max_abs_lag_ns: f64,
    /// When the largest lag was reached; null when the lag never left 0.
    #[serde(default)]
    pub max_abs_lag_at_ns: Option<u64>,
}

/// Wakeup placement counts (§6): relative to the previous slice's CPU, then relative to
/// the waker's CPU. `unknown`: no topology for a pair of different CPUs.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Placement {
    pub same_cpu: u64,
    pub same_core: u64,
    pub same_llc: u64,
    pub same_node: u64,
    pub remote_node: u64,
    pub unknown: u64,
    pub waker_cpu: u64,
    pub waker_llc: u64,
    pub other: u64,
    pub waker_unknown: u64,
}

impl std::ops::AddAssign<&Placement> for Placement {
    /// Merges the counts of another task or group.
    fn add_assign(&mut self, q: &Placement) {
        self.same_cpu += q.same_cpu;
        self.same_core += q.same_core;
        self.same_llc += q.same_llc;
        self.same_node += q.same_node;
        self.remote_node += q.remote_node;
        self.unknown += q.unknown;
        self.waker_cpu += q.waker_cpu;
        self.waker_llc += q.waker_llc;
        self.other += q.other;
        self.waker_unknown += q.waker_unknown;
    }
}

/// Per task cache affinity (§6).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TaskAffinityRow {
    /// Wakeups whose waker ran on the CPU the wakee ran on next / on another CPU.
    pub wakeups_local: u64,
    pub wakeups_remote: u64,
    pub wakeup_latency_local: Stats,
    pub wakeup_latency_remote: Stats,
    pub placement: Placement,
    /// Switch-ins after a known slice, and those on the same CPU as that slice.
    pub restarts: u64,
    pub warm_restarts: u64,
    pub warm_restart_share: Option<f64>,
    /// Share of runtime on the most used CPU / LLC (LLC null without topology).
    pub top_cpu_share: Option<f64>,
    pub top_llc_share: Option<f64>,
}

/// Migrations (switch-ins on another CPU than the previous slice's) by distance.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct MigrationClasses {
    pub same_core: u64,
    pub same_llc: u64,
    pub same_node: u64,
    pub remote_node: u64,
    pub unknown: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Triple {
    pub waker: String,
    pub wakee: String,
    pub victim: String,
    pub count: u64,
    /// Times of its first and last wakeup preemption.
    #[serde(default)]
    pub first_ns: u64,
    #[serde(default)]
    pub last_ns: u64,
}

/// A count for a pair of CPUs (one cell of a sparse CPU × CPU matrix).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct CpuPair {
    pub from: u32,
    pub to: u32,
    pub count: u64,
}

/// System-wide wakeup preemption (§5).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SystemPreemption {
    pub count: u64,
    pub per_sec: f64,
    /// Wakeups whose runqueue CPU ran another task at the wakeup.
    pub busy_target_wakeups: u64,
    /// count / busy_target_wakeups; null when there were none.
    pub ratio_busy_target: Option<f64>,
    /// The most frequent (waker, wakee, victim) names, most first.
    pub top_triples: Vec<Triple>,
    /// Every (waker, wakee, victim) triple, in the same order.
    #[serde(default)]
    pub triples: Vec<Triple>,
}

/// Short-term Jain's index over consecutive windows of `window_ns`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct ShortTermFairness {
    pub window_ns: u64,
    /// Complete windows with at least two competing tasks.
    pub windows: u64,
    pub mean: Option<f64>,
    pub min: Option<f64>,
}

/// System-wide fairness (§7).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SystemFairness {
    /// Which tasks compete: every non-RT task, or the `--fair-set`.
    pub competing: String,
    /// How prio maps to nice for this kernel.
    pub prio_scale: String,
    /// Tasks with an entitlement.
    pub tasks: u64,
    /// Jain's index of the fairness ratios of all competing tasks.
    pub jain: Option<f64>,
    pub short_term: Vec<ShortTermFairness>,
    pub max_abs_lag_ns: f64,
}

/// System-wide cache affinity (§6).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SystemAffinity {
    /// False without topology: only CPU-level numbers (same CPU, local/remote) are known.
    pub topology: bool,
    pub migrations_by_class: MigrationClasses,
    /// Cross-LLC migrations / all migrations; null without topology or migrations.
    pub cross_llc_share: Option<f64>,
    pub wakeups_local: u64,
    pub wakeups_remote: u64,
    pub warm_restart_share: Option<f64>,
    pub placement: Placement,
    /// Wakeups by the CPU the waker ran on (`from`) and the CPU the wakee then ran on
    /// (`to`), non-zero cells in (from, to) order.
    #[serde(default)]
    pub wakeup_cpu_pairs: Vec<CpuPair>,
    /// Migrations (switch-ins on another CPU than the previous slice's) from × to.
    #[serde(default)]
    pub migration_cpu_pairs: Vec<CpuPair>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct LlcLoss {
    /// The LLC's CPUs (cpulist).
    pub cpus: String,
    pub idle_while_runnable_ns: u64,
}

/// Work conservation (§4): CPU time idle while a task waited elsewhere.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct WorkConservation {
    /// CPU-ns a CPU was idle while a task waited on another CPU (anywhere).
    pub idle_while_runnable_ns: u64,
    /// The same within an LLC; null without topology.
    pub idle_while_runnable_llc_ns: Option<u64>,
    /// idle_while_runnable_ns / (window × CPUs).
    pub idle_while_runnable_share: f64,
    #[serde(default)]
    pub by_llc: Vec<LlcLoss>,
}

/// Runqueue depth of one CPU (§4): waiting tasks, time-weighted mean and max.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Runqueue {
    pub mean_depth: f64,
    pub max_depth: u32,
}

/// The topology the affinity metrics used.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TopologyInfo {
    /// "trace", "file PATH", "host".
    pub source: String,
    /// CPU groups as cpulists.
    pub cores: Vec<String>,
    pub llcs: Vec<String>,
    pub nodes: Vec<String>,
}

/// A cpulist string (`0-3,6`) of sorted CPU numbers.
pub fn cpulist(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    parts.join(",")
}
