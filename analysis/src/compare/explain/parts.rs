//! One repeat's waits of a set of tasks, split into the parts `explain` compares: the
//! kinds `enqueue`, `idle`, `unknown`, and `behind` per occupant role (the occupant's name
//! turned into a role key as the task table matches tasks). Read from the task rows'
//! `wait_causes` (report schema 3).

use super::model::{LongestMix, MixOccupant};
use crate::compare::matching::Matching;
use crate::compare::ReportSource;
use crate::report::{PieceKind, WaitCauses};
use std::collections::BTreeMap;

/// The role of the occupants a task row did not list one by one (its "others" row).
pub(crate) const OTHERS: &str = "(others)";

/// A part of a wait: a kind, and for `behind` the occupant's role.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Part {
    Enqueue,
    Idle,
    Behind(String),
    Unknown,
}

impl Part {
    pub(crate) fn kind(&self) -> PieceKind {
        match self {
            Part::Enqueue => PieceKind::Enqueue,
            Part::Idle => PieceKind::Idle,
            Part::Behind(_) => PieceKind::Behind,
            Part::Unknown => PieceKind::Unknown,
        }
    }
}

/// One repeat's parts of a set of tasks.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    /// ns per part; they add up to the tasks' `sched_delay.sum_ns`.
    pub ns: BTreeMap<Part, i128>,
    /// The occupant roles' task names.
    pub comms: BTreeMap<String, Vec<String>>,
    /// The longest wait of the set.
    pub longest: Option<LongestMix>,
}

/// The parts of the task rows at `indices` of `report`; `None` when the report does not
/// split its waits or a row's split cannot be read.
pub(crate) fn read<R: ReportSource>(
    report: &R,
    indices: &[usize],
    m: &Matching,
    path: &str,
) -> Option<Parts> {
    if !report.splits_waits() {
        return None;
    }
    let rows = report.tasks();
    let mut out = Parts::default();
    for &i in indices {
        let row = rows.get(i)?;
        let w = R::task_wait_causes(row)?;
        let mut add = |part: Part, ns: u64| {
            if ns > 0 {
                *out.ns.entry(part).or_default() += i128::from(ns);
            }
        };
        add(Part::Enqueue, w.enqueue_ns);
        add(Part::Idle, w.idle_ns);
        add(Part::Unknown, w.unknown_ns);
        let mut listed = 0u64;
        for b in &w.behind {
            let role = match b.pid {
                Some(_) => m.role(&b.comm),
                None => OTHERS.to_string(),
            };
            if b.pid.is_some() {
                let names = out.comms.entry(role.clone()).or_default();
                if !names.contains(&b.comm) {
                    names.push(b.comm.clone());
                }
            }
            add(Part::Behind(role), b.ns);
            listed = listed.saturating_add(b.ns);
        }
        // The listed occupants add up to behind_ns; should a row not, the rest is
        // counted with the unlisted ones so that the parts still add up to the wait.
        add(
            Part::Behind(OTHERS.to_string()),
            w.behind_ns.saturating_sub(listed),
        );
        if let Some(l) = &w.longest {
            let len = l.end_ns.saturating_sub(l.start_ns);
            if out.longest.as_ref().is_none_or(|b| len > b.len_ns) {
                out.longest = Some(mix::<R>(row, &w, m, path));
            }
        }
    }
    Some(out)
}

/// The task's longest wait summed by kind and occupant role.
fn mix<R: ReportSource>(row: &R::Task, w: &WaitCauses, m: &Matching, path: &str) -> LongestMix {
    let l = w.longest.as_ref().expect("called with a longest wait");
    let mut out = LongestMix {
        pid: R::task_pid(row),
        comm: R::task_comm(row).to_string(),
        path: path.to_string(),
        start_ns: l.start_ns,
        len_ns: l.end_ns.saturating_sub(l.start_ns),
        enqueue_ns: 0,
        idle_ns: 0,
        behind_ns: 0,
        unknown_ns: 0,
        behind: Vec::new(),
        cpus: Vec::new(),
        segments_left_out: l.segments_left_out,
    };
    for s in &l.segments {
        let ns = s.end_ns.saturating_sub(s.start_ns);
        match s.kind {
            PieceKind::Enqueue => out.enqueue_ns += ns,
            PieceKind::Idle => out.idle_ns += ns,
            PieceKind::Unknown => out.unknown_ns += ns,
            PieceKind::Behind => {
                out.behind_ns += ns;
                let comm = s.comm.clone().unwrap_or_default();
                let role = m.role(&comm);
                let at = match out.behind.iter().position(|o| o.role == role) {
                    Some(at) => at,
                    None => {
                        out.behind.push(MixOccupant {
                            role,
                            comm,
                            ns: 0,
                            cpus: Vec::new(),
                        });
                        out.behind.len() - 1
                    }
                };
                let o = &mut out.behind[at];
                o.ns += ns;
                if let Some(cpu) = s.cpu.filter(|c| !o.cpus.contains(c)) {
                    o.cpus.push(cpu);
                }
            }
        }
        if let Some(cpu) = s.cpu {
            if !out.cpus.contains(&cpu) {
                out.cpus.push(cpu);
            }
        }
    }
    out.behind
        .sort_by(|a, b| b.ns.cmp(&a.ns).then(a.role.cmp(&b.role)));
    for o in &mut out.behind {
        o.cpus.sort_unstable();
    }
    out.cpus.sort_unstable();
    out
}

/// `sums[i] / n` for every i, in whole units, each rounded down and then one unit added to
/// the largest remainders (ties: the first) until they add up to `Σ sums / n` rounded
/// half up: the largest-remainder method, so that the parts of a mean add up to the mean
/// exactly. `n` > 0.
pub(crate) fn apportion(sums: &[i128], n: i128) -> Vec<i64> {
    let total: i128 = sums.iter().sum();
    let rounded = (2 * total + n).div_euclid(2 * n);
    let mut out: Vec<i128> = sums.iter().map(|s| s.div_euclid(n)).collect();
    let mut short = rounded - out.iter().sum::<i128>();
    let mut order: Vec<usize> = (0..sums.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(sums[i].rem_euclid(n)), i));
    for &i in &order {
        if short <= 0 {
            break;
        }
        out[i] += 1;
        short -= 1;
    }
    out.into_iter().map(|v| v as i64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apportioned_parts_add_up_to_the_rounded_whole() {
        // One repeat: nothing to round.
        assert_eq!(apportion(&[5, 7, 0], 1), [5, 7, 0]);
        // Means of two repeats: 2.5 + 3.5 + 0 = 6; 2.5 and 3.5 tie, the first gets it.
        let got = apportion(&[5, 7, 0], 2);
        assert_eq!(got.iter().sum::<i64>(), 6);
        assert_eq!(got, [3, 3, 0]);
        // Thirds: 10/3 + 10/3 + 10/3 = 10: one of them gets the unit.
        assert_eq!(apportion(&[10, 10, 10], 3), [4, 3, 3]);
        // Negative sums round toward the whole too.
        let got = apportion(&[-5, 2], 2);
        assert_eq!(got.iter().sum::<i64>(), -1);
    }
}
