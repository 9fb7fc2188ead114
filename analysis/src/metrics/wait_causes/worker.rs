//! The wait causes on a thread of their own.
//!
//! Splitting every wait by what its runqueue's CPU ran is a good part of the analysis's
//! work, and the analysis thread is the one a whole `analyze` waits for: the decoding
//! thread beside it is idle much of the time. The splitting needs nothing from the rest of
//! the analysis but the calls the engine makes, in order, with their arguments, so the
//! engine writes those calls into batches ([`Call`]) and a worker thread applies them to
//! the [`WaitTracker`]; the tracker comes back when the analysis finishes. The report is
//! the same either way: on a machine with one CPU (or when the thread cannot be started)
//! the batches are applied on the caller's thread, by the same code.
//!
//! The one call that reads state of the analysis thread, a wakeup's placement, takes it
//! along: the CPUs that were idle and allowed to the task at that moment.
//!
//! Most of the engine's calls about a task change nothing in the tracker: a task that is
//! not waiting moves between runqueues, a wakeup finds a wait already placed on an idle
//! CPU. [`Waits`] keeps what the calls sent so far say about each task's wait ([`Sent`])
//! and leaves out the calls the tracker would ignore, which are a good half of them.

use super::tracker::WaitTracker;
use super::WaitEnd;
use crate::cpu::Occupant;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

/// Calls per batch: the channel costs nothing per call, and a batch stays in the cache.
const BATCH: usize = 4096;
/// Batches in flight: how far the analysis may run ahead of the worker (a bound on memory).
const IN_FLIGHT: usize = 4;

/// One call to the tracker, as the engine made it (`WaitTracker`'s methods say what each
/// does).
#[derive(Debug, Clone, Copy)]
enum Call {
    Open {
        slot: u32,
        pid: i32,
        at: u64,
        awaiting_enqueue: bool,
        queued_on: Option<u32>,
    },
    /// `idle` indexes the batch's `cpus`: the CPUs idle and allowed to the task.
    Placed {
        slot: u32,
        target: i32,
        busy: bool,
        idle: (u32, u32),
    },
    Follow {
        slot: u32,
        queued_on: Option<u32>,
        now: u64,
    },
    OccupantChanged {
        cpu: u32,
        occupant: Occupant,
        at: u64,
    },
    Enqueued {
        slot: u32,
        now: u64,
    },
    Discard {
        slot: u32,
    },
    End {
        slot: u32,
        cpu: u32,
        now: u64,
        end: WaitEnd,
    },
    CpuIdle {
        cpu: u32,
        state: u32,
    },
    /// Indexes the batch's `llcs`.
    Llcs(u32),
}

#[derive(Debug, Default)]
struct Batch {
    calls: Vec<Call>,
    cpus: Vec<u32>,
    llcs: Vec<Box<[Option<u32>]>>,
}

impl Batch {
    fn apply(&mut self, w: &mut WaitTracker) {
        for call in &self.calls {
            match *call {
                Call::Open {
                    slot,
                    pid,
                    at,
                    awaiting_enqueue,
                    queued_on,
                } => w.open(slot as usize, pid, at, awaiting_enqueue, queued_on),
                Call::Placed {
                    slot,
                    target,
                    busy,
                    idle: (from, to),
                } => w.placed(
                    slot as usize,
                    target,
                    busy,
                    &self.cpus[from as usize..to as usize],
                ),
                Call::Follow {
                    slot,
                    queued_on,
                    now,
                } => w.follow(slot as usize, queued_on, now),
                Call::OccupantChanged { cpu, occupant, at } => {
                    w.occupant_changed(cpu, occupant, at)
                }
                Call::Enqueued { slot, now } => w.enqueued(slot as usize, now),
                Call::Discard { slot } => w.discard(slot as usize),
                Call::End {
                    slot,
                    cpu,
                    now,
                    end,
                } => {
                    w.end(slot as usize, cpu, now, end);
                }
                Call::CpuIdle { cpu, state } => w.idle_split.cpu_idle(cpu, state),
                Call::Llcs(i) => w.set_llcs(&self.llcs[i as usize]),
            }
        }
        self.calls.clear();
        self.cpus.clear();
        self.llcs.clear();
    }
}

/// What the calls sent so far say about task slot's wait, as the tracker has it: whether
/// one is open, the runqueue it is queued on (-1: none), whether it awaits its enqueue,
/// whether a wakeup placed it on a busy CPU.
#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    open: bool,
    cpu: i32,
    awaiting_enqueue: bool,
    busy: bool,
}

/// The worker thread: full batches go to it, emptied ones come back.
#[derive(Debug)]
struct Worker {
    full: SyncSender<Batch>,
    emptied: Receiver<Batch>,
    thread: JoinHandle<WaitTracker>,
}

/// The wait causes as the engine sees them: it calls these as it would the tracker's
/// methods, and takes the tracker with [`Waits::finish`].
#[derive(Debug)]
pub(crate) struct Waits {
    batch: Batch,
    /// Per task slot (calls for a slot past its end find no wait).
    sent: Vec<Sent>,
    worker: Option<Worker>,
    /// The tracker, when the batches are applied here.
    here: WaitTracker,
}

impl Default for Waits {
    fn default() -> Waits {
        Waits::new(std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
    }
}

impl Waits {
    /// On a worker thread when `threaded` (and a thread can be started), else here.
    pub(crate) fn new(threaded: bool) -> Waits {
        Waits {
            batch: Batch {
                calls: Vec::with_capacity(BATCH),
                ..Batch::default()
            },
            sent: Vec::new(),
            worker: threaded.then(spawn).flatten(),
            here: WaitTracker::default(),
        }
    }

    #[inline]
    fn push(&mut self, call: Call) {
        self.batch.calls.push(call);
        if self.batch.calls.len() >= BATCH {
            self.hand_over();
        }
    }

    /// Applies the batch here, or sends it to the worker (taking an emptied one back).
    fn hand_over(&mut self) {
        match &mut self.worker {
            None => self.batch.apply(&mut self.here),
            Some(w) => {
                let mut next = w.emptied.try_recv().unwrap_or_else(|_| Batch {
                    calls: Vec::with_capacity(BATCH),
                    ..Batch::default()
                });
                std::mem::swap(&mut next, &mut self.batch);
                if w.full.send(next).is_err() {
                    // The worker is gone: it panicked, and `finish` says so.
                    self.batch.calls.clear();
                    self.batch.cpus.clear();
                    self.batch.llcs.clear();
                }
            }
        }
    }

    /// The tracker with every call applied (later calls start a tracker anew).
    pub(crate) fn finish(&mut self) -> WaitTracker {
        self.hand_over();
        self.sent.clear();
        match self.worker.take() {
            None => std::mem::take(&mut self.here),
            Some(w) => {
                drop(w.full);
                match w.thread.join() {
                    Ok(tracker) => tracker,
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        }
    }

    pub(crate) fn open(
        &mut self,
        slot: usize,
        pid: i32,
        at: u64,
        awaiting_enqueue: bool,
        queued_on: Option<u32>,
    ) {
        if slot >= self.sent.len() {
            self.sent.resize(slot + 1, Sent::default());
        }
        self.sent[slot] = Sent {
            open: true,
            cpu: queued_on.map_or(-1, |c| c as i32),
            awaiting_enqueue,
            busy: false,
        };
        self.push(Call::Open {
            slot: slot as u32,
            pid,
            at,
            awaiting_enqueue,
            queued_on,
        });
    }

    /// The open wait of task `slot`, if any.
    #[inline]
    fn open_wait(&mut self, slot: usize) -> Option<&mut Sent> {
        self.sent.get_mut(slot).filter(|s| s.open)
    }

    /// As [`WaitTracker::placed`], with the CPUs other than `target` that were idle and
    /// that the task may use, in increasing order (read only when `busy`).
    #[inline]
    pub(crate) fn placed(
        &mut self,
        slot: usize,
        target: i32,
        busy: bool,
        idle_allowed: impl Iterator<Item = u32>,
    ) {
        // A wait not placed on a busy CPU yet stays so when this one is not either.
        match self.open_wait(slot) {
            Some(s) if busy || s.busy => s.busy = busy,
            _ => return,
        }
        self.push_placed(slot, target, busy, idle_allowed);
    }

    /// [`Waits::placed`]'s call, out of line: most wakeups need none.
    #[inline(never)]
    fn push_placed(
        &mut self,
        slot: usize,
        target: i32,
        busy: bool,
        idle_allowed: impl Iterator<Item = u32>,
    ) {
        let from = self.batch.cpus.len() as u32;
        if busy {
            self.batch.cpus.extend(idle_allowed);
        }
        let to = self.batch.cpus.len() as u32;
        self.push(Call::Placed {
            slot: slot as u32,
            target,
            busy,
            idle: (from, to),
        });
    }

    #[inline]
    pub(crate) fn follow(&mut self, slot: usize, queued_on: Option<u32>, now: u64) {
        let cpu = queued_on.map_or(-1, |c| c as i32);
        match self.open_wait(slot) {
            Some(s) if s.cpu != cpu => s.cpu = cpu,
            _ => return,
        }
        self.push(Call::Follow {
            slot: slot as u32,
            queued_on,
            now,
        });
    }

    pub(crate) fn occupant_changed(&mut self, cpu: u32, occupant: Occupant, at: u64) {
        self.push(Call::OccupantChanged { cpu, occupant, at });
    }

    pub(crate) fn enqueued(&mut self, slot: usize, now: u64) {
        match self.open_wait(slot) {
            Some(s) if s.awaiting_enqueue => s.awaiting_enqueue = false,
            _ => return,
        }
        self.push(Call::Enqueued {
            slot: slot as u32,
            now,
        });
    }

    /// Closes the wait of task `slot` as the tracker does: false when none is open.
    fn close(&mut self, slot: usize) -> bool {
        match self.open_wait(slot) {
            Some(s) => {
                *s = Sent::default();
                true
            }
            None => false,
        }
    }

    pub(crate) fn discard(&mut self, slot: usize) {
        if !self.close(slot) {
            return;
        }
        self.push(Call::Discard { slot: slot as u32 });
    }

    pub(crate) fn end(&mut self, slot: usize, cpu: u32, now: u64, end: WaitEnd) {
        if !self.close(slot) {
            return;
        }
        self.push(Call::End {
            slot: slot as u32,
            cpu,
            now,
            end,
        });
    }

    pub(crate) fn cpu_idle(&mut self, cpu: u32, state: u32) {
        self.push(Call::CpuIdle { cpu, state });
    }

    pub(crate) fn set_llcs(&mut self, llc_of: &[Option<u32>]) {
        let i = self.batch.llcs.len() as u32;
        self.batch.llcs.push(llc_of.into());
        self.push(Call::Llcs(i));
    }
}

/// Starts the worker; `None` when no thread can be started.
fn spawn() -> Option<Worker> {
    let (full, incoming) = sync_channel::<Batch>(IN_FLIGHT);
    let (give_back, emptied): (Sender<Batch>, Receiver<Batch>) = channel();
    let thread = std::thread::Builder::new()
        .name("wait causes".into())
        .spawn(move || {
            let mut tracker = WaitTracker::default();
            for mut batch in incoming {
                batch.apply(&mut tracker);
                // The analysis may have finished and gone: the batch is then dropped.
                let _ = give_back.send(batch);
            }
            tracker
        })
        .ok()?;
    Some(Worker {
        full,
        emptied,
        thread,
    })
}

#[cfg(test)]
mod tests {
    use super::super::totals::Totals;
    use super::*;

    /// The same calls give the same totals on a worker thread and here, across batches.
    #[test]
    fn a_worker_applies_the_calls_in_order() {
        let run = |threaded: bool| {
            let mut w = Waits::new(threaded);
            w.set_llcs(&[Some(0), Some(0)]);
            w.occupant_changed(1, Occupant::Idle, 0);
            for i in 0..10_000u64 {
                let t = i * 100;
                w.occupant_changed(0, Occupant::Task(7 + (i % 3) as i32), t);
                w.open(0, 42, t + 10, true, Some(0));
                w.enqueued(0, t + 20);
                w.placed(0, 0, true, [1].into_iter());
                w.end(0, 0, t + 90, WaitEnd::OccupantBlocked);
            }
            let tracker = w.finish();
            assert!(w.finish().totals(0).is_none());
            let t = tracker.totals(0).unwrap().clone();
            (
                t.enqueue_ns,
                t.behind_ns,
                t.behind.get(&7).copied(),
                t.placement,
            )
        };
        let threaded = run(true);
        assert_eq!(threaded, run(false));
        assert_eq!((threaded.0, threaded.1), (10_000 * 10, 10_000 * 70));
        assert_eq!(threaded.2, Some((3334 * 70, 3334)));
        assert_eq!(threaded.3.idle_allowed_llc, 10_000);
    }

    /// Random calls through [`Waits`] (which leaves some out) and straight to a tracker
    /// give the same totals, idle split included.
    #[test]
    fn the_calls_left_out_change_nothing() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut waits = Waits::new(false);
        let mut direct = WaitTracker::default();
        let llcs = [Some(0), Some(0), Some(1)];
        waits.set_llcs(&llcs);
        direct.set_llcs(&llcs);
        for i in 0..200_000u64 {
            let t = i * 10;
            let slot = next(6) as usize;
            let cpu = next(3) as u32;
            let queued = (next(4) > 0).then_some(cpu);
            match next(9) {
                0 => {
                    let awaiting = next(2) == 0;
                    waits.open(slot, 40 + slot as i32, t, awaiting, queued);
                    direct.open(slot, 40 + slot as i32, t, awaiting, queued);
                }
                1 => {
                    let busy = next(2) == 0;
                    let idle: Vec<u32> = (0..3).filter(|&c| c != cpu && next(2) == 0).collect();
                    waits.placed(slot, cpu as i32, busy, idle.iter().copied());
                    direct.placed(slot, cpu as i32, busy, if busy { &idle } else { &[] });
                }
                2 | 3 => {
                    waits.follow(slot, queued, t);
                    direct.follow(slot, queued, t);
                }
                4 => {
                    let occupant = match next(5) {
                        0 => Occupant::Idle,
                        1 => Occupant::Unknown,
                        p => Occupant::Task(40 + p as i32),
                    };
                    waits.occupant_changed(cpu, occupant, t);
                    direct.occupant_changed(cpu, occupant, t);
                }
                5 => {
                    waits.enqueued(slot, t);
                    direct.enqueued(slot, t);
                }
                6 => {
                    waits.discard(slot);
                    direct.discard(slot);
                }
                7 => {
                    let state = next(3) as u32;
                    waits.cpu_idle(cpu, state);
                    direct.idle_split.cpu_idle(cpu, state);
                }
                _ => {
                    waits.end(slot, cpu, t, WaitEnd::OccupantBlocked);
                    direct.end(slot, cpu, t, WaitEnd::OccupantBlocked);
                }
            }
        }
        let filtered = waits.finish();
        for slot in 0..6 {
            let (a, b) = (filtered.totals(slot).unwrap(), direct.totals(slot).unwrap());
            let sorted = |t: &Totals| {
                let mut v: Vec<_> = t.behind.iter().map(|(&p, &e)| (p, e)).collect();
                v.sort_unstable();
                v
            };
            let longest = |t: &Totals| {
                t.longest
                    .as_ref()
                    .map(|l| (l.start, l.end, l.pieces.clone(), l.left_out))
            };
            assert_eq!(
                (a.enqueue_ns, a.idle_ns, a.behind_ns, a.unknown_ns),
                (b.enqueue_ns, b.idle_ns, b.behind_ns, b.unknown_ns)
            );
            assert_eq!(sorted(a), sorted(b));
            assert_eq!((a.ended_by, a.placement), (b.ended_by, b.placement));
            assert_eq!(longest(a), longest(b));
            assert_eq!(filtered.idle_split.task(slot), direct.idle_split.task(slot));
            assert!(a.behind_ns > 0 && a.idle_ns > 0 && a.enqueue_ns > 0 && a.unknown_ns > 0);
            assert!(a.placement.busy_wakeups > 0 && !filtered.idle_split.task(slot).is_empty());
        }
    }
}
