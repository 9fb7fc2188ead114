//! Runqueue depth per CPU and work conservation (`docs/metrics.md` §4): how many tasks
//! wait on each CPU's runqueue (time-weighted mean, max), and CPU time spent idle while
//! a task waited on another CPU of the same LLC, or anywhere.
//!
//! Each change costs O(1): a group (the whole system, or one LLC) keeps its number of
//! idle CPUs, of waiting tasks and of CPUs with a non-empty runqueue. An idle CPU counts
//! as "idle while runnable" when some *other* CPU of the group has a waiting task: all
//! idle CPUs do, except the single non-empty CPU when it holds every waiting task.
//!
//! That rule assumes every waiting task may run on every CPU. A task whose allowed CPUs are
//! known (`crate::affinity`: recorded, or `--affinity`) counts only on the idle CPUs it
//! may use: such a *constrained* wait adds one to `eligible[c]` of every other CPU `c` in its
//! set (O(|set|) per change), and a group keeps how many of its idle CPUs have a non-zero
//! `eligible` (`b`). The group's losing CPUs are then the union of the two rules': the
//! unconstrained waits' (counted over `free`, the runqueues without the constrained tasks)
//! and the constrained ones' — with no constrained wait, exactly the rule above.
//!
//! Every task that starts or stops waiting and every CPU that starts or stops idling
//! passes through here, so a CPU's counters sit together in one record (one bounds check,
//! one cache line) and a group already settled at the same instant is not settled again.

use crate::affinity::CpuSet;
use crate::scope::Scope;

/// Moves a CPU's `eligible` count by `delta`; returns the change of its group's `b` (idle
/// CPUs with a non-zero count) when the count crossed zero on an idle CPU.
fn step(count: &mut u32, delta: i32, idle: bool) -> Option<i32> {
    let before = *count;
    *count = before.saturating_add_signed(delta);
    let crossed = (before == 0) != (*count == 0);
    (crossed && idle).then_some(if *count > 0 { 1 } else { -1 })
}
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default)]
struct Group {
    idle: u32,
    waiting: u32,
    nonempty: u32,
    /// Sum of the indices of the non-empty CPUs: the index of the one when `nonempty` is 1.
    nonempty_sum: u64,
    since: u64,
    /// CPU-ns of idle-while-runnable.
    loss_ns: u64,
    /// Idle CPUs of the group that a constrained task waiting elsewhere in the group may
    /// use (`eligible` of the group's kind > 0).
    b: u32,
}

/// Which of a CPU's constrained counts a group reads: the system's, or its LLC's.
#[derive(Clone, Copy)]
enum Kind {
    System,
    Llc,
}

/// One CPU's runqueue and idle state.
#[derive(Debug, Clone, Default)]
struct CpuQueue {
    /// ∫ depth dt.
    area: u128,
    since: u64,
    depth: u32,
    max_depth: u32,
    /// The unconstrained waiting tasks (what the groups' rule counts).
    free: u32,
    /// Constrained tasks waiting on another CPU (of the same LLC) that allow it.
    eligible: u32,
    eligible_llc: u32,
    /// Its LLC group, when the topology gives one.
    llc: Option<u32>,
    idle: bool,
}

impl CpuQueue {
    #[inline]
    fn eligible(&self, kind: Kind) -> u32 {
        match kind {
            Kind::System => self.eligible,
            Kind::Llc => self.eligible_llc,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Runqueues {
    cpus: Vec<CpuQueue>,
    system: Group,
    llcs: Vec<Group>,
    llc_of: Vec<Option<u32>>,
}

impl Group {
    /// Idle CPUs that some waiting task of another CPU may use (`kind`: which constrained
    /// count of the CPUs is this group's).
    #[inline]
    fn losing_cpus(&self, cpus: &[CpuQueue], kind: Kind) -> u64 {
        if self.waiting == 0 {
            return self.b as u64;
        }
        // Every idle CPU but possibly one is lost to the unconstrained waits already.
        let mut n = self.idle as u64;
        if self.nonempty == 1 {
            let only = &cpus[self.nonempty_sum as usize];
            if only.idle && only.free == self.waiting && only.eligible(kind) == 0 {
                n -= 1;
            }
        }
        n
    }

    #[inline(always)]
    fn settle(&mut self, now: u64, cpus: &[CpuQueue], kind: Kind, scope: &Scope) {
        // Settled at this instant already (the other side of the same switch): no time to add.
        if self.since == now {
            return;
        }
        let n = self.losing_cpus(cpus, kind);
        // Saturating: a corrupt timestamp far ahead (a jump the ledger names) times the
        // waiting tasks may exceed u64 ns; the report then shows the ceiling, not a wrap.
        self.loss_ns = self
            .loss_ns
            .saturating_add(n.saturating_mul(scope.clip(self.since, now)));
        self.since = now;
    }

    /// A task starts (`delta` 1) or stops (-1) waiting on CPU `c` of the group, whose
    /// runqueue goes from `before` to `after` waiting tasks.
    #[inline]
    fn count_wait(&mut self, c: usize, delta: i32, before: u32, after: u32) {
        self.waiting = self.waiting.saturating_add_signed(delta);
        if before == 0 && after > 0 {
            self.nonempty += 1;
            self.nonempty_sum += c as u64;
        } else if before > 0 && after == 0 {
            self.nonempty -= 1;
            self.nonempty_sum -= c as u64;
        }
    }
}

impl Runqueues {
    /// `llc_of[cpu]` = the CPU's LLC (from the topology); empty without topology.
    pub(crate) fn set_llcs(&mut self, llc_of: Vec<Option<u32>>, count: usize) {
        self.llc_of = llc_of;
        self.llcs = vec![Group::default(); count];
        for c in 0..self.cpus.len() {
            self.cpus[c].llc = self.llc_of_cpu(c);
        }
    }

    /// CPU `cpu`'s LLC group, when the topology names one that exists.
    fn llc_of_cpu(&self, cpu: usize) -> Option<u32> {
        self.llc_of
            .get(cpu)
            .copied()
            .flatten()
            .filter(|&l| (l as usize) < self.llcs.len())
    }

    /// Makes room for `cpu` (the check inline: it runs at every wait's change).
    #[inline]
    fn grow(&mut self, cpu: usize) {
        if self.cpus.len() <= cpu {
            self.grow_to(cpu + 1);
        }
    }

    #[cold]
    fn grow_to(&mut self, n: usize) {
        for c in self.cpus.len()..n {
            let llc = self.llc_of_cpu(c);
            self.cpus.push(CpuQueue {
                llc,
                ..CpuQueue::default()
            });
        }
    }

    /// Brings the integrals of a CPU's groups (the system and its LLC `llc`) up to `now`
    /// before a change on the CPU.
    #[inline(always)]
    fn settle(&mut self, llc: Option<u32>, now: u64, scope: &Scope) {
        self.system.settle(now, &self.cpus, Kind::System, scope);
        if let Some(l) = llc {
            self.llcs[l as usize].settle(now, &self.cpus, Kind::Llc, scope);
        }
    }

    /// A task starts (`+1`) or stops (`-1`) waiting on `cpu`'s runqueue at `now`; `allowed`
    /// is the set of CPUs it may run on when known (the same set for its `-1` as for its
    /// `+1`), None when it may run anywhere or nobody knows.
    #[inline(always)]
    pub(crate) fn wait(
        &mut self,
        cpu: u32,
        delta: i32,
        now: u64,
        scope: &Scope,
        allowed: Option<&CpuSet>,
    ) {
        let c = cpu as usize;
        self.grow(c);
        if let Some(set) = allowed {
            if let Some(&top) = set.cpus().last() {
                self.grow(top as usize);
            }
        }
        // The LLC is looked up once, for settling its group and for counting in it.
        let llc = self.cpus[c].llc;
        self.settle(llc, now, scope);
        let q = &mut self.cpus[c];
        if q.since != now {
            if scope.cpu(cpu) {
                q.area += q.depth as u128 * scope.clip(q.since, now) as u128;
            }
            q.since = now;
        }
        let after = q.depth.saturating_add_signed(delta);
        q.depth = after;
        if scope.contains(now) {
            q.max_depth = q.max_depth.max(after);
        }
        let Some(set) = allowed else {
            let (before, after) = (q.free, q.free.saturating_add_signed(delta));
            q.free = after;
            self.system.count_wait(c, delta, before, after);
            if let Some(l) = llc {
                self.llcs[l as usize].count_wait(c, delta, before, after);
            }
            return;
        };
        // A constrained wait: only the other CPUs of its set may take it. The system group
        // and this CPU's LLC group were settled above; no other group's count changes.
        for &other in set.cpus() {
            let o = other as usize;
            if o == c {
                continue;
            }
            let q = &mut self.cpus[o];
            if let Some(b) = step(&mut q.eligible, delta, q.idle) {
                self.system.b = self.system.b.saturating_add_signed(b);
            }
            if let Some(l) = llc.filter(|&l| q.llc == Some(l)) {
                if let Some(b) = step(&mut q.eligible_llc, delta, q.idle) {
                    let g = &mut self.llcs[l as usize];
                    g.b = g.b.saturating_add_signed(b);
                }
            }
        }
    }

    /// `cpu` becomes idle (runs pid 0) or stops being idle at `now`.
    #[inline]
    pub(crate) fn set_idle(&mut self, cpu: u32, idle: bool, now: u64, scope: &Scope) {
        let c = cpu as usize;
        self.grow(c);
        if self.cpus[c].idle == idle {
            return;
        }
        self.idle_changed(c, idle, now, scope);
    }

    fn idle_changed(&mut self, c: usize, idle: bool, now: u64, scope: &Scope) {
        let llc = self.cpus[c].llc;
        self.settle(llc, now, scope);
        let q = &mut self.cpus[c];
        q.idle = idle;
        let eligible = [q.eligible > 0, q.eligible_llc > 0];
        let groups =
            std::iter::once(&mut self.system).chain(llc.map(|l| &mut self.llcs[l as usize]));
        for (g, eligible) in groups.zip(eligible) {
            let d: i32 = if idle { 1 } else { -1 };
            g.idle = g.idle.saturating_add_signed(d);
            if eligible {
                g.b = g.b.saturating_add_signed(d);
            }
        }
    }

    /// Closes every integral at `end`.
    pub(crate) fn finish(&mut self, end: u64, scope: &Scope) {
        self.system.settle(end, &self.cpus, Kind::System, scope);
        for g in &mut self.llcs {
            g.settle(end, &self.cpus, Kind::Llc, scope);
        }
        for (c, q) in self.cpus.iter_mut().enumerate() {
            if scope.cpu(c as u32) {
                q.area += q.depth as u128 * scope.clip(q.since, end) as u128;
            }
            q.since = end;
        }
    }

    /// Idle-while-runnable CPU-ns: anywhere, and within the same LLC (None without LLCs).
    pub(crate) fn loss_ns(&self) -> (u64, Option<u64>) {
        let llc = (!self.llcs.is_empty()).then(|| self.llcs.iter().map(|g| g.loss_ns).sum());
        (self.system.loss_ns, llc)
    }

    /// Per LLC idle-while-runnable CPU-ns.
    pub(crate) fn loss_by_llc(&self) -> Vec<u64> {
        self.llcs.iter().map(|g| g.loss_ns).collect()
    }

    pub(crate) fn max_depth(&self, cpu: u32) -> u32 {
        self.cpus.get(cpu as usize).map_or(0, |q| q.max_depth)
    }

    pub(crate) fn area(&self, cpu: u32) -> u128 {
        self.cpus.get(cpu as usize).map_or(0, |q| q.area)
    }
}

// ---- The report's runqueue and work-conservation fields.

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
    /// Which CPUs the waiting tasks were taken to be allowed (absent from reports written
    /// before it existed).
    #[serde(default)]
    pub affinity: AffinityUse,
}

/// Where the allowed CPUs that idle-while-runnable used came from, and, for the tasks
/// without, which of them look pinned (docs/metrics.md §4).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct AffinityUse {
    /// `recorded` (the recording's sidecar), `--affinity`, both (`recorded, --affinity`), or
    /// `unknown` (every waiting task counted on every idle CPU).
    pub source: String,
    /// Tasks in the report whose allowed CPUs were known.
    pub tasks_known: u64,
    /// Tasks of unknown affinity that look pinned: every slice on one CPU since some time
    /// (at least [`PINNED_MIN_SLICES`]) while they waited (at least 1 ms in all) and
    /// CPUs idled with tasks waiting; the longest waits first, at most [`PINNED_KEPT`].
    /// `--affinity 'COMM=CPU'` settles whether they were.
    #[serde(default)]
    pub looks_pinned: Vec<LooksPinned>,
}

/// Slices on one CPU in a row before a task of unknown affinity "looks pinned".
pub const PINNED_MIN_SLICES: u64 = 20;
/// Tasks named in `looks_pinned`.
pub const PINNED_KEPT: usize = 10;

/// A task of unknown affinity whose slices all ran on one CPU since `since_ns`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct LooksPinned {
    pub pid: i32,
    pub comm: String,
    pub cpu: u32,
    pub slices: u64,
    pub since_ns: u64,
    /// Its whole sched delay (wakeup latency and preemption wait).
    pub sched_delay_ns: u64,
}

impl AffinityUse {
    /// From the source, the number of tasks known, and the candidates (any order) with the
    /// system's idle-while-runnable time: no idle CPU while tasks waited, no suspect.
    pub(crate) fn new(
        source: &str,
        tasks_known: u64,
        mut candidates: Vec<LooksPinned>,
        idle_while_runnable_ns: u64,
    ) -> AffinityUse {
        candidates.retain(|c| {
            c.slices >= PINNED_MIN_SLICES
                && c.sched_delay_ns >= 1_000_000
                && idle_while_runnable_ns > 0
        });
        candidates.sort_by(|a, b| {
            b.sched_delay_ns
                .cmp(&a.sched_delay_ns)
                .then(a.pid.cmp(&b.pid))
        });
        candidates.truncate(PINNED_KEPT);
        AffinityUse {
            source: source.to_string(),
            tasks_known,
            looks_pinned: candidates,
        }
    }
}

/// Runqueue depth of one CPU (§4): waiting tasks, time-weighted mean and max.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Runqueue {
    pub mean_depth: f64,
    pub max_depth: u32,
}

impl Runqueues {
    /// CPU `cpu`'s runqueue row over a window of `len` ns.
    pub(crate) fn row(&self, cpu: u32, len: u64) -> Runqueue {
        Runqueue {
            mean_depth: if len > 0 {
                self.area(cpu) as f64 / len as f64
            } else {
                0.0
            },
            max_depth: self.max_depth(cpu),
        }
    }

    /// Work conservation over `capacity_ns` (window × CPUs); `llcs` are the LLCs' cpulists
    /// (empty without topology).
    pub(crate) fn work_conservation(
        &self,
        capacity_ns: f64,
        llcs: Vec<String>,
    ) -> WorkConservation {
        let (any, llc) = self.loss_ns();
        WorkConservation {
            idle_while_runnable_ns: any,
            idle_while_runnable_llc_ns: llc,
            idle_while_runnable_share: if capacity_ns > 0.0 {
                any as f64 / capacity_ns
            } else {
                0.0
            },
            by_llc: llcs
                .into_iter()
                .zip(self.loss_by_llc())
                .map(|(cpus, ns)| LlcLoss {
                    cpus,
                    idle_while_runnable_ns: ns,
                })
                .collect(),
            affinity: AffinityUse::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn everything() -> Scope {
        Scope::new(None, None)
    }

    /// CPU 1 idles from 0 while a task waits on CPU 0 from 10 to 30: 20 ns lost.
    #[test]
    fn idle_while_another_cpu_has_a_waiting_task() {
        let s = everything();
        let mut rq = Runqueues::default();
        rq.set_idle(1, true, 0, &s);
        rq.wait(0, 1, 10, &s, None);
        rq.wait(0, -1, 30, &s, None);
        rq.finish(100, &s);
        assert_eq!(rq.loss_ns(), (20, None));
        let row = rq.row(0, 100);
        assert_eq!((row.mean_depth, row.max_depth), (0.2, 1));
        assert_eq!(
            rq.work_conservation(200.0, vec![])
                .idle_while_runnable_share,
            0.1
        );
    }

    /// An idle CPU whose own runqueue holds every waiting task is not "idle while runnable
    /// elsewhere" (the task will run there).
    #[test]
    fn the_waiting_tasks_own_cpu_does_not_count() {
        let s = everything();
        let mut rq = Runqueues::default();
        rq.set_idle(0, true, 0, &s);
        rq.wait(0, 1, 10, &s, None);
        rq.finish(50, &s);
        assert_eq!(rq.loss_ns().0, 0);
    }

    #[test]
    fn llc_groups_count_only_their_own_cpus() {
        let s = everything();
        let mut rq = Runqueues::default();
        rq.set_llcs(vec![Some(0), Some(0), Some(1)], 2);
        rq.set_idle(1, true, 0, &s);
        rq.set_idle(2, true, 0, &s);
        rq.wait(0, 1, 0, &s, None);
        rq.finish(10, &s);
        // Anywhere: CPUs 1 and 2 idle 10 ns each; within the LLC only CPU 1.
        assert_eq!(rq.loss_ns(), (20, Some(10)));
        assert_eq!(rq.loss_by_llc(), vec![10, 0]);
    }

    /// Two tasks pinned to CPU 1 (one runs, one waits) while CPU 0 idles: no loss, where the
    /// unconstrained rule counts CPU 0 the whole time.
    #[test]
    fn a_pinned_wait_does_not_count_the_cpus_it_may_not_use() {
        let s = everything();
        let one = CpuSet::new(vec![1]);
        let both = CpuSet::new(vec![0, 1]);
        let mut rq = Runqueues::default();
        rq.set_idle(0, true, 0, &s);
        rq.wait(1, 1, 10, &s, Some(&one));
        rq.wait(1, -1, 30, &s, Some(&one));
        assert_eq!(rq.loss_ns().0, 0);
        // A task allowed both CPUs waits on 1 from 40 to 50: CPU 0 counts.
        rq.wait(1, 1, 40, &s, Some(&both));
        // CPU 0 stops idling at 45, idles again at 47.
        rq.set_idle(0, false, 45, &s);
        rq.set_idle(0, true, 47, &s);
        rq.wait(1, -1, 50, &s, Some(&both));
        rq.finish(100, &s);
        assert_eq!(rq.loss_ns().0, 5 + 3);
    }

    /// Constrained and unconstrained waits together: the union of the idle CPUs either may use.
    #[test]
    fn constrained_and_free_waits_count_each_idle_cpu_once() {
        let s = everything();
        let mut rq = Runqueues::default();
        rq.set_llcs(vec![Some(0), Some(0), Some(0)], 1);
        rq.set_idle(0, true, 0, &s);
        rq.set_idle(2, true, 0, &s);
        // A free task waits on CPU 0 (idle: its own runqueue, so only CPU 2 counts) ...
        rq.wait(0, 1, 0, &s, None);
        // ... and from 10 a task allowed CPUs 0-1 waits on CPU 1: CPU 0 counts too.
        rq.wait(1, 1, 10, &s, Some(&CpuSet::new(vec![0, 1])));
        rq.finish(20, &s);
        // CPU 2: 20 ns; CPU 0: 10 ns (from 10).
        assert_eq!(rq.loss_ns(), (30, Some(30)));
    }
}
