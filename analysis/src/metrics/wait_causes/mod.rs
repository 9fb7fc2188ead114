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

mod tracker;

pub(crate) use tracker::{Piece, Totals, WaitTracker};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// Occupants listed per task (by time behind them); the rest are summed in one row.
pub(crate) const BEHIND_KEPT: usize = 8;
/// Pieces kept of a task's longest wait; the rest are counted in `pieces_left_out`.
pub(crate) const PIECES_KEPT: usize = 64;

/// What a piece of a wait was spent on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PieceKind {
    Enqueue,
    Idle,
    Behind,
    Unknown,
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
/// queued on it): placements that cost a wait. Which CPUs a task may use: those it ran on
/// in the window (the trace carries no affinity masks).
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
}

impl WaitCauses {
    /// The four kinds' sum.
    pub fn total_ns(&self) -> u64 {
        self.enqueue_ns
            .saturating_add(self.idle_ns)
            .saturating_add(self.behind_ns)
            .saturating_add(self.unknown_ns)
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

/// Names the occupants' pids (their last task's name).
pub(crate) type Names = FxHashMap<i32, String>;

/// The report section of one task's totals, or of several added (the system's): the
/// occupants ranked over the sum of every part.
pub(crate) fn section<'a>(
    parts: impl IntoIterator<Item = &'a Totals>,
    names: &Names,
) -> WaitCauses {
    let mut out = WaitCauses::default();
    let mut behind: FxHashMap<i32, (u64, u64)> = FxHashMap::default();
    let mut longest: Option<&(u64, u64, Vec<Piece>)> = None;
    let mut parts_seen = 0;
    for t in parts {
        parts_seen += 1;
        out.enqueue_ns = out.enqueue_ns.saturating_add(t.enqueue_ns);
        out.idle_ns = out.idle_ns.saturating_add(t.idle_ns);
        out.behind_ns = out.behind_ns.saturating_add(t.behind_ns);
        out.unknown_ns = out.unknown_ns.saturating_add(t.unknown_ns);
        out.ended_by.add(&t.ended_by);
        out.placement.add(&t.placement);
        for (&pid, &(ns, n)) in &t.behind {
            let e = behind.entry(pid).or_default();
            e.0 = e.0.saturating_add(ns);
            e.1 += n;
        }
        if let Some(l) = &t.longest {
            if longest.is_none_or(|b| l.1 - l.0 > b.1 - b.0) {
                longest = Some(l);
            }
        }
    }
    let name = |pid: i32| names.get(&pid).cloned().unwrap_or_default();
    let mut rows: Vec<BehindRow> = behind
        .into_iter()
        .map(|(pid, (ns, count))| BehindRow {
            pid: Some(pid),
            comm: name(pid),
            ns,
            count,
        })
        .collect();
    out.behind = ranked(&mut rows);
    // One task's longest wait; the system's is `system.worst_wait`.
    if parts_seen == 1 {
        out.longest = longest.map(|(start, end, pieces)| LongestWait {
            start_ns: *start,
            end_ns: *end,
            segments: pieces
                .iter()
                .take(PIECES_KEPT)
                .map(|p| Segment {
                    kind: p.kind,
                    cpu: (p.cpu >= 0).then_some(p.cpu as u32),
                    pid: (p.kind == PieceKind::Behind).then_some(p.pid),
                    comm: (p.kind == PieceKind::Behind).then(|| name(p.pid)),
                    start_ns: p.start,
                    end_ns: p.end,
                })
                .collect(),
            segments_left_out: pieces.len().saturating_sub(PIECES_KEPT) as u64,
        });
    }
    out
}

/// Largest first (ties by pid), the first [`BEHIND_KEPT`] kept and the rest summed in one
/// row with no pid.
fn ranked(rows: &mut [BehindRow]) -> Vec<BehindRow> {
    rows.sort_by(|a, b| b.ns.cmp(&a.ns).then(a.pid.cmp(&b.pid)));
    let mut kept: Vec<BehindRow> = rows.iter().take(BEHIND_KEPT).cloned().collect();
    if rows.len() > BEHIND_KEPT {
        let rest = rows[BEHIND_KEPT..]
            .iter()
            .fold(BehindRow::default(), |mut sum, r| {
                sum.ns = sum.ns.saturating_add(r.ns);
                sum.count += r.count;
                sum
            });
        kept.push(BehindRow {
            comm: format!("({} others)", rows.len() - BEHIND_KEPT),
            ..rest
        });
    }
    kept
}

/// Merges a member's section into a grouped row's: the times and counts add up exactly;
/// the occupants are re-ranked over the members' listed rows (each member's "others" row
/// stays summed), and the longest wait is the longest member's.
pub(crate) fn merge(row: &mut WaitCauses, m: &WaitCauses) {
    row.enqueue_ns = row.enqueue_ns.saturating_add(m.enqueue_ns);
    row.idle_ns = row.idle_ns.saturating_add(m.idle_ns);
    row.behind_ns = row.behind_ns.saturating_add(m.behind_ns);
    row.unknown_ns = row.unknown_ns.saturating_add(m.unknown_ns);
    row.ended_by.add(&m.ended_by);
    row.placement.add(&m.placement);
    let mut rows: Vec<BehindRow> = Vec::new();
    let mut others = BehindRow::default();
    let mut other_names = 0;
    for r in row.behind.iter().chain(&m.behind) {
        match r.pid {
            Some(pid) => match rows.iter_mut().find(|x| x.pid == Some(pid)) {
                Some(x) => {
                    x.ns = x.ns.saturating_add(r.ns);
                    x.count += r.count;
                }
                None => rows.push(r.clone()),
            },
            None => {
                others.ns = others.ns.saturating_add(r.ns);
                others.count += r.count;
                other_names += 1;
            }
        }
    }
    let mut kept = ranked(&mut rows);
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
