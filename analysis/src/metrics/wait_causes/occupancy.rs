//! What one CPU ran, as a log of occupants with the time each began, and the tasks queued on
//! it. A waiting task remembers the entry in force when it last settled and walks the log
//! from there when it settles again (when its wait ends or moves): a switch costs one push,
//! whatever the runqueue's depth, and a wait reads the entries of its own time in order.

use crate::cpu::Occupant;

/// Entries kept before the log is compacted (then again at twice what survived).
const COMPACT_AT: usize = 4096;

#[derive(Debug, Clone)]
pub(super) struct Queue {
    /// (time the occupant began, occupant), in the order learnt. A time may lie before the
    /// previous entry's (lost events learnt late): it takes effect at the later of the two.
    log: Vec<(u64, Occupant)>,
    /// Global index of `log[0]` (entries before it were dropped by compaction).
    base: u64,
    compact_at: usize,
    /// Slots of the tasks queued here.
    pub(super) waiters: Vec<u32>,
}

impl Queue {
    pub(super) fn new() -> Queue {
        Queue {
            log: vec![(0, Occupant::Unknown)],
            base: 0,
            compact_at: COMPACT_AT,
            waiters: Vec::new(),
        }
    }

    pub(super) fn occupant(&self) -> Occupant {
        self.log.last().expect("a log is never empty").1
    }

    /// Global index of the entry in force now.
    pub(super) fn current(&self) -> u64 {
        self.base + self.log.len() as u64 - 1
    }

    /// The CPU runs `occupant`, not the one it ran, from `at` on.
    pub(super) fn push(&mut self, occupant: Occupant, at: u64) {
        debug_assert!(self.occupant() != occupant, "a log entry is a change");
        self.log.push((at, occupant));
    }

    /// Walks from entry `idx` (in force at `since`) to `until`: calls `piece(occupant,
    /// start, end)` for each stretch with a length, and returns the entry in force at `until`.
    #[inline]
    pub(super) fn walk(
        &self,
        idx: u64,
        since: u64,
        until: u64,
        mut piece: impl FnMut(Occupant, u64, u64),
    ) -> u64 {
        // One call site for `piece`, so that the caller's closure is inlined once: the
        // stretch of the last entry ends at `until`, the others where the next one begins.
        let mut i = (idx - self.base) as usize;
        let mut from = since;
        loop {
            let occupant = self.log[i].1;
            let next = self.log.get(i + 1).map(|e| e.0).filter(|&t| t < until);
            let end = next.map_or(until, |t| t.max(from));
            if end > from {
                piece(occupant, from, end);
                from = end;
            }
            if next.is_none() {
                return self.base + i as u64;
            }
            i += 1;
        }
    }

    /// The entry in force at `until`, from entry `idx` on: what [`Queue::walk`] returns,
    /// without the pieces.
    pub(super) fn entry_at(&self, idx: u64, until: u64) -> u64 {
        let mut i = (idx - self.base) as usize;
        while self.log.get(i + 1).is_some_and(|&(t, _)| t < until) {
            i += 1;
        }
        self.base + i as u64
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.log.len()
    }

    /// Whether the log has grown enough to be compacted.
    #[inline]
    pub(super) fn long(&self) -> bool {
        self.log.len() >= self.compact_at
    }

    /// Drops the entries no waiter will walk again; `oldest` is the smallest index a waiter
    /// holds (None: no waiter).
    pub(super) fn compact(&mut self, oldest: Option<u64>) {
        let keep_from = oldest.unwrap_or(self.current()).min(self.current());
        let drop = (keep_from - self.base) as usize;
        self.log.drain(..drop);
        self.base = keep_from;
        self.compact_at = (self.log.len() * 2).max(COMPACT_AT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(q: &Queue, idx: u64, since: u64, until: u64) -> (Vec<(Occupant, u64, u64)>, u64) {
        let mut out = Vec::new();
        let at = q.walk(idx, since, until, |o, a, b| out.push((o, a, b)));
        (out, at)
    }

    #[test]
    fn a_walk_cuts_at_each_change_and_stops_at_the_end() {
        let mut q = Queue::new();
        q.push(Occupant::Task(7), 10);
        q.push(Occupant::Idle, 50);
        q.push(Occupant::Task(8), 90);
        let (p, at) = pieces(&q, 1, 30, 90);
        assert_eq!(p, [(Occupant::Task(7), 30, 50), (Occupant::Idle, 50, 90)]);
        assert_eq!(at, 2);
        assert_eq!(
            (q.entry_at(1, 30), q.entry_at(1, 90), q.entry_at(0, 91)),
            (1, 2, 3)
        );
        // From there on, 8 runs.
        let (p, at) = pieces(&q, at, 90, 100);
        assert_eq!((p, at), (vec![(Occupant::Task(8), 90, 100)], 3));
    }

    /// An entry learnt late (lost events from 40, learnt after a waiter settled at 60)
    /// takes effect at the waiter's 60.
    #[test]
    fn an_entry_before_the_waiters_time_takes_effect_at_it() {
        let mut q = Queue::new();
        q.push(Occupant::Task(7), 10);
        q.push(Occupant::Unknown, 40);
        let (p, _) = pieces(&q, 1, 60, 80);
        assert_eq!(p, [(Occupant::Unknown, 60, 80)]);
    }

    #[test]
    fn compaction_keeps_what_the_oldest_waiter_needs() {
        let mut q = Queue::new();
        for t in 1..=COMPACT_AT as u64 {
            q.push(Occupant::Task(t as i32 % 2 + 1), t * 10);
        }
        assert!(q.long());
        q.compact(Some(100));
        assert_eq!(q.base, 100);
        let (p, _) = pieces(&q, 100, 1000, 1015);
        assert_eq!(
            p,
            [
                (Occupant::Task(1), 1000, 1010),
                (Occupant::Task(2), 1010, 1015)
            ]
        );
    }
}
