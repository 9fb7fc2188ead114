//! What one task's ended waits add up to: the four kinds, the time behind each occupant,
//! how the waits ended, the placement cost, and its longest wait piece by piece. Written
//! once per ended wait by the tracker, read when the report is assembled.

use super::open_wait::{OpenWait, Piece};
use super::{EndedBy, PlacementCost};
use rustc_hash::FxHashMap;

/// Everything one task's ended waits add up to.
#[derive(Debug, Clone, Default)]
pub(crate) struct Totals {
    pub(crate) enqueue_ns: u64,
    pub(crate) idle_ns: u64,
    pub(crate) behind_ns: u64,
    pub(crate) unknown_ns: u64,
    /// Per occupant pid: (ns, pieces).
    pub(crate) behind: FxHashMap<i32, (u64, u64)>,
    pub(crate) ended_by: EndedBy,
    pub(crate) placement: PlacementCost,
    /// The longest wait.
    pub(crate) longest: Option<Longest>,
}

/// A task's longest wait so far: its first pieces and how many were left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct Longest {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) pieces: Vec<Piece>,
    pub(crate) left_out: u64,
}

impl Totals {
    /// Adds one ended wait.
    pub(super) fn add(&mut self, w: &OpenWait) {
        for (total, &ns) in [
            &mut self.enqueue_ns,
            &mut self.idle_ns,
            &mut self.behind_ns,
            &mut self.unknown_ns,
        ]
        .into_iter()
        .zip(&w.kinds)
        {
            *total = total.saturating_add(ns);
        }
        for &(pid, new, ns) in &w.behind {
            let e = self.behind.entry(pid).or_default();
            e.0 = e.0.saturating_add(ns);
            e.1 += u64::from(new);
        }
    }
}
