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
#[derive(Debug, Clone)]
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
    Llcs(Box<[Option<u32>]>),
}

#[derive(Debug, Default)]
struct Batch {
    calls: Vec<Call>,
    cpus: Vec<u32>,
}

impl Batch {
    fn apply(&mut self, w: &mut WaitTracker) {
        for call in self.calls.drain(..) {
            match call {
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
                Call::Llcs(llc_of) => w.set_llcs(&llc_of),
            }
        }
        self.cpus.clear();
    }
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
                cpus: Vec::new(),
            },
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
                    cpus: Vec::new(),
                });
                std::mem::swap(&mut next, &mut self.batch);
                if w.full.send(next).is_err() {
                    // The worker is gone: it panicked, and `finish` says so.
                    self.batch.calls.clear();
                    self.batch.cpus.clear();
                }
            }
        }
    }

    /// The tracker with every call applied (later calls start a tracker anew).
    pub(crate) fn finish(&mut self) -> WaitTracker {
        self.hand_over();
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
        self.push(Call::Open {
            slot: slot as u32,
            pid,
            at,
            awaiting_enqueue,
            queued_on,
        });
    }

    /// As [`WaitTracker::placed`], with the CPUs other than `target` that were idle and
    /// that the task may use, in increasing order (read only when `busy`).
    pub(crate) fn placed(
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
        self.push(Call::Enqueued {
            slot: slot as u32,
            now,
        });
    }

    pub(crate) fn discard(&mut self, slot: usize) {
        self.push(Call::Discard { slot: slot as u32 });
    }

    pub(crate) fn end(&mut self, slot: usize, cpu: u32, now: u64, end: WaitEnd) {
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
        self.push(Call::Llcs(llc_of.into()));
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
}
