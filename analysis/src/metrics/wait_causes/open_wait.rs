//! One wait in progress: where its task is queued, and what the wait has added up to so
//! far — the four kinds, the time behind each occupant, how many pieces, and its first
//! pieces (for the longest-wait list). Nothing here knows about other tasks or CPUs.
//!
//! Two halves, because only a task's longest wait is ever listed piece by piece: the sums
//! ([`OpenWait::sum`]) take every piece as the runqueue's log is walked, a few words each;
//! the list of first pieces ([`OpenWait::record`]) is written only for the stretches that
//! can no longer be walked again — the enqueue, a runqueue the wait left, a log about to be
//! compacted — and, when the wait turns out to be its task's longest, for the stretch on
//! its last runqueue (`stay_*`: the log from there is still whole).

use super::occupancy::Queue;
use super::{PieceKind, PIECES_KEPT};
use crate::cpu::Occupant;

/// One piece of a wait: `[start, end)` spent as `kind` while queued on `cpu` (-1: on no
/// known runqueue), behind task `pid` for [`PieceKind::Behind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) kind: PieceKind,
    pub(crate) cpu: i32,
    pub(crate) pid: i32,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

impl Piece {
    /// Whether `self` goes on as `p` (the same occupant on the same runqueue, no gap): one
    /// piece, not two (a settle or a move to the same runqueue cuts nothing).
    #[inline]
    fn goes_on_as(&self, p: &Piece) -> bool {
        self.end == p.start && self.kind == p.kind && self.pid == p.pid && self.cpu == p.cpu
    }
}

/// What a piece of task `own`'s wait is while `occupant` runs on its runqueue's CPU, and
/// the occupant's pid for [`PieceKind::Behind`] (0 otherwise).
#[inline]
pub(super) fn kind_of(occupant: Occupant, own: i32) -> (PieceKind, i32) {
    match occupant {
        Occupant::Idle => (PieceKind::Idle, 0),
        Occupant::Task(p) if p != own => (PieceKind::Behind, p),
        _ => (PieceKind::Unknown, 0),
    }
}

/// No piece yet: `cpu` never names a runqueue this way, so nothing goes on from it.
const NO_PIECE: Piece = Piece {
    kind: PieceKind::Unknown,
    cpu: i32::MIN,
    pid: 0,
    start: 0,
    end: 0,
};

/// The wait a task is in, if any.
#[derive(Debug, Clone)]
pub(super) struct OpenWait {
    pub(super) active: bool,
    pub(super) pid: i32,
    pub(super) start: u64,
    /// The runqueue the task is on (-1: none known), its index in that queue's list, and
    /// the queue's log entry in force at `since`.
    pub(super) cpu: i32,
    pub(super) pos: u32,
    pub(super) entry: u64,
    /// Up to when the pieces are added up.
    pub(super) since: u64,
    /// The stretch `[stay_from, since)` on runqueue `cpu`, from its log entry `stay_entry`:
    /// summed but not yet written to `pieces`.
    pub(super) stay_entry: u64,
    pub(super) stay_from: u64,
    /// The runqueue the wait began on, once known (a wait ending elsewhere was pulled).
    pub(super) first_cpu: i32,
    /// Started by `sched_waking`: the time up to the `sched_wakeup` is the enqueue.
    pub(super) awaiting_enqueue: bool,
    /// The wakeup queued it on a busy CPU; then whether a CPU it may use idled (`Some`)
    /// in the target's LLC (`true`).
    pub(super) busy_target: bool,
    pub(super) idle_elsewhere: Option<bool>,
    /// The four kinds so far, in [`PieceKind`] order.
    pub(super) kinds: [u64; 4],
    /// Time behind occupants as (pid, new pieces, ns), a run of one occupant in one entry:
    /// added up per occupant when the wait ends, so that a piece costs a few words whatever
    /// the number of occupants.
    pub(super) behind: Vec<(i32, u32, u64)>,
    /// The length at which `behind` is folded to one entry per occupant (a long wait behind
    /// many switches stays a few words per occupant).
    behind_fold_at: usize,
    /// Pieces so far, and the last one summed (a piece that goes on extends it).
    pub(super) pieces_seen: u64,
    last: Piece,
    /// The first [`PIECES_KEPT`] pieces written so far, how many were written, and the last
    /// one written.
    pub(super) pieces: Vec<Piece>,
    recorded: u64,
    recorded_last: Piece,
}

impl Default for OpenWait {
    fn default() -> OpenWait {
        OpenWait {
            active: false,
            pid: 0,
            start: 0,
            cpu: -1,
            pos: 0,
            entry: 0,
            since: 0,
            stay_entry: 0,
            stay_from: 0,
            first_cpu: -1,
            awaiting_enqueue: false,
            busy_target: false,
            idle_elsewhere: None,
            kinds: [0; 4],
            behind: Vec::new(),
            behind_fold_at: BEHIND_FOLD_AT,
            pieces_seen: 0,
            last: NO_PIECE,
            pieces: Vec::new(),
            recorded: 0,
            recorded_last: NO_PIECE,
        }
    }
}

/// Capacity kept for the per-piece list between waits: a long wait's list is not held by
/// its task for the rest of the run.
const BEHIND_CAPACITY_KEPT: usize = 256;
/// Per-piece entries kept before they are folded per occupant.
const BEHIND_FOLD_AT: usize = 4096;

impl OpenWait {
    /// Starts a new wait of task `pid` at `at`.
    pub(super) fn begin(&mut self, pid: i32, at: u64, awaiting_enqueue: bool) {
        self.active = true;
        self.pid = pid;
        self.start = at;
        self.since = at;
        self.stay_from = at;
        self.first_cpu = -1;
        self.awaiting_enqueue = awaiting_enqueue;
        self.busy_target = false;
        self.idle_elsewhere = None;
        self.clear_pieces();
    }

    pub(super) fn clear_pieces(&mut self) {
        self.kinds = [0; 4];
        if !self.behind.is_empty() {
            self.behind.clear();
            self.behind_fold_at = BEHIND_FOLD_AT;
            if self.behind.capacity() > BEHIND_CAPACITY_KEPT {
                self.behind.shrink_to(BEHIND_CAPACITY_KEPT);
            }
        }
        self.pieces_seen = 0;
        self.last = NO_PIECE;
        self.pieces.clear();
        self.recorded = 0;
        self.recorded_last = NO_PIECE;
    }

    /// Notes `len` behind `pid` (`new`: 1 for a new piece); past the fold length the
    /// entries are added up per occupant, and the next fold waits for twice as many.
    #[inline]
    fn push_behind(&mut self, pid: i32, new: u32, len: u64) {
        if let Some(run) = self.behind.last_mut().filter(|b| b.0 == pid) {
            run.1 += new;
            run.2 = run.2.saturating_add(len);
            return;
        }
        self.behind.push((pid, new, len));
        if self.behind.len() >= self.behind_fold_at {
            self.fold_behind();
        }
    }

    /// Sums the stretch of runqueue `cpu`'s log from the wait's entry and settled time to
    /// `until` (pieces cut as [`Queue::walk`] cuts them), and moves the entry and settled
    /// time there; `idle(len)` is told each idle piece. The same sums as [`OpenWait::sum`]
    /// piece by piece, with the last piece and the kinds held in locals: a wait through a
    /// deep or starved runqueue reads thousands of entries here.
    #[inline]
    pub(super) fn sum_stretch(
        &mut self,
        q: &Queue,
        cpu: i32,
        until: u64,
        mut idle: impl FnMut(u64),
    ) {
        let own = self.pid;
        let mut kinds = self.kinds;
        let mut seen = 0u64;
        // Only the first piece can go on from a piece of another walk (or runqueue).
        let (mut last_end, mut last_kind, mut last_pid) = if self.last.cpu == cpu {
            (self.last.end, self.last.kind, self.last.pid)
        } else {
            (u64::MAX, PieceKind::Unknown, 0)
        };
        let mut last_start = self.last.start;
        let entry = q.walk(self.entry, self.since, until, |occupant, start, end| {
            let len = end - start;
            let (kind, pid) = kind_of(occupant, own);
            if kind == PieceKind::Idle {
                idle(len);
            }
            kinds[kind as usize] = kinds[kind as usize].saturating_add(len);
            let new = !(last_end == start && last_kind == kind && last_pid == pid);
            seen += u64::from(new);
            (last_start, last_end, last_kind, last_pid) = (start, end, kind, pid);
            if kind == PieceKind::Behind {
                self.push_behind(pid, u32::from(new), len);
            }
        });
        self.entry = entry;
        self.since = until;
        self.kinds = kinds;
        if seen > 0 || last_end != u64::MAX {
            self.last = Piece {
                kind: last_kind,
                cpu,
                pid: last_pid,
                start: last_start,
                end: last_end,
            };
        }
        self.pieces_seen += seen;
    }

    #[cold]
    fn fold_behind(&mut self) {
        self.behind.sort_unstable_by_key(|b| b.0);
        self.behind.dedup_by(|b, kept| {
            let same = kept.0 == b.0;
            if same {
                kept.1 = kept.1.saturating_add(b.1);
                kept.2 = kept.2.saturating_add(b.2);
            }
            same
        });
        self.behind_fold_at = (self.behind.len() * 2).max(BEHIND_FOLD_AT);
    }

    /// Adds a piece that starts where the last one ended to the sums (not to the list).
    #[inline]
    pub(super) fn sum(&mut self, p: Piece) {
        let len = p.end - p.start;
        if len == 0 {
            return;
        }
        let kind = p.kind as usize;
        self.kinds[kind] = self.kinds[kind].saturating_add(len);
        let new = !self.last.goes_on_as(&p);
        self.pieces_seen += u64::from(new);
        self.last = p;
        if p.kind == PieceKind::Behind {
            self.push_behind(p.pid, u32::from(new), len);
        }
    }

    /// Writes a piece (summed before, or by the caller) to the list of first pieces.
    #[inline]
    pub(super) fn record(&mut self, p: Piece) {
        if p.end == p.start || self.recorded > PIECES_KEPT as u64 {
            return;
        }
        if self.recorded_last.goes_on_as(&p) {
            self.recorded_last.end = p.end;
            if let Some(kept) = self.pieces.last_mut() {
                kept.end = p.end;
            }
            return;
        }
        self.recorded += 1;
        if self.pieces.len() < PIECES_KEPT {
            self.pieces.push(p);
        } else {
            // The next piece past the kept ones: nothing written later can change them.
            self.recorded_last = NO_PIECE;
            return;
        }
        self.recorded_last = p;
    }

    /// Whether the list of first pieces is complete whatever comes after.
    pub(super) fn list_full(&self) -> bool {
        self.recorded > PIECES_KEPT as u64
    }

    /// Sums and writes a piece (one the log cannot give again).
    #[inline]
    pub(super) fn add(&mut self, p: Piece) {
        self.sum(p);
        self.record(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(kind: PieceKind, pid: i32, start: u64, end: u64) -> Piece {
        Piece {
            kind,
            cpu: 0,
            pid,
            start,
            end,
        }
    }

    #[test]
    fn a_piece_that_goes_on_extends_the_last() {
        let mut w = OpenWait::default();
        w.begin(1, 0, false);
        w.add(piece(PieceKind::Behind, 7, 0, 10));
        w.add(piece(PieceKind::Behind, 7, 10, 25));
        w.add(piece(PieceKind::Idle, 0, 25, 30));
        w.add(piece(PieceKind::Idle, 0, 30, 30));
        assert_eq!(w.kinds, [0, 5, 25, 0]);
        assert_eq!(w.behind, [(7, 1, 25)]);
        assert_eq!((w.pieces.len(), w.pieces_seen), (2, 2));
        assert_eq!(w.pieces[0].end, 25);
    }

    /// A gap or another runqueue makes a new piece of the same occupant.
    #[test]
    fn a_gap_or_another_cpu_is_a_new_piece() {
        let mut w = OpenWait::default();
        w.begin(1, 0, false);
        w.add(piece(PieceKind::Behind, 7, 0, 10));
        w.add(piece(PieceKind::Behind, 7, 12, 20));
        w.add(Piece {
            cpu: 1,
            ..piece(PieceKind::Behind, 7, 20, 30)
        });
        assert_eq!(w.behind, [(7, 3, 28)]);
        assert_eq!((w.pieces.len(), w.pieces_seen), (3, 3));
    }

    #[test]
    fn many_pieces_behind_few_occupants_are_folded_per_occupant() {
        let mut w = OpenWait::default();
        w.begin(1, 0, false);
        for i in 0..10_000u64 {
            w.sum(piece(PieceKind::Behind, (i % 3) as i32 + 2, i, i + 1));
        }
        assert!(w.behind.len() < BEHIND_FOLD_AT, "{}", w.behind.len());
        let mut per = [(0u32, 0u64); 3];
        for &(pid, new, ns) in &w.behind {
            let e = &mut per[(pid - 2) as usize];
            e.0 += new;
            e.1 += ns;
        }
        assert_eq!(per, [(3334, 3334), (3333, 3333), (3333, 3333)]);
    }

    #[test]
    fn only_the_first_pieces_are_kept_but_all_are_counted() {
        let mut w = OpenWait::default();
        w.begin(1, 0, false);
        for i in 0..(PIECES_KEPT as u64 + 10) {
            w.add(piece(PieceKind::Behind, (i % 2) as i32 + 2, i, i + 1));
        }
        assert_eq!(w.pieces.len(), PIECES_KEPT);
        assert_eq!(w.pieces_seen, PIECES_KEPT as u64 + 10);
        assert!(w.list_full());
        assert_eq!(w.kinds[PieceKind::Behind as usize], PIECES_KEPT as u64 + 10);
    }

    /// The 64th piece kept goes on past the sums' 65th: it is not extended.
    #[test]
    fn the_last_kept_piece_is_not_extended_past_the_list() {
        let mut w = OpenWait::default();
        w.begin(1, 0, false);
        for i in 0..PIECES_KEPT as u64 {
            w.add(piece(PieceKind::Behind, (i % 2) as i32 + 2, i, i + 1));
        }
        let last = *w.pieces.last().unwrap();
        w.add(piece(PieceKind::Idle, 0, 64, 70));
        w.add(piece(PieceKind::Behind, last.pid, 70, 80));
        assert_eq!(*w.pieces.last().unwrap(), last);
        assert_eq!(w.pieces_seen, PIECES_KEPT as u64 + 2);
    }
}
