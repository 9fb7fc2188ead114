//! Cache affinity and placement (`docs/metrics.md` §6), per task.
//!
//! The hot path only counts CPU pairs (previous slice's CPU → CPU of this slice, and for
//! wakeups also waker's CPU → wakee's CPU) and runtime per CPU; the pairs are classified
//! (same CPU / SMT sibling / shared LLC / same node / remote node) when the report is
//! built, once the topology is known — the trace's own topology arrives with its
//! metadata, and a pair map is small next to the events.

use crate::stats::Samples;
use ingest::topology::Topology;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes the packed CPU-pair keys. Hand-written because the keys are small trusted
/// integers: SipHash's flooding resistance buys nothing, and no fast-hash crate is a
/// dependency yet. Multiply-fold: the high bits are mixed into the low ones that pick
/// the bucket.
#[derive(Default)]
pub struct PairHasher(u64);

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

pub type PairMap = HashMap<u64, u64, BuildHasherDefault<PairHasher>>;

/// What a counted pair is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum PairKind {
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
pub struct TaskAffinity {
    pub runtime_by_cpu: Vec<u64>,
    /// Pairs of two different CPUs, by packed key.
    pub pairs: PairMap,
    /// Pairs of one CPU with itself, per [`PairKind`]: most slices and wakeups stay on
    /// their CPU, and such a pair is `SameCpu` whatever the topology, so which CPU it was
    /// never matters. A plain counter spares the hash-map probe on most switch-ins.
    pub same_cpu: [u64; 3],
    /// Wakeups where the waker's CPU is / is not the CPU the wakee ran on next.
    pub wakeups_local: u64,
    pub wakeups_remote: u64,
    /// The task's wakeup latencies, split: each is kept once, and the whole set is their
    /// union (a second copy of every latency would cost 4 bytes per wakeup).
    pub latency_local: Samples,
    pub latency_remote: Samples,
}

impl TaskAffinity {
    #[inline]
    pub fn add_runtime(&mut self, cpu: u32, ns: u64) {
        let i = cpu as usize;
        if self.runtime_by_cpu.len() <= i {
            self.runtime_by_cpu.resize(i + 1, 0);
        }
        self.runtime_by_cpu[i] += ns;
    }

    #[inline]
    pub fn count(&mut self, kind: PairKind, from: u32, to: u32) {
        if from == to {
            self.same_cpu[kind as usize] += 1;
            return;
        }
        *self.pairs.entry(key(kind, from, to)).or_insert(0) += 1;
    }

    /// A wakeup wait ended on `cpu` after `latency` (None: untimed); `waker_cpu` is
    /// where the wakeup fired.
    pub fn wakeup_ended(&mut self, waker_cpu: u32, cpu: u32, latency: Option<(u64, u64)>) {
        self.count(PairKind::WakeWaker, waker_cpu, cpu);
        let local = waker_cpu == cpu;
        if local {
            self.wakeups_local += 1;
        } else {
            self.wakeups_remote += 1;
        }
        if let Some((value, at)) = latency {
            if local {
                self.latency_local.push(value, at);
            } else {
                self.latency_remote.push(value, at);
            }
        }
    }

    /// Every wakeup latency (local and remote).
    pub fn wakeup_latency_is_empty(&self) -> bool {
        self.latency_local.is_empty() && self.latency_remote.is_empty()
    }

    /// Every counted pair of two different CPUs: (kind, from, to, count). The pairs of a
    /// CPU with itself are in [`TaskAffinity::same_cpu`].
    pub fn iter_pairs(&self) -> impl Iterator<Item = (u64, u32, u32, u64)> + '_ {
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

/// Each CPU's core, LLC and node as dense indices, from a [`Topology`].
#[derive(Debug, Clone, Default)]
pub struct CpuMap {
    core: Vec<Option<u32>>,
    llc: Vec<Option<u32>>,
    /// NUMA node, else package (one package = one node when NUMA is not described).
    node: Vec<Option<u32>>,
    pub llc_count: usize,
}

impl CpuMap {
    pub fn new(t: &Topology) -> CpuMap {
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

    pub fn llc(&self, cpu: u32) -> Option<u32> {
        self.llc.get(cpu as usize).copied().flatten()
    }

    pub fn has_llcs(&self) -> bool {
        self.llc.iter().any(Option::is_some)
    }

    pub fn class(&self, a: u32, b: u32) -> Class {
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
