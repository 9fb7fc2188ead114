//! Why a task waited (`docs/metrics.md` §3a): every counted wait (a sched delay sample) is
//! cut into pieces that tile it exactly, by what the task's runqueue CPU was doing:
//!
//! - `enqueue`: `sched_waking` → `sched_wakeup`, the wakeup path before the task is queued
//!   (only where the trace has both events);
//! - `idle`: the CPU ran its idle task (idle exit and the schedule path);
//! - `behind`: the CPU ran another task, one piece per occupant, attributed to it;
//! - `unknown`: what the CPU ran is not known (before its first switch, after lost events).
//!
//! A wait whose task moves to another runqueue follows it. How each wait ended is counted
//! too. The per-task sums equal `sched_delay.sum_ns` exactly: the pieces are cut from the
//! same waits the sample is taken from, by the same rule.
//!
//! Why here and not from the timeline store afterwards: the store is optional and bounded
//! (it drops everything past its memory limit), while the explanation must hold for every
//! wait of every run; one more O(queue length) step per switch is the cheaper way.
//!
//! The splitting runs on a thread of its own where the machine has a second CPU
//! (`worker`): the engine hands it its calls in batches, and takes the totals at the end.

mod occupancy;
mod open_wait;
mod totals;
mod tracker;
mod worker;

pub(crate) use totals::{Longest, Totals};
pub(crate) use worker::Waits;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Occupants listed per task (by time behind them); the rest are summed in one row.
pub(crate) const BEHIND_KEPT: usize = 8;
/// Pieces kept of a task's longest wait; the rest are counted in `pieces_left_out`.
pub(crate) const PIECES_KEPT: usize = 64;

/// What a piece of a wait was spent on (the order of a wait's sums).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PieceKind {
    Enqueue = 0,
    Idle = 1,
    Behind = 2,
    Unknown = 3,
}

/// What ended a wait: what the CPU's occupant did when the task was switched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitEnd {
    /// The task preempted the occupant (a wakeup preemption, §5).
    WakeupPreemption,
    /// The occupant blocked (slept).
    OccupantBlocked,
    /// The occupant was switched out runnable (slice end, tick, yield).
    OccupantPreempted,
    OccupantExited,
    /// The CPU was idle.
    Idle,
    /// The task ran on another CPU than the runqueue its wait began on.
    Pulled,
    /// What ran before it is not known.
    Unknown,
}

/// Waits by what ended them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndedBy {
    pub wakeup_preemption: u64,
    pub occupant_blocked: u64,
    pub occupant_preempted: u64,
    pub occupant_exited: u64,
    pub idle: u64,
    pub pulled: u64,
    pub unknown: u64,
}

impl EndedBy {
    pub(crate) fn count(&mut self, end: WaitEnd) {
        *match end {
            WaitEnd::WakeupPreemption => &mut self.wakeup_preemption,
            WaitEnd::OccupantBlocked => &mut self.occupant_blocked,
            WaitEnd::OccupantPreempted => &mut self.occupant_preempted,
            WaitEnd::OccupantExited => &mut self.occupant_exited,
            WaitEnd::Idle => &mut self.idle,
            WaitEnd::Pulled => &mut self.pulled,
            WaitEnd::Unknown => &mut self.unknown,
        } += 1;
    }

    fn add(&mut self, o: &EndedBy) {
        self.wakeup_preemption += o.wakeup_preemption;
        self.occupant_blocked += o.occupant_blocked;
        self.occupant_preempted += o.occupant_preempted;
        self.occupant_exited += o.occupant_exited;
        self.idle += o.idle;
        self.pulled += o.pulled;
        self.unknown += o.unknown;
    }
}

/// Wakeups that queued the task on a busy CPU while a CPU it may use was idle (nothing
/// queued on it): placements that cost a wait. Which CPUs a task may use: its allowed CPUs
/// where the recording or `--affinity` gives them, else those it ran on in the window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlacementCost {
    /// Counted wakeup waits that began on a busy CPU.
    pub busy_wakeups: u64,
    /// Of those, with an idle CPU it may use in the target's LLC, and their wait.
    pub idle_allowed_llc: u64,
    pub wait_llc_ns: u64,
    /// Of those, with an idle CPU it may use only in another LLC (or no topology), and
    /// their wait.
    pub idle_allowed_other: u64,
    pub wait_other_ns: u64,
}

impl PlacementCost {
    /// One busy wakeup whose wait lasted `len`: `Some(same_llc)` when an allowed CPU idled.
    pub(crate) fn count(&mut self, idle: Option<bool>, len: u64) {
        self.busy_wakeups += 1;
        match idle {
            Some(true) => {
                self.idle_allowed_llc += 1;
                self.wait_llc_ns = self.wait_llc_ns.saturating_add(len);
            }
            Some(false) => {
                self.idle_allowed_other += 1;
                self.wait_other_ns = self.wait_other_ns.saturating_add(len);
            }
            None => {}
        }
    }

    fn add(&mut self, o: &PlacementCost) {
        self.busy_wakeups += o.busy_wakeups;
        self.idle_allowed_llc += o.idle_allowed_llc;
        self.wait_llc_ns = self.wait_llc_ns.saturating_add(o.wait_llc_ns);
        self.idle_allowed_other += o.idle_allowed_other;
        self.wait_other_ns = self.wait_other_ns.saturating_add(o.wait_other_ns);
    }
}

/// Time spent waiting behind one occupant (`pid` null: the occupants past the first
/// [`BEHIND_KEPT`], summed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BehindRow {
    pub pid: Option<i32>,
    pub comm: String,
    pub ns: u64,
    /// Pieces: how many times a wait had this occupant on its CPU.
    pub count: u64,
}

/// One piece of the longest wait.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    pub kind: PieceKind,
    /// The runqueue's CPU; null when no runqueue was named.
    pub cpu: Option<u32>,
    /// The occupant, for `behind`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comm: Option<String>,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// A task's longest counted wait, piece by piece.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LongestWait {
    pub start_ns: u64,
    pub end_ns: u64,
    pub segments: Vec<Segment>,
    /// Pieces past the first [`PIECES_KEPT`].
    #[serde(default)]
    pub segments_left_out: u64,
}

/// Why a task (or every task) waited: `enqueue_ns + idle_ns + behind_ns + unknown_ns ==
/// sched_delay.sum_ns`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitCauses {
    pub enqueue_ns: u64,
    pub idle_ns: u64,
    pub behind_ns: u64,
    pub unknown_ns: u64,
    /// The occupants by time behind them, largest first.
    pub behind: Vec<BehindRow>,
    pub ended_by: EndedBy,
    /// Wakeups placed on a busy CPU while an allowed one idled.
    #[serde(default)]
    pub placement: PlacementCost,
    /// The longest wait's pieces (tasks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub longest: Option<LongestWait>,
    /// `idle_ns` by the idle state the CPU was leaving (`power:cpu_idle`; its values sum
    /// to `idle_ns`): the state's index, `none` or `unknown` (`metrics::idle_states`).
    /// Left out when the trace has no `cpu_idle`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub idle_ns_by_state: BTreeMap<String, u64>,
}

impl WaitCauses {
    /// The four kinds' sum.
    pub fn total_ns(&self) -> u64 {
        self.enqueue_ns
            .saturating_add(self.idle_ns)
            .saturating_add(self.behind_ns)
            .saturating_add(self.unknown_ns)
    }

    /// Adds another part's four kinds (in [`PieceKind`] order), ends and placements.
    fn add_counts(&mut self, kinds: [u64; 4], ended_by: &EndedBy, placement: &PlacementCost) {
        for (total, ns) in [
            &mut self.enqueue_ns,
            &mut self.idle_ns,
            &mut self.behind_ns,
            &mut self.unknown_ns,
        ]
        .into_iter()
        .zip(kinds)
        {
            *total = total.saturating_add(ns);
        }
        self.ended_by.add(ended_by);
        self.placement.add(placement);
    }

    /// The time of one kind.
    pub fn of(&self, kind: PieceKind) -> u64 {
        match kind {
            PieceKind::Enqueue => self.enqueue_ns,
            PieceKind::Idle => self.idle_ns,
            PieceKind::Behind => self.behind_ns,
            PieceKind::Unknown => self.unknown_ns,
        }
    }
}

/// Names the occupants' pids (their last task's name), turned to text only for the
/// occupants a section lists.
pub(crate) type Names = FxHashMap<i32, ingest::Comm>;

/// The report section of one task's totals, or of several added (the system's): the
/// occupants ranked over the sum of every part.
pub(crate) fn section<'a>(
    parts: impl IntoIterator<Item = &'a Totals>,
    names: &Names,
) -> WaitCauses {
    let mut out = WaitCauses::default();
    let parts: Vec<&Totals> = parts.into_iter().collect();
    let mut longest: Option<&Longest> = None;
    for t in &parts {
        out.add_counts(
            [t.enqueue_ns, t.idle_ns, t.behind_ns, t.unknown_ns],
            &t.ended_by,
            &t.placement,
        );
        if let Some(l) = &t.longest {
            if longest.is_none_or(|b| l.end - l.start > b.end - b.start) {
                longest = Some(l);
            }
        }
    }
    // (pid, ns, pieces) of every occupant; a task's own map needs no merging.
    let mut rows: Vec<(i32, u64, u64)> = if let [one] = parts[..] {
        one.behind.iter().map(|(&p, &(ns, n))| (p, ns, n)).collect()
    } else {
        let mut merged: FxHashMap<i32, (u64, u64)> = FxHashMap::default();
        for t in &parts {
            for (&pid, &(ns, n)) in &t.behind {
                let e = merged.entry(pid).or_default();
                e.0 = e.0.saturating_add(ns);
                e.1 += n;
            }
        }
        merged.into_iter().map(|(p, (ns, n))| (p, ns, n)).collect()
    };
    let name = |pid: i32| {
        names
            .get(&pid)
            .map_or_else(String::new, |c| c.to_string_lossy())
    };
    out.behind = ranked(&mut rows, name);
    let parts_seen = parts.len();
    // One task's longest wait; the system's is `system.worst_wait`.
    if parts_seen == 1 {
        out.longest = longest.map(|l| LongestWait {
            start_ns: l.start,
            end_ns: l.end,
            segments: l
                .pieces
                .iter()
                .map(|p| Segment {
                    kind: p.kind,
                    cpu: (p.cpu >= 0).then_some(p.cpu as u32),
                    pid: (p.kind == PieceKind::Behind).then_some(p.pid),
                    comm: (p.kind == PieceKind::Behind).then(|| name(p.pid)),
                    start_ns: p.start,
                    end_ns: p.end,
                })
                .collect(),
            segments_left_out: l.left_out,
        });
    }
    out
}

/// Largest first (ties by pid), the first [`BEHIND_KEPT`] kept and named, and the rest
/// summed in one row with no pid. Only the kept ones are sorted and named: a task of a
/// busy run waits behind hundreds.
fn ranked(rows: &mut [(i32, u64, u64)], name: impl Fn(i32) -> String) -> Vec<BehindRow> {
    let order = |a: &(i32, u64, u64), b: &(i32, u64, u64)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
    let kept_len = rows.len().min(BEHIND_KEPT);
    if rows.len() > BEHIND_KEPT {
        rows.select_nth_unstable_by(BEHIND_KEPT - 1, order);
    }
    let (kept, rest) = rows.split_at_mut(kept_len);
    kept.sort_unstable_by(order);
    let mut out: Vec<BehindRow> = kept
        .iter()
        .map(|&(pid, ns, count)| BehindRow {
            pid: Some(pid),
            comm: name(pid),
            ns,
            count,
        })
        .collect();
    if !rest.is_empty() {
        let (ns, count) = rest
            .iter()
            .fold((0u64, 0u64), |(ns, n), r| (ns.saturating_add(r.1), n + r.2));
        out.push(BehindRow {
            pid: None,
            comm: format!("({} others)", rest.len()),
            ns,
            count,
        });
    }
    out
}

/// Merges a member's section into a grouped row's: the times and counts add up exactly;
/// the occupants are re-ranked over the members' listed rows (each member's "others" row
/// stays summed), and the longest wait is the longest member's.
pub(crate) fn merge(row: &mut WaitCauses, m: &WaitCauses) {
    row.add_counts(
        [m.enqueue_ns, m.idle_ns, m.behind_ns, m.unknown_ns],
        &m.ended_by,
        &m.placement,
    );
    let mut rows: Vec<(i32, u64, u64)> = Vec::new();
    let mut comms: FxHashMap<i32, &str> = FxHashMap::default();
    let mut others = BehindRow::default();
    let mut other_names = 0;
    for r in row.behind.iter().chain(&m.behind) {
        match r.pid {
            Some(pid) => {
                comms.entry(pid).or_insert(&r.comm);
                match rows.iter_mut().find(|x| x.0 == pid) {
                    Some(x) => {
                        x.1 = x.1.saturating_add(r.ns);
                        x.2 += r.count;
                    }
                    None => rows.push((pid, r.ns, r.count)),
                }
            }
            None => {
                others.ns = others.ns.saturating_add(r.ns);
                others.count += r.count;
                other_names += 1;
            }
        }
    }
    let mut kept = ranked(&mut rows, |pid| comms[&pid].to_string());
    if other_names > 0 {
        match kept.last_mut().filter(|r| r.pid.is_none()) {
            Some(last) => {
                last.ns = last.ns.saturating_add(others.ns);
                last.count += others.count;
            }
            None => kept.push(BehindRow {
                comm: "(others)".to_string(),
                ..others
            }),
        }
    }
    row.behind = kept;
    crate::metrics::idle_states::merge(&mut row.idle_ns_by_state, &m.idle_ns_by_state);
    let len = |l: &LongestWait| l.end_ns - l.start_ns;
    if let Some(l) = &m.longest {
        if row.longest.as_ref().is_none_or(|r| len(l) > len(r)) {
            row.longest = Some(l.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(pairs: &[(i32, u64)]) -> Totals {
        let mut t = Totals::default();
        for &(pid, ns) in pairs {
            t.behind.insert(pid, (ns, 1));
            t.behind_ns += ns;
        }
        t
    }

    #[test]
    fn occupants_past_the_kept_ones_are_summed() {
        let many: Vec<(i32, u64)> = (1..=10).map(|p| (p, p as u64 * 10)).collect();
        let t = totals(&many);
        let s = section([&t], &Names::default());
        assert_eq!(s.behind.len(), BEHIND_KEPT + 1);
        assert_eq!(s.behind[0].pid, Some(10));
        let rest = s.behind.last().unwrap();
        assert_eq!((rest.pid, rest.ns, rest.count), (None, 10 + 20, 2));
        assert_eq!(s.behind.iter().map(|r| r.ns).sum::<u64>(), s.behind_ns);
    }

    #[test]
    fn merged_rows_keep_exact_totals() {
        let a = section([&totals(&[(1, 100), (2, 50)])], &Names::default());
        let b = section([&totals(&[(2, 70), (3, 5)])], &Names::default());
        let mut row = WaitCauses::default();
        merge(&mut row, &a);
        merge(&mut row, &b);
        assert_eq!(row.behind_ns, 225);
        let pids: Vec<_> = row.behind.iter().map(|r| (r.pid, r.ns, r.count)).collect();
        assert_eq!(
            pids,
            [(Some(2), 120, 2), (Some(1), 100, 1), (Some(3), 5, 1)]
        );
    }
}
