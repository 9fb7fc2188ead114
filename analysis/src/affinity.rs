//! Which CPUs each task was allowed to run on: the one affinity model of the analysis.
//!
//! The kernel's scheduler events never say it (`sched_setaffinity` leaves no trace event), yet
//! every "could this wait have run elsewhere?" question needs it: idle-while-runnable
//! (`metrics/runqueue.rs`) and placement that cost a wait. So the model is filled from outside
//! the events, in this order of trust:
//!
//! 1. the recording: `schedtrace record` samples each task's `Cpus_allowed_list` from `/proc`
//!    and keeps it in the recording's sidecar ([`crate::recording`]), time-stamped in the
//!    trace's clock, so a task pinned half-way through is unpinned before and pinned after;
//! 2. `--affinity 'REGEX=CPULIST'` (repeatable): every task whose name matches, all the time
//!    (the first matching rule wins);
//! 3. nothing: [`Affinity::allowed`] answers `None` and the caller keeps its rule for an
//!    unknown set (every CPU), and says that it did (the report's `work_conservation.affinity`).
//!
//! A set that holds every CPU of the machine says nothing a `None` does not, and the
//! runqueue accounting is O(1) for `None` against O(|set|) for a set: [`Affinity::allowed`]
//! answers `None` for it once the CPU count is known ([`Affinity::set_cpu_count`]).

use ingest::topology::parse_cpulist;
use regex::Regex;
use rustc_hash::FxHashMap;
use std::fmt;

/// A set of CPU numbers, kept sorted and without repeats.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct CpuSet(Vec<u32>);

impl CpuSet {
    /// From any CPU numbers (sorted and deduplicated here).
    pub fn new(mut cpus: Vec<u32>) -> CpuSet {
        cpus.sort_unstable();
        cpus.dedup();
        CpuSet(cpus)
    }

    /// A kernel cpulist (`0-3,6`); None when malformed or empty.
    pub fn parse(text: &str) -> Option<CpuSet> {
        parse_cpulist(text)
            .filter(|c| !c.is_empty())
            .map(CpuSet::new)
    }

    pub fn contains(&self, cpu: u32) -> bool {
        self.0.binary_search(&cpu).is_ok()
    }

    /// The CPUs, in increasing order.
    pub fn cpus(&self) -> &[u32] {
        &self.0
    }

    /// Whether it holds every CPU `0..n`.
    pub fn covers(&self, n: u32) -> bool {
        self.0.len() >= n as usize && (0..n).all(|c| self.contains(c))
    }
}

impl fmt::Display for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cpulist(&self.0))
    }
}

impl fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuSet({self})")
    }
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

/// Where a task's allowed CPUs came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Sampled by `schedtrace record`.
    Recorded,
    /// An `--affinity` rule.
    Rule,
}

/// The allowed CPUs of every task the model knows (see the module doc for the order).
#[derive(Debug, Clone, Default)]
pub struct Affinity {
    /// Recorded: per pid (thread id), `(since_ns, set)` in time order.
    recorded: FxHashMap<i32, Vec<(u64, u32)>>,
    rules: Vec<(Regex, u32)>,
    sets: Vec<CpuSet>,
    /// CPUs of the machine, once known: a set covering them all is no constraint.
    cpu_count: Option<u32>,
}

/// A set's number in its [`Affinity`] (stable for the model's life).
pub type SetId = u32;

impl Affinity {
    /// Parses `--affinity` rules, each `REGEX=CPULIST` (split at the last `=`).
    pub fn from_rules(specs: &[String]) -> Result<Affinity, String> {
        let mut a = Affinity::default();
        for spec in specs {
            let Some((re, list)) = spec.rsplit_once('=') else {
                return Err(format!(
                    "--affinity {spec:?}: expected REGEX=CPULIST, e.g. 'mi-.*=1' or 'worker=0-3'"
                ));
            };
            let re = Regex::new(re)
                .map_err(|e| format!("--affinity {spec:?}: not a regular expression: {e}"))?;
            let set = CpuSet::parse(list).ok_or_else(|| {
                format!("--affinity {spec:?}: {list:?} is not a CPU list like 1 or 0-3,6")
            })?;
            let id = a.intern(set);
            a.rules.push((re, id));
        }
        Ok(a)
    }

    fn intern(&mut self, set: CpuSet) -> SetId {
        match self.sets.iter().position(|s| *s == set) {
            Some(i) => i as SetId,
            None => {
                self.sets.push(set);
                (self.sets.len() - 1) as SetId
            }
        }
    }

    /// Task `pid` was allowed `set` from `since_ns` on (samples may come in any order).
    pub fn record(&mut self, pid: i32, since_ns: u64, set: CpuSet) {
        let id = self.intern(set);
        let samples = self.recorded.entry(pid).or_default();
        let at = samples.partition_point(|&(t, _)| t <= since_ns);
        // A sample equal to the one before it adds nothing.
        if at > 0 && samples[at - 1].1 == id {
            return;
        }
        samples.insert(at, (since_ns, id));
    }

    /// The machine has `n` CPUs (from the trace's header or topology).
    pub fn set_cpu_count(&mut self, n: u32) {
        self.cpu_count = Some(n);
    }

    /// Whether the model knows nothing (no recording, no rule).
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty() && self.rules.is_empty()
    }

    /// Whether a recording filled it.
    pub fn has_recording(&self) -> bool {
        !self.recorded.is_empty()
    }

    /// Whether `--affinity` rules are in it.
    pub fn has_rules(&self) -> bool {
        !self.rules.is_empty()
    }

    /// The set with number `id`.
    pub fn set(&self, id: SetId) -> &CpuSet {
        &self.sets[id as usize]
    }

    /// The number of the `--affinity` rule that names `comm`, if any (cache it per name:
    /// it is a regular expression match).
    pub fn rule_for(&self, comm: &str) -> Option<SetId> {
        self.rules
            .iter()
            .find(|(re, _)| re.is_match(comm))
            .map(|&(_, id)| id)
    }

    /// What `pid` was allowed at `ts` by the recording: the last sample at or before `ts`,
    /// else its first sample (a task's mask before it was first seen is the one it was seen
    /// with: it is inherited at fork).
    pub fn recorded_at(&self, pid: i32, ts: u64) -> Option<SetId> {
        let samples = self.recorded.get(&pid)?;
        let at = samples.partition_point(|&(t, _)| t <= ts);
        Some(samples[at.saturating_sub(1)].1)
    }

    /// **The allowed CPUs of task `pid` (named `comm`) at `ts`**, and where they came from;
    /// `None` when unknown *or* when the set holds every CPU (no constraint). `rule` is the
    /// caller's cached [`Affinity::rule_for`] of the task's name.
    pub fn allowed(&self, pid: i32, rule: Option<SetId>, ts: u64) -> Option<(&CpuSet, Known)> {
        self.allowed_id(pid, rule, ts)
            .map(|(id, known)| (self.set(id), known))
    }

    /// The set `pid` was allowed at `ts` when known, every-CPU sets included (a rule that
    /// asks "may it use CPU c?" answers yes for those, where `allowed` says "no constraint").
    pub fn known_id(&self, pid: i32, rule: Option<SetId>, ts: u64) -> Option<(SetId, Known)> {
        match self.recorded_at(pid, ts) {
            Some(id) => Some((id, Known::Recorded)),
            None => Some((rule?, Known::Rule)),
        }
    }

    /// [`Affinity::allowed`] as the set's number (for a caller that keeps it).
    pub fn allowed_id(&self, pid: i32, rule: Option<SetId>, ts: u64) -> Option<(SetId, Known)> {
        let (id, known) = self.known_id(pid, rule, ts)?;
        match self.cpu_count {
            Some(n) if self.set(id).covers(n) => None,
            _ => Some((id, known)),
        }
    }

    /// The last set known for `pid` (the recording's last sample, else its rule), for the
    /// report's `tasks[].allowed_cpus`; every-CPU sets included.
    pub fn last(&self, pid: i32, rule: Option<SetId>) -> Option<&CpuSet> {
        let id = match self.recorded.get(&pid) {
            Some(samples) => samples.last()?.1,
            None => rule?,
        };
        Some(self.set(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_match_first() {
        let a = Affinity::from_rules(&["mi-.*=1".into(), "mi=0-1".into()]).unwrap();
        let rule = a.rule_for("mi-work0");
        assert_eq!(a.set(rule.unwrap()).to_string(), "1");
        assert_eq!(a.rule_for("bash"), None);
        assert!(Affinity::from_rules(&["nocpus".into()]).is_err());
        assert!(Affinity::from_rules(&["x=1-0".into()]).is_err());
        assert!(Affinity::from_rules(&["(=1".into()]).is_err());
        // The last `=` splits: a regex may hold one.
        let a = Affinity::from_rules(&["a=b=2,4-5".into()]).unwrap();
        assert_eq!(a.set(a.rule_for("a=b").unwrap()).to_string(), "2,4-5");
    }

    #[test]
    fn recorded_samples_are_looked_up_by_time() {
        let mut a = Affinity::default();
        a.record(7, 100, CpuSet::parse("0-1").unwrap());
        a.record(7, 300, CpuSet::parse("1").unwrap());
        a.record(7, 200, CpuSet::parse("0-1").unwrap()); // same as before: dropped
        let at = |a: &Affinity, ts| a.allowed(7, None, ts).map(|(s, k)| (s.to_string(), k));
        // Before the first sample: the first sample.
        assert_eq!(at(&a, 50), Some(("0-1".into(), Known::Recorded)));
        assert_eq!(at(&a, 299), Some(("0-1".into(), Known::Recorded)));
        assert_eq!(at(&a, 300), Some(("1".into(), Known::Recorded)));
        a.set_cpu_count(2);
        // Every CPU: no constraint.
        assert_eq!(at(&a, 150), None);
        assert_eq!(at(&a, 400), Some(("1".into(), Known::Recorded)));
        assert_eq!(a.last(7, None).unwrap().to_string(), "1");
        // The recording wins over a rule.
        let rule = Some(a.intern(CpuSet::parse("0").unwrap()));
        assert_eq!(a.allowed(7, rule, 400).unwrap().1, Known::Recorded);
        assert_eq!(a.allowed(8, rule, 400).unwrap().1, Known::Rule);
        assert_eq!(a.allowed(8, None, 400), None);
    }
}
