//! The hot-path half of the wait causes: which runqueue each waiting task is on, what each
//! CPU ran ([`Queue`]), and each task's wait in progress ([`OpenWait`]) and totals.
//!
//! Lazy: a switch only appends the CPU's new occupant to its log; a waiting task adds up
//! the stretch of the log it waited through when its wait ends or moves to another
//! runqueue. The work is the same as closing every waiter's piece at each switch, but a
//! deep runqueue costs nothing per switch and each wait reads its stretch in order. The
//! pieces themselves are listed only where the log cannot give them again later (see
//! `open_wait`): a wait that ends as its task's longest reads its last stretch twice, the
//! others once.

use super::occupancy::Queue;
use super::open_wait::{kind_of, OpenWait, Piece};
use super::totals::{Longest, Totals};
use super::{PieceKind, WaitEnd};
use crate::cpu::Occupant;
use crate::metrics::idle_states::IdleSplit;

/// The wait causes' state: per CPU its occupancy log and queue, per task slot its open
/// wait and its totals.
#[derive(Debug, Default)]
pub(crate) struct WaitTracker {
    queues: Vec<Queue>,
    open: Vec<OpenWait>,
    totals: Vec<Totals>,
    /// Each CPU's LLC, from the topology (empty without one).
    llc_of: Vec<Option<u32>>,
    /// The idle pieces by the idle state their CPU was leaving (`metrics::idle_states`).
    pub(crate) idle_split: IdleSplit,
}

impl WaitTracker {
    fn open_mut(&mut self, slot: usize) -> &mut OpenWait {
        if slot >= self.open.len() {
            self.open.resize_with(slot + 1, OpenWait::default);
        }
        &mut self.open[slot]
    }

    fn queue(&mut self, cpu: usize) -> &mut Queue {
        if cpu >= self.queues.len() {
            self.queues.resize_with(cpu + 1, Queue::new);
        }
        &mut self.queues[cpu]
    }

    /// Task `slot` (pid `pid`) became runnable at `at`: a new wait begins. `awaiting_enqueue`
    /// when a `sched_waking` began it (its `sched_wakeup`, if the trace has one, ends the
    /// enqueue piece). It is queued on `queued_on` (as in [`WaitTracker::follow`]).
    pub(crate) fn open(
        &mut self,
        slot: usize,
        pid: i32,
        at: u64,
        awaiting_enqueue: bool,
        queued_on: Option<u32>,
    ) {
        self.leave(slot);
        self.open_mut(slot).begin(pid, at, awaiting_enqueue);
        self.idle_split.reset(slot);
        // Begun now and on no list: nothing to settle or list, it only joins its queue.
        if let Some(cpu) = queued_on {
            self.join(slot, cpu as i32);
        }
    }

    /// Each CPU's LLC (`None`: not known).
    pub(crate) fn set_llcs(&mut self, llc_of: &[Option<u32>]) {
        self.llc_of = llc_of.to_vec();
    }

    /// A wakeup of task `slot` queued it on `target`, `busy` with another task: notes
    /// whether a CPU it may use was idle with nothing queued at that moment, preferring
    /// one in the target's LLC. `idle_allowed`: the CPUs other than `target` that were idle
    /// and that it may use, in increasing order. The last wakeup event of a wait decides.
    pub(crate) fn placed(&mut self, slot: usize, target: i32, busy: bool, idle_allowed: &[u32]) {
        if !self.open.get(slot).is_some_and(|o| o.active) {
            return;
        }
        let mut found = None;
        if busy {
            let llc = |c: usize| self.llc_of.get(c).copied().flatten();
            let target_llc = (target >= 0).then(|| llc(target as usize)).flatten();
            for &c in idle_allowed {
                let c = c as usize;
                if !self.queues.get(c).is_some_and(|q| q.waiters.is_empty()) {
                    continue;
                }
                if target_llc.is_some() && llc(c) == target_llc {
                    found = Some(true);
                    break;
                }
                found = Some(false);
            }
        }
        let o = &mut self.open[slot];
        o.busy_target = busy;
        o.idle_elsewhere = found;
    }

    /// Where task `slot` is queued now (`None`: on no runqueue: running, asleep, unknown,
    /// or a runqueue the trace did not name). A waiting task that moves takes its wait along.
    #[inline]
    pub(crate) fn follow(&mut self, slot: usize, queued_on: Option<u32>, now: u64) {
        let cpu = queued_on.map_or(-1, |c| c as i32);
        // Not waiting: never on a runqueue list.
        if self
            .open
            .get(slot)
            .is_some_and(|o| o.active && o.cpu != cpu)
        {
            self.moved(slot, cpu, now);
        }
    }

    /// The waiting task `slot` moves to runqueue `cpu` (-1: none) at `now`: what it waited
    /// through on the one it leaves is listed (that log will not be read for it again).
    fn moved(&mut self, slot: usize, cpu: i32, now: u64) {
        self.settle(slot, now);
        self.list_stay(slot);
        self.leave(slot);
        if cpu >= 0 {
            self.join(slot, cpu);
        }
    }

    /// The waiting task `slot`, settled and on no list, joins runqueue `cpu`'s list.
    #[inline]
    fn join(&mut self, slot: usize, cpu: i32) {
        let q = self.queue(cpu as usize);
        let pos = q.waiters.len() as u32;
        q.waiters.push(slot as u32);
        let entry = q.current();
        let o = &mut self.open[slot];
        o.cpu = cpu;
        o.pos = pos;
        o.entry = entry;
        o.stay_entry = entry;
        o.stay_from = o.since;
        if o.first_cpu < 0 {
            o.first_cpu = cpu;
        }
    }

    /// CPU `cpu` runs `occupant` from `at` on (`at` may lie before the last event when the
    /// analyzer learns of lost events afterwards: no waiter's piece is cut before its time).
    pub(crate) fn occupant_changed(&mut self, cpu: u32, occupant: Occupant, at: u64) {
        let c = cpu as usize;
        // A switch between two runs of the same occupant (or lost events on a CPU already
        // unknown) leaves the log as it is.
        let was = self.queue(c).occupant();
        if was == Occupant::Idle && occupant != Occupant::Idle && self.idle_split.on() {
            // An idle piece takes the state its CPU is leaving now: its waiters close it.
            self.settle_waiters(c, at);
        }
        self.idle_split.occupant_changed(cpu, occupant);
        if was != occupant {
            let q = &mut self.queues[c];
            q.push(occupant, at);
            if q.long() {
                self.compact(c, at);
            }
        }
    }

    /// Settles every wait queued on CPU `c` up to `at`. Out of line: the walk it inlines
    /// would otherwise weigh on every switch's call, most of which leave no idle CPU.
    #[inline(never)]
    fn settle_waiters(&mut self, c: usize, at: u64) {
        for i in 0..self.queues[c].waiters.len() {
            let w = self.queues[c].waiters[i] as usize;
            self.settle(w, at);
        }
    }

    /// CPU `c`'s log grew long: a task queued there for a long time (starved, or never seen
    /// to run again) would hold the whole log, so its waiters add up and list what they
    /// waited through so far, and only what they still need is kept.
    #[cold]
    fn compact(&mut self, c: usize, at: u64) {
        for i in 0..self.queues[c].waiters.len() {
            let w = self.queues[c].waiters[i] as usize;
            self.settle(w, at);
            self.list_stay(w);
        }
        let oldest = self.queues[c]
            .waiters
            .iter()
            .map(|&w| self.open[w as usize].entry)
            .min();
        self.queues[c].compact(oldest);
    }

    /// The `sched_wakeup` of a wait `sched_waking` began: everything so far was the enqueue.
    pub(crate) fn enqueued(&mut self, slot: usize, now: u64) {
        match self.open.get(slot) {
            Some(o) if o.active && o.awaiting_enqueue => {}
            _ => return,
        }
        // What the wait added up to so far becomes the enqueue piece: it is not summed.
        self.skip_to(slot, now);
        let o = &mut self.open[slot];
        o.awaiting_enqueue = false;
        o.first_cpu = o.cpu;
        o.clear_pieces();
        self.idle_split.reset(slot);
        let o = &mut self.open[slot];
        let enqueue = Piece {
            kind: PieceKind::Enqueue,
            cpu: o.cpu,
            pid: 0,
            start: o.start,
            end: now,
        };
        o.add(enqueue);
        o.stay_entry = o.entry;
        o.stay_from = o.since;
    }

    /// The wait of task `slot` ended without a sample (not counted): it is dropped.
    pub(crate) fn discard(&mut self, slot: usize) {
        self.leave(slot);
        if let Some(o) = self.open.get_mut(slot) {
            o.active = false;
        }
    }

    /// Task `slot` is switched in on `cpu` at `now`, ending a counted wait (a sched delay
    /// sample); `end` says what the CPU's occupant did. Returns the wait's length.
    pub(crate) fn end(&mut self, slot: usize, cpu: u32, now: u64, end: WaitEnd) -> u64 {
        if !self.open.get(slot).is_some_and(|o| o.active) {
            // Only possible if the task was never seen runnable: nothing to split.
            return 0;
        }
        self.settle(slot, now);
        if slot >= self.totals.len() {
            self.totals.resize_with(slot + 1, Totals::default);
        }
        let o = &self.open[slot];
        let len = now - o.start;
        let longest = self.totals[slot]
            .longest
            .as_ref()
            .is_none_or(|l| len > l.end - l.start);
        if longest {
            self.list_stay(slot);
        }
        self.leave(slot);
        self.idle_split.commit(slot);
        let o = &mut self.open[slot];
        o.active = false;
        let t = &mut self.totals[slot];
        t.add(o);
        let pulled = o.first_cpu >= 0 && o.first_cpu != cpu as i32;
        t.ended_by.count(if pulled { WaitEnd::Pulled } else { end });
        if o.busy_target {
            t.placement.count(o.idle_elsewhere, len);
        }
        if longest {
            let l = t.longest.get_or_insert_with(Longest::default);
            l.start = o.start;
            l.end = now;
            l.pieces.clone_from(&o.pieces);
            l.left_out = o.pieces_seen - o.pieces.len() as u64;
        }
        len
    }

    /// The totals of task `slot` (none when it never ended a counted wait).
    pub(crate) fn totals(&self, slot: usize) -> Option<&Totals> {
        self.totals.get(slot)
    }

    /// Adds up task `slot`'s wait from where it was settled to `at`, from what its
    /// runqueue's CPU ran meanwhile (unknown when it is on no named runqueue).
    fn settle(&mut self, slot: usize, at: u64) {
        let o = &mut self.open[slot];
        if !o.active || at <= o.since {
            return;
        }
        let cpu = o.cpu;
        let Some(q) = (cpu >= 0).then(|| self.queues.get(cpu as usize)).flatten() else {
            // Nothing to read again later: listed at once.
            let piece = Piece {
                kind: PieceKind::Unknown,
                cpu,
                pid: 0,
                start: o.since,
                end: at,
            };
            o.add(piece);
            o.since = at;
            o.stay_from = at;
            return;
        };
        let split = &mut self.idle_split;
        if split.on() {
            o.sum_stretch(q, cpu, at, |len| split.piece(slot, cpu as u32, len));
        } else {
            o.sum_stretch(q, cpu, at, |_| {});
        }
    }

    /// Moves task `slot`'s settled time to `at` without adding up what it passes (its
    /// sums are about to be cleared): only the log entry in force at `at` is kept.
    fn skip_to(&mut self, slot: usize, at: u64) {
        let o = &mut self.open[slot];
        if at <= o.since {
            return;
        }
        if let Some(q) = (o.cpu >= 0)
            .then(|| self.queues.get(o.cpu as usize))
            .flatten()
        {
            o.entry = q.entry_at(o.entry, at);
        }
        o.since = at;
    }

    /// Lists the pieces of task `slot`'s stretch on its runqueue not listed yet (up to where
    /// it is settled), unless its list is full already.
    fn list_stay(&mut self, slot: usize) {
        let o = &mut self.open[slot];
        if !o.active || o.stay_from >= o.since || o.cpu < 0 {
            return;
        }
        let (cpu, own) = (o.cpu, o.pid);
        if !o.list_full() {
            let q = &self.queues[cpu as usize];
            q.walk(
                o.stay_entry,
                o.stay_from,
                o.since,
                |occupant, start, end| {
                    o.record(piece_of(occupant, own, cpu, start, end));
                },
            );
        }
        o.stay_entry = o.entry;
        o.stay_from = o.since;
    }

    /// Takes task `slot` off the runqueue list it is on, if any.
    fn leave(&mut self, slot: usize) {
        let Some(o) = self.open.get_mut(slot) else {
            return;
        };
        if o.cpu < 0 {
            return;
        }
        let (cpu, pos) = (o.cpu as usize, o.pos as usize);
        o.cpu = -1;
        let waiters = &mut self.queues[cpu].waiters;
        waiters.swap_remove(pos);
        if let Some(&moved) = waiters.get(pos) {
            self.open[moved as usize].pos = pos as u32;
        }
    }
}

/// The piece of task `own`'s wait on `cpu` while `occupant` ran there.
#[inline]
fn piece_of(occupant: Occupant, own: i32, cpu: i32, start: u64, end: u64) -> Piece {
    let (kind, pid) = kind_of(occupant, own);
    Piece {
        kind,
        cpu,
        pid,
        start,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::wait_causes::PIECES_KEPT;

    fn kinds(t: &Totals) -> (u64, u64, u64, u64) {
        (t.enqueue_ns, t.idle_ns, t.behind_ns, t.unknown_ns)
    }

    /// A task woken onto CPU 1 at 100 (waking) and enqueued at 130 while pid 7 runs there;
    /// pid 8 runs from 200, the CPU goes idle at 250, the task runs at 260.
    #[test]
    fn pieces_tile_the_wait() {
        let mut w = WaitTracker::default();
        w.occupant_changed(1, Occupant::Task(7), 50);
        w.open(0, 42, 100, true, Some(1));
        w.enqueued(0, 130);
        w.occupant_changed(1, Occupant::Task(8), 200);
        w.occupant_changed(1, Occupant::Idle, 250);
        assert_eq!(w.end(0, 1, 260, WaitEnd::Idle), 160);
        let t = w.totals(0).unwrap();
        assert_eq!(kinds(t), (30, 10, 120, 0));
        assert_eq!(t.behind[&7], (70, 1));
        assert_eq!(t.behind[&8], (50, 1));
        assert_eq!(t.ended_by.idle, 1);
        let l = t.longest.as_ref().unwrap();
        assert_eq!(
            (l.start, l.end, l.pieces.len(), l.left_out),
            (100, 260, 4, 0)
        );
    }

    /// Moved from CPU 1 (behind 7) to CPU 2 (idle) at 150: the wait follows and was pulled.
    #[test]
    fn a_migrated_wait_follows_the_task() {
        let mut w = WaitTracker::default();
        w.occupant_changed(1, Occupant::Task(7), 0);
        w.occupant_changed(2, Occupant::Idle, 0);
        w.open(3, 42, 100, false, Some(1));
        w.follow(3, Some(2), 150);
        assert_eq!(w.end(3, 2, 180, WaitEnd::Idle), 80);
        let t = w.totals(3).unwrap();
        assert_eq!(kinds(t), (0, 30, 50, 0));
        assert_eq!((t.ended_by.pulled, t.ended_by.idle), (1, 0));
    }

    /// Lost events on the runqueue's CPU from 120 (learnt at 160): unknown from 120 on, and
    /// a waiter that joined after 120 has no piece before it.
    #[test]
    fn lost_events_make_the_rest_unknown() {
        let mut w = WaitTracker::default();
        w.occupant_changed(1, Occupant::Task(7), 0);
        w.open(0, 42, 100, false, Some(1));
        w.open(1, 43, 140, false, Some(1));
        w.occupant_changed(1, Occupant::Unknown, 120);
        w.occupant_changed(1, Occupant::Task(9), 170);
        assert_eq!(w.end(0, 1, 200, WaitEnd::OccupantBlocked), 100);
        assert_eq!(kinds(w.totals(0).unwrap()), (0, 0, 20 + 30, 50));
        assert_eq!(w.end(1, 1, 210, WaitEnd::OccupantBlocked), 70);
        assert_eq!(kinds(w.totals(1).unwrap()), (0, 0, 40, 30));
    }

    /// Three waiters on one CPU, the middle one leaves first: the list stays consistent.
    #[test]
    fn queue_positions_survive_removal() {
        let mut w = WaitTracker::default();
        w.occupant_changed(0, Occupant::Task(1), 0);
        for slot in 0..3 {
            w.open(slot, 10 + slot as i32, 10, false, Some(0));
        }
        w.end(1, 0, 20, WaitEnd::OccupantPreempted);
        w.occupant_changed(0, Occupant::Task(11), 20);
        w.end(0, 0, 30, WaitEnd::OccupantBlocked);
        w.occupant_changed(0, Occupant::Task(10), 30);
        w.end(2, 0, 40, WaitEnd::OccupantBlocked);
        assert_eq!(w.totals(0).unwrap().behind[&11], (10, 1));
        let t2 = w.totals(2).unwrap();
        assert_eq!(
            (t2.behind[&1], t2.behind[&11], t2.behind[&10]),
            ((10, 1), (10, 1), (10, 1))
        );
    }

    /// Queued on busy CPU 0 while CPU 2 (same LLC) idles and CPU 1 (other LLC) idles with a
    /// task queued, both allowed: the wait counts as one that an idle CPU of the LLC could
    /// have taken (CPU 1, with a task queued, could not). With neither allowed, none could.
    #[test]
    fn a_busy_placement_with_an_idle_allowed_cpu_is_counted() {
        let mut w = WaitTracker::default();
        w.set_llcs(&[Some(0), Some(1), Some(0)]);
        w.occupant_changed(0, Occupant::Task(7), 0);
        w.occupant_changed(1, Occupant::Idle, 0);
        w.occupant_changed(2, Occupant::Idle, 0);
        w.open(5, 50, 10, false, Some(1));
        w.open(0, 42, 100, false, Some(0));
        w.placed(0, 0, true, &[1, 2]);
        w.end(0, 0, 400, WaitEnd::OccupantBlocked);
        let p = w.totals(0).unwrap().placement;
        assert_eq!(
            (p.busy_wakeups, p.idle_allowed_llc, p.wait_llc_ns),
            (1, 1, 300)
        );
        w.open(0, 42, 500, false, Some(0));
        w.placed(0, 0, true, &[]);
        w.end(0, 0, 600, WaitEnd::OccupantBlocked);
        let p = w.totals(0).unwrap().placement;
        assert_eq!(
            (p.busy_wakeups, p.idle_allowed_llc, p.idle_allowed_other),
            (2, 1, 0)
        );
    }

    /// A task queued behind 20,000 switches of two occupants: the CPU's log stays short,
    /// and the wait still adds up exactly.
    #[test]
    fn a_long_wait_does_not_hold_the_log() {
        let mut w = WaitTracker::default();
        w.occupant_changed(0, Occupant::Task(1), 0);
        w.open(0, 42, 0, false, Some(0));
        for i in 1..=20_000u64 {
            w.occupant_changed(0, Occupant::Task(1 + (i % 2) as i32), i * 10);
        }
        assert!(
            w.queues[0].len() <= 2 * 4096,
            "log of {}",
            w.queues[0].len()
        );
        w.end(0, 0, 200_010, WaitEnd::OccupantBlocked);
        let t = w.totals(0).unwrap();
        assert_eq!(t.behind_ns, 200_010);
        assert_eq!((t.behind[&1].0, t.behind[&2].0), (100_010, 100_000));
        assert_eq!((t.behind[&1].1, t.behind[&2].1), (10_001, 10_000));
    }

    fn listed(t: &Totals) -> Vec<(PieceKind, i32, i32, u64, u64)> {
        let l = t.longest.as_ref().unwrap();
        l.pieces
            .iter()
            .map(|p| (p.kind, p.cpu, p.pid, p.start, p.end))
            .collect()
    }

    /// The longest wait's pieces on a runqueue it left are listed when it leaves, those on
    /// its last one when it ends; a shorter wait later does not replace them.
    #[test]
    fn the_longest_wait_lists_every_runqueue_it_was_on() {
        use PieceKind::{Behind, Idle};
        let mut w = WaitTracker::default();
        w.occupant_changed(1, Occupant::Task(7), 0);
        w.occupant_changed(2, Occupant::Idle, 0);
        w.open(0, 42, 100, false, Some(1));
        w.occupant_changed(1, Occupant::Task(8), 120);
        w.follow(0, Some(2), 150);
        w.occupant_changed(2, Occupant::Task(9), 170);
        w.end(0, 2, 200, WaitEnd::OccupantPreempted);
        let expected = [
            (Behind, 1, 7, 100, 120),
            (Behind, 1, 8, 120, 150),
            (Idle, 2, 0, 150, 170),
            (Behind, 2, 9, 170, 200),
        ];
        assert_eq!(listed(w.totals(0).unwrap()), expected);
        w.open(0, 42, 300, false, Some(2));
        w.end(0, 2, 310, WaitEnd::OccupantBlocked);
        assert_eq!(listed(w.totals(0).unwrap()), expected);
        assert_eq!(w.totals(0).unwrap().longest.as_ref().unwrap().left_out, 0);
    }

    /// A wait through several compactions of its CPU's log keeps its first pieces, and
    /// counts the rest.
    #[test]
    fn the_longest_wait_survives_compaction() {
        let mut w = WaitTracker::default();
        w.occupant_changed(0, Occupant::Task(1), 0);
        w.open(0, 42, 5, true, Some(0));
        w.enqueued(0, 7);
        for i in 1..=20_000u64 {
            w.occupant_changed(0, Occupant::Task(1 + (i % 2) as i32), i * 10);
        }
        w.end(0, 0, 200_010, WaitEnd::OccupantBlocked);
        let t = w.totals(0).unwrap();
        let pieces = listed(t);
        assert_eq!(pieces.len(), PIECES_KEPT);
        assert_eq!(pieces[0], (PieceKind::Enqueue, 0, 0, 5, 7));
        assert_eq!(pieces[1], (PieceKind::Behind, 0, 1, 7, 10));
        for (i, p) in pieces.iter().enumerate().skip(2) {
            let i = i as u64 - 1;
            let pid = 1 + (i % 2) as i32;
            assert_eq!(*p, (PieceKind::Behind, 0, pid, i * 10, i * 10 + 10));
        }
        let l = t.longest.as_ref().unwrap();
        assert_eq!(l.left_out, 1 + 20_001 - PIECES_KEPT as u64);
    }

    /// A wait on no named runqueue is unknown; one dropped leaves nothing behind.
    #[test]
    fn unnamed_queue_is_unknown_and_discard_drops() {
        let mut w = WaitTracker::default();
        w.open(0, 42, 100, false, None);
        assert_eq!(w.end(0, 0, 150, WaitEnd::Unknown), 50);
        assert_eq!(kinds(w.totals(0).unwrap()), (0, 0, 0, 50));
        w.open(1, 43, 100, false, Some(0));
        w.discard(1);
        assert!(w.totals(1).is_none());
        w.occupant_changed(0, Occupant::Idle, 120);
        assert!(w.queues[0].waiters.is_empty());
    }
}
