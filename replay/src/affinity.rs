//! The CPUs a task may run on, from the most trusted source that knows the task (the
//! analysis' one affinity model, `analysis::affinity`):
//!
//! 1. **recorded**: the trace's sidecar (`schedtrace record` sampled each task's
//!    `Cpus_allowed_list`, time-stamped in the trace's clock);
//! 2. **given**: an `--affinity 'REGEX=CPULIST'` rule matching the task's name, all the time;
//! 3. **observed**: the CPUs it was seen running on for at least [`MIN_SHARE`] of its
//!    runtime, so that the start a task runs where it was forked, before it pins itself,
//!    does not count (3.3 % of `pp1-ping`'s runtime in the CFS `pp1` fixture). A free task
//!    spread thinner than that over many CPUs loses some. Exact for a pinned task, too
//!    narrow for a free one that happened to stay on one CPU: the replay then keeps it
//!    there, as the traced kernel did.
//!
//! The demand holds one set per task, from some burst on: its first [`free_bursts`] may run
//! on any CPU. Observed, those are the first bursts that ran on none of the allowed CPUs
//! (before the task pinned itself); held to the later CPU they would run one after another
//! there (the `nice` fixture's CFS identity replay: involuntary switches/s 46 % off with them
//! held, 43 % free).
//!
//! Recorded, a mask can change mid-run (a task pinning itself half-way). The kernel applies
//! a new mask at once, moving the task if it runs outside it, so a burst is held to the mask
//! in force at its *end*: for the usual change, a narrowing, that mask was allowed all along
//! the burst, where the one at its start would let the burst's rest run where the kernel
//! forbade it. The set is the last burst's mask; the bursts up to the last one that ended
//! under another mask are free. Two approximations: free bursts may use every CPU, not
//! only their own earlier mask (exact when that was every CPU, as before a pinning); and a
//! change is seen at the recorder's next sample of the task (at once when it came with an
//! `exec`, as after `taskset`; else up to the sample interval late), so a few bursts after
//! a self-pinning may still count free.

use std::collections::BTreeMap;

use analysis::affinity::{Affinity, SetId};

use crate::demand::CpusFrom;
use crate::segment::{RunPiece, Segmented};

/// Least share of a task's runtime on a CPU for the CPU to count as allowed.
const MIN_SHARE: f64 = 0.10;

/// A task's allowed CPUs in the demand: the set, where it came from, and how many of its
/// first bursts may run anywhere instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Allowed {
    pub(crate) cpus: Vec<u32>,
    pub(crate) from: CpusFrom,
    pub(crate) free_bursts: u32,
}

/// The allowed CPUs of task `pid` named `comm`, cut into `seg`, on a machine of
/// `cpu_count` CPUs: recorded, else given, else observed (the module doc).
pub(crate) fn allowed(
    known: Option<&Affinity>,
    pid: i32,
    comm: &str,
    seg: &Segmented,
    cpu_count: u32,
) -> Allowed {
    if let Some(a) = known {
        if let Some((set, free_bursts)) = recorded(a, pid, seg) {
            return Allowed {
                cpus: a.set(set).cpus().to_vec(),
                from: CpusFrom::Recorded,
                free_bursts,
            };
        }
        if let Some(set) = a.rule_for(comm) {
            return Allowed {
                cpus: a.set(set).cpus().to_vec(),
                from: CpusFrom::Given,
                free_bursts: 0,
            };
        }
    }
    let cpus = allowed_cpus(&seg.cpus, cpu_count);
    Allowed {
        free_bursts: free_bursts(&seg.runs, &cpus),
        cpus,
        from: CpusFrom::Observed,
    }
}

/// The recording's mask of `pid` at its last burst's end (at its start when it never ran),
/// and how many bursts come before the last one that ended under another mask; None when
/// the recording did not sample the task.
fn recorded(a: &Affinity, pid: i32, seg: &Segmented) -> Option<(SetId, u32)> {
    // Each burst's number and end: its last running interval's end.
    let mut ends: Vec<(u32, u64)> = Vec::new();
    for r in &seg.runs {
        match ends.last_mut() {
            Some(last) if last.0 == r.burst => last.1 = r.end_ns,
            _ => ends.push((r.burst, r.end_ns)),
        }
    }
    let masks: Vec<SetId> = ends
        .iter()
        .map(|&(_, end)| a.recorded_at(pid, end))
        .collect::<Option<_>>()?;
    let last = match masks.last() {
        Some(&m) => m,
        None => a.recorded_at(pid, seg.start_ns.min(seg.first_ns))?,
    };
    let free = masks
        .iter()
        .rposition(|&m| m != last)
        .map_or(0, |i| ends[i].0 + 1);
    Some((last, free))
}

/// Allowed CPUs from the running time per CPU; a task that never ran may run anywhere.
fn allowed_cpus(ran: &BTreeMap<u32, u64>, cpu_count: u32) -> Vec<u32> {
    let total: u64 = ran.values().sum();
    if total == 0 {
        return (0..cpu_count).collect();
    }
    ran.iter()
        .filter(|&(_, &ns)| ns as f64 >= MIN_SHARE * total as f64)
        .map(|(&cpu, _)| cpu)
        .collect()
}

/// How many of the first bursts ran on none of `allowed`: the bursts before the first one
/// with a running interval on an allowed CPU (or on an unknown one). A burst the task moved
/// itself out of midway is not free: counting those (ping's and pong's first in the CFS
/// `pp1` fixture, 11.3 ms on CPU 2 then 1.9 ms on CPU 1) fixed `pp1`'s identity but made
/// four other identity cells worse (docs/replay.md).
fn free_bursts(runs: &[RunPiece], allowed: &[u32]) -> u32 {
    runs.iter()
        .find(|r| r.cpu.is_none_or(|c| allowed.contains(&c)))
        .map_or(0, |r| r.burst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(burst: u32, into_ns: u64, cpu: u32) -> RunPiece {
        RunPiece {
            start_ns: 0,
            end_ns: 0,
            burst,
            into_ns,
            cpu: Some(cpu),
            ends_burst: true,
        }
    }

    #[test]
    fn bursts_before_pinning_are_free() {
        // Burst 0 on CPU 2, burst 1 begins on 3 and ends on the allowed 1 (not free), burst
        // 3 (back on 2) does not count: the task pinned itself before it.
        let runs = [
            run(0, 0, 2),
            run(1, 0, 3),
            run(1, 40, 1),
            run(2, 0, 1),
            run(3, 0, 2),
        ];
        assert_eq!(free_bursts(&runs, &[1]), 1);
        assert_eq!(free_bursts(&runs, &[2]), 0);
        assert_eq!(free_bursts(&runs, &[3]), 1);
        // Never began on an allowed CPU: nothing is free (no pinning point in the trace).
        assert_eq!(free_bursts(&runs, &[0]), 0);
        assert_eq!(free_bursts(&[], &[1]), 0);
    }

    fn cut(runs: Vec<RunPiece>) -> Segmented {
        let mut cpus = BTreeMap::new();
        for r in &runs {
            *cpus.entry(r.cpu.unwrap()).or_default() += r.end_ns - r.start_ns;
        }
        Segmented {
            pieces: Vec::new(),
            start_ns: runs.first().map_or(5, |r| r.start_ns),
            first_ns: runs.first().map_or(5, |r| r.start_ns),
            last_ns: runs.last().map_or(5, |r| r.end_ns),
            ending: crate::segment::Ending::Running,
            runtime_ns: cpus.values().sum(),
            cpus,
            runs,
        }
    }

    /// Burst 0 on CPU 2 (0-10), burst 1 on CPU 3 (20-30) then on 1 (40-50), bursts 2 and 3
    /// on CPU 1 (60-70, 80-90).
    fn four_bursts() -> Segmented {
        let at = |start_ns, end_ns, burst, into_ns, cpu, ends_burst| RunPiece {
            start_ns,
            end_ns,
            burst,
            into_ns,
            cpu: Some(cpu),
            ends_burst,
        };
        cut(vec![
            at(0, 10, 0, 0, 2, true),
            at(20, 30, 1, 0, 3, false),
            at(40, 50, 1, 10, 1, true),
            at(60, 70, 2, 0, 1, true),
            at(80, 90, 3, 0, 1, true),
        ])
    }

    fn recording(samples: &[(u64, &str)]) -> Affinity {
        let mut a = Affinity::from_rules(&["^sp$=0,2".into()]).unwrap();
        for &(ts, list) in samples {
            a.record(7, ts, analysis::affinity::CpuSet::parse(list).unwrap());
        }
        a
    }

    fn of(
        a: Option<&Affinity>,
        pid: i32,
        comm: &str,
        seg: &Segmented,
    ) -> (Vec<u32>, CpusFrom, u32) {
        let got = allowed(a, pid, comm, seg, 4);
        (got.cpus, got.from, got.free_bursts)
    }

    #[test]
    fn a_recorded_mask_holds_each_burst_from_its_end() {
        let seg = four_bursts();
        // Pinned to CPU 1 at 45, inside burst 1: that burst ends pinned, only burst 0 is free.
        let a = recording(&[(0, "0-3"), (45, "1")]);
        assert_eq!(
            of(Some(&a), 7, "sp", &seg),
            (vec![1], CpusFrom::Recorded, 1)
        );
        // Pinned at 55, between bursts 1 and 2: bursts 0 and 1 are free.
        let a = recording(&[(0, "0-3"), (55, "1")]);
        assert_eq!(
            of(Some(&a), 7, "sp", &seg),
            (vec![1], CpusFrom::Recorded, 2)
        );
        // Pinned from its first sample on: nothing free, though burst 0 ran on CPU 2 (the
        // recording is trusted over what was seen).
        let a = recording(&[(3, "1")]);
        assert_eq!(
            of(Some(&a), 7, "sp", &seg),
            (vec![1], CpusFrom::Recorded, 0)
        );
        // Widened at 85, during its last burst: the set is the wide one, held from burst 3.
        let a = recording(&[(0, "1"), (85, "0-3")]);
        assert_eq!(
            of(Some(&a), 7, "sp", &seg),
            (vec![0, 1, 2, 3], CpusFrom::Recorded, 3)
        );
        // 1, then 0-3 at 35, then 1 again at 65: free up to the last burst under another mask.
        let a = recording(&[(0, "1"), (35, "0-3"), (65, "1")]);
        assert_eq!(
            of(Some(&a), 7, "sp", &seg),
            (vec![1], CpusFrom::Recorded, 2)
        );
        // A task that never ran: its mask at its start.
        let a = recording(&[(0, "3"), (9, "2")]);
        assert_eq!(
            of(Some(&a), 7, "sp", &cut(Vec::new())),
            (vec![3], CpusFrom::Recorded, 0)
        );
    }

    #[test]
    fn a_rule_then_what_was_seen_stand_in_for_a_recording() {
        let seg = four_bursts();
        let a = recording(&[(0, "1")]);
        // Pid 8 was not sampled: the rule naming it, for every burst.
        assert_eq!(
            of(Some(&a), 8, "sp", &seg),
            (vec![0, 2], CpusFrom::Given, 0)
        );
        // Neither: the CPUs that held 10 % of its 50 ns (CPU 1: 30; CPU 2 and 3: 10 each),
        // bursts before the first one begun on them free.
        assert_eq!(
            of(Some(&a), 8, "spin", &seg),
            (vec![1, 2, 3], CpusFrom::Observed, 0)
        );
        let free_runner = cut(vec![four_bursts().runs[0], four_bursts().runs[3]]);
        assert_eq!(
            of(None, 7, "sp", &free_runner),
            (vec![1, 2], CpusFrom::Observed, 0)
        );
    }

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
