//! Cache affinity and placement (`docs/metrics.md` §6), per task.
//!
//! The hot path only counts CPU pairs (previous slice's CPU → CPU of this slice, and for
//! wakeups also waker's CPU → wakee's CPU) and runtime per CPU; the pairs are classified
//! (same CPU / SMT sibling / shared LLC / same node / remote node) when the report is
//! built, once the topology is known — the trace's own topology arrives with its
//! metadata, and a pair map is small next to the events.

use crate::stats::Stats;
use ingest::topology::Topology;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes the packed CPU-pair keys. Hand-written because the keys are small trusted
/// integers: SipHash's flooding resistance buys nothing, and no fast-hash crate is a
/// dependency yet. Multiply-fold: the high bits are mixed into the low ones that pick
/// the bucket.
#[derive(Default)]
pub(crate) struct PairHasher(u64);

impl Hasher for PairHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

pub(crate) type PairMap = HashMap<u64, u64, BuildHasherDefault<PairHasher>>;

/// What a counted pair is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub(crate) enum PairKind {
    /// Every switch-in after a known slice: previous slice's CPU → this CPU.
    Slice = 0,
    /// Switch-ins that end a wakeup wait: previous slice's CPU → this CPU.
    WakePrev = 1,
    /// Switch-ins that end a wakeup wait: the waker's CPU → this CPU.
    WakeWaker = 2,
}

fn key(kind: PairKind, from: u32, to: u32) -> u64 {
    (kind as u64) << 40 | (from as u64) << 20 | to as u64
}

fn unkey(key: u64) -> (u64, u32, u32) {
    (
        key >> 40,
        (key >> 20 & 0xfffff) as u32,
        (key & 0xfffff) as u32,
    )
}

#[derive(Debug, Clone, Default)]
pub(crate) struct TaskAffinity {
    runtime_by_cpu: Vec<u64>,
    /// Pairs of two different CPUs, by packed key.
    pairs: PairMap,
    /// Pairs of one CPU with itself, per [`PairKind`]: most slices and wakeups stay on
    /// their CPU, and such a pair is `SameCpu` whatever the topology, so which CPU it was
    /// never matters. A plain counter spares the hash-map probe on most switch-ins.
    same_cpu: [u64; 3],
    /// Wakeups where the waker's CPU is / is not the CPU the wakee ran on next.
    wakeups_local: u64,
    wakeups_remote: u64,
}

impl TaskAffinity {
    #[inline]
    pub(crate) fn add_runtime(&mut self, cpu: u32, ns: u64) {
        let i = cpu as usize;
        if self.runtime_by_cpu.len() <= i {
            self.runtime_by_cpu.resize(i + 1, 0);
        }
        self.runtime_by_cpu[i] += ns;
    }

    /// Whether the task has run on `cpu` (in the window).
    pub(crate) fn ran_on(&self, cpu: u32) -> bool {
        self.runtime_by_cpu
            .get(cpu as usize)
            .is_some_and(|&ns| ns > 0)
    }

    #[inline]
    pub(crate) fn count(&mut self, kind: PairKind, from: u32, to: u32) {
        if from == to {
            self.same_cpu[kind as usize] += 1;
            return;
        }
        *self.pairs.entry(key(kind, from, to)).or_insert(0) += 1;
    }

    /// A wakeup wait ended on `cpu`; `waker_cpu` is where the wakeup fired. Its latency,
    /// if timed, is the latency concern's ([`crate::metrics::latency::TaskSamples`]).
    pub(crate) fn wakeup_ended(&mut self, waker_cpu: u32, cpu: u32) {
        self.count(PairKind::WakeWaker, waker_cpu, cpu);
        if waker_cpu == cpu {
            self.wakeups_local += 1;
        } else {
            self.wakeups_remote += 1;
        }
    }

    /// Every counted pair of two different CPUs: (kind, from, to, count). The pairs of a
    /// CPU with itself are in [`TaskAffinity::same_cpu`].
    pub(crate) fn iter_pairs(&self) -> impl Iterator<Item = (u64, u32, u32, u64)> + '_ {
        self.pairs.iter().map(|(&k, &n)| {
            let (kind, from, to) = unkey(k);
            (kind, from, to, n)
        })
    }
}

/// Placement of CPU `b` relative to CPU `a`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    SameCpu,
    SameCore,
    SameLlc,
    SameNode,
    RemoteNode,
    Unknown,
}

impl Class {
    /// The class as the export names it.
    pub fn name(self) -> &'static str {
        match self {
            Class::SameCpu => "same_cpu",
            Class::SameCore => "same_core",
            Class::SameLlc => "same_llc",
            Class::SameNode => "same_node",
            Class::RemoteNode => "remote_node",
            Class::Unknown => "unknown",
        }
    }
}

/// Each CPU's core, LLC and node as dense indices, from a [`Topology`].
#[derive(Debug, Clone, Default)]
pub(crate) struct CpuMap {
    core: Vec<Option<u32>>,
    llc: Vec<Option<u32>>,
    /// NUMA node, else package (one package = one node when NUMA is not described).
    node: Vec<Option<u32>>,
    llc_count: usize,
}

impl CpuMap {
    pub(crate) fn new(t: &Topology) -> CpuMap {
        let has_nodes = t.cpus.iter().any(|p| p.node.is_some());
        CpuMap {
            core: t.cpus.iter().map(|p| p.core).collect(),
            llc: t.cpus.iter().map(|p| p.llc).collect(),
            node: t
                .cpus
                .iter()
                .map(|p| if has_nodes { p.node } else { p.package })
                .collect(),
            llc_count: t.llcs.len(),
        }
    }

    pub(crate) fn llc(&self, cpu: u32) -> Option<u32> {
        self.llc.get(cpu as usize).copied().flatten()
    }

    pub(crate) fn has_llcs(&self) -> bool {
        self.llc.iter().any(Option::is_some)
    }

    pub(crate) fn class(&self, a: u32, b: u32) -> Class {
        if a == b {
            return Class::SameCpu;
        }
        let same = |v: &Vec<Option<u32>>| match (v.get(a as usize), v.get(b as usize)) {
            (Some(Some(x)), Some(Some(y))) => Some(x == y),
            _ => None,
        };
        if same(&self.core) == Some(true) {
            return Class::SameCore;
        }
        match same(&self.llc) {
            Some(true) => return Class::SameLlc,
            None => return Class::Unknown,
            Some(false) => {}
        }
        match same(&self.node) {
            Some(true) => Class::SameNode,
            Some(false) => Class::RemoteNode,
            // Different LLCs, nodes not described: at least a cache-cold move.
            None => Class::SameNode,
        }
    }
}

/// `to` seen from `from` (without a topology only the same CPU is known).
pub(crate) fn classify(map: Option<&CpuMap>, from: u32, to: u32) -> Class {
    match map {
        Some(m) => m.class(from, to),
        None if from == to => Class::SameCpu,
        None => Class::Unknown,
    }
}

// ---- The report's placement fields: pairs classified with the topology, merged per group.

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

impl Placement {
    /// Wakeups placed on another CPU that shares the previous slice's LLC, SMT siblings
    /// included (the `llc` column).
    pub fn within_llc(&self) -> u64 {
        self.same_core + self.same_llc
    }

    /// Wakeups placed across an LLC boundary, on the same node or another (the `xllc`
    /// column).
    pub fn cross_llc(&self) -> u64 {
        self.same_node + self.remote_node
    }
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

impl std::ops::AddAssign<&MigrationClasses> for MigrationClasses {
    /// Merges the counts of another task.
    fn add_assign(&mut self, m: &MigrationClasses) {
        self.same_core += m.same_core;
        self.same_llc += m.same_llc;
        self.same_node += m.same_node;
        self.remote_node += m.remote_node;
        self.unknown += m.unknown;
    }
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

/// A count for a pair of CPUs (one cell of a sparse CPU × CPU matrix).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct CpuPair {
    pub from: u32,
    pub to: u32,
    pub count: u64,
}

/// The sparse waker CPU × wakee CPU and migration from × to matrices of the tasks' CPU
/// pairs (the diagonal of wakeups from the CPUs' local counts; a migration is never on
/// the diagonal).
pub(crate) fn cpu_pairs<'a>(
    tasks: impl Iterator<Item = &'a TaskAffinity>,
    cpus: &[crate::cpu::Cpu],
) -> (Vec<CpuPair>, Vec<CpuPair>) {
    use std::collections::BTreeMap;
    let mut wakeups = BTreeMap::new();
    let mut migrations = BTreeMap::new();
    for (cpu, c) in cpus.iter().enumerate() {
        if c.local_wakeups > 0 {
            wakeups.insert((cpu as u32, cpu as u32), c.local_wakeups);
        }
    }
    for affinity in tasks {
        for (kind, from, to, n) in affinity.iter_pairs() {
            let matrix = if kind == PairKind::WakeWaker as u64 {
                &mut wakeups
            } else if kind == PairKind::Slice as u64 {
                &mut migrations
            } else {
                continue;
            };
            *matrix.entry((from, to)).or_insert(0) += n;
        }
    }
    let cells = |m: BTreeMap<(u32, u32), u64>| {
        m.into_iter()
            .map(|((from, to), count)| CpuPair { from, to, count })
            .collect()
    };
    (cells(wakeups), cells(migrations))
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

/// A cpulist string (`0-3,6`) of sorted CPU numbers (defined beside the CPU sets).
pub use crate::affinity::cpulist;

/// A task's affinity row and its migrations by distance. `map`: the topology in use.
pub(crate) fn task_row(
    affinity: &TaskAffinity,
    map: Option<&CpuMap>,
) -> (TaskAffinityRow, MigrationClasses) {
    let a = affinity;
    let mut placement = Placement::default();
    let mut migrations = MigrationClasses::default();
    let (mut restarts, mut warm) = (0, 0);
    let class = |from, to| classify(map, from, to);
    // A CPU with itself is `SameCpu` under any topology: its counts are kept per kind only.
    let same_cpu = (0..a.same_cpu.len()).map(|k| (k as u64, a.same_cpu[k]));
    let pairs = a
        .iter_pairs()
        .map(|(kind, from, to, n)| (kind, class(from, to), n));
    for (kind, c, n) in same_cpu
        .map(|(kind, n)| (kind, Class::SameCpu, n))
        .chain(pairs)
    {
        if kind == PairKind::Slice as u64 {
            restarts += n;
            match c {
                Class::SameCpu => warm += n,
                Class::SameCore => migrations.same_core += n,
                Class::SameLlc => migrations.same_llc += n,
                Class::SameNode => migrations.same_node += n,
                Class::RemoteNode => migrations.remote_node += n,
                Class::Unknown => migrations.unknown += n,
            }
        } else if kind == PairKind::WakePrev as u64 {
            match c {
                Class::SameCpu => placement.same_cpu += n,
                Class::SameCore => placement.same_core += n,
                Class::SameLlc => placement.same_llc += n,
                Class::SameNode => placement.same_node += n,
                Class::RemoteNode => placement.remote_node += n,
                Class::Unknown => placement.unknown += n,
            }
        } else {
            match c {
                Class::SameCpu => placement.waker_cpu += n,
                Class::SameCore | Class::SameLlc => placement.waker_llc += n,
                Class::SameNode | Class::RemoteNode => placement.other += n,
                Class::Unknown => placement.waker_unknown += n,
            }
        }
    }
    let total: u64 = a.runtime_by_cpu.iter().sum();
    let top_cpu = a.runtime_by_cpu.iter().copied().max().unwrap_or(0);
    let top_llc = map.filter(|m| m.has_llcs()).map(|m| {
        let mut by_llc = vec![0u64; m.llc_count + 1];
        for (cpu, &ns) in a.runtime_by_cpu.iter().enumerate() {
            // CPUs outside the topology share one "unknown" bucket.
            let l = m.llc(cpu as u32).map_or(m.llc_count, |l| l as usize);
            if l < by_llc.len() {
                by_llc[l] += ns;
            }
        }
        by_llc.into_iter().max().unwrap_or(0)
    });
    let affinity = TaskAffinityRow {
        wakeups_local: a.wakeups_local,
        wakeups_remote: a.wakeups_remote,
        // Filled from the samples with the other statistics.
        wakeup_latency_local: Default::default(),
        wakeup_latency_remote: Default::default(),
        placement,
        restarts,
        warm_restarts: warm,
        warm_restart_share: share(warm, restarts),
        top_cpu_share: share(top_cpu, total),
        top_llc_share: top_llc.and_then(|n| share(n, total)),
    };
    (affinity, migrations)
}

/// Adds member `m`'s counts to a grouped row's. Runtime shares on the top CPU / LLC cannot
/// be merged from rows: null for groups.
pub(crate) fn merge(a: &mut TaskAffinityRow, b: &TaskAffinityRow) {
    a.wakeups_local += b.wakeups_local;
    a.wakeups_remote += b.wakeups_remote;
    a.placement += &b.placement;
    a.restarts += b.restarts;
    a.warm_restarts += b.warm_restarts;
    a.warm_restart_share = (a.restarts > 0).then(|| a.warm_restarts as f64 / a.restarts as f64);
    a.top_cpu_share = None;
    a.top_llc_share = None;
}

fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// Sums the tasks' affinity rows and migration classes into the system view.
pub(crate) fn system_affinity(
    rows: &[(TaskAffinityRow, MigrationClasses)],
    topology: bool,
) -> SystemAffinity {
    let mut s = SystemAffinity {
        topology,
        ..Default::default()
    };
    let (mut restarts, mut warm) = (0, 0);
    for (a, m) in rows {
        s.migrations_by_class += m;
        s.wakeups_local += a.wakeups_local;
        s.wakeups_remote += a.wakeups_remote;
        restarts += a.restarts;
        warm += a.warm_restarts;
        s.placement += &a.placement;
    }
    let c = &s.migrations_by_class;
    let all = c.same_core + c.same_llc + c.same_node + c.remote_node + c.unknown;
    s.cross_llc_share = if topology {
        share(c.same_node + c.remote_node, all)
    } else {
        None
    };
    s.warm_restart_share = share(warm, restarts);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arm Juno r0: LLCs {0,3,4,5} and {1,2}, one node, no SMT.
    fn juno() -> CpuMap {
        let json = r#"{"llcs": ["0,3-5", "1-2"], "nodes": {"0": "0-5"}, "packages": ["0-5"]}"#;
        CpuMap::new(&crate::topology_load::from_json(json).unwrap())
    }

    #[test]
    fn pairs_are_classified_by_the_topology() {
        let m = juno();
        assert_eq!(m.class(3, 3), Class::SameCpu);
        assert_eq!(m.class(0, 4), Class::SameLlc);
        assert_eq!(m.class(0, 1), Class::SameNode);
        assert_eq!(CpuMap::default().class(0, 1), Class::Unknown);
    }

    /// Slices 0→0, 0→4, 4→1 and a wakeup from CPU 2 that ran on 1 after a slice on 4.
    #[test]
    fn a_tasks_moves_and_wakeups_by_distance() {
        let mut a = TaskAffinity::default();
        a.count(PairKind::Slice, 0, 0);
        a.count(PairKind::Slice, 0, 4);
        a.count(PairKind::Slice, 4, 1);
        a.count(PairKind::WakePrev, 4, 1);
        a.wakeup_ended(2, 1);
        a.add_runtime(0, 30);
        a.add_runtime(1, 10);
        let (row, moves) = task_row(&a, Some(&juno()));
        assert_eq!((row.restarts, row.warm_restarts), (3, 1));
        assert_eq!((moves.same_llc, moves.same_node), (1, 1));
        assert_eq!((row.placement.same_node, row.placement.waker_llc), (1, 1));
        // 4 -> 1 crosses juno's LLCs, on the one node.
        assert_eq!(
            (row.placement.within_llc(), row.placement.cross_llc()),
            (0, 1)
        );
        assert_eq!((row.wakeups_local, row.wakeups_remote), (0, 1));
        assert_eq!(row.top_cpu_share, Some(0.75));
        assert_eq!(row.top_llc_share, Some(0.75));
        let sys = system_affinity(&[(row, moves)], true);
        assert_eq!(sys.cross_llc_share, Some(0.5));
    }
}
