//! How far a read has got, for another thread to show (a progress bar, the TUI) and to stop.
//!
//! A [`Progress`] is shared by reference (or in an `Arc`) between the reading thread(s) and an
//! observer. The readers move it forward once per chunk of work (a fill of trace.dat pages, a
//! perf.data round, a text chunk, a run of Perfetto packets, a block of decompressed output),
//! never per event: an atomic add per event would cost more than decoding some events. At the
//! same points they look at the cancellation flag and stop with [`Error::cancelled`].
//!
//! Bytes are the input bytes worked through. A compressed input is worked through twice, once
//! as compressed bytes by the decompressor and once as plain bytes by the format's reader, so
//! its total grows when the plain size becomes known; a pipe has no total until it ends. A
//! finished read has `bytes() == total()`. Several inputs may share one `Progress` (`compare`):
//! every figure is a sum.

use crate::event::{Event, EventSink, Marks};
use crate::{Error, ReadOptions, Result, TraceMeta};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Counters of a read in progress (all monotonic) and its cancellation flag.
#[derive(Debug, Default)]
pub struct Progress {
    bytes: AtomicU64,
    total: AtomicU64,
    events: AtomicU64,
    cancelled: AtomicBool,
}

impl Progress {
    pub fn new() -> Progress {
        Progress::default()
    }

    /// Input bytes worked through so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Relaxed)
    }

    /// Input bytes to work through, as far as known yet (`None` before any is known).
    pub fn total(&self) -> Option<u64> {
        Some(self.total.load(Relaxed)).filter(|&t| t > 0)
    }

    /// Events handed to the sink so far.
    pub fn events(&self) -> u64 {
        self.events.load(Relaxed)
    }

    /// Asks every read using this `Progress` to stop at its next chunk boundary.
    pub fn cancel(&self) {
        self.cancelled.store(true, Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Relaxed)
    }

    /// `n` more bytes are to be worked through.
    pub(crate) fn add_total(&self, n: u64) {
        self.total.fetch_add(n, Relaxed);
    }

    /// `n` more bytes are done; the end of a chunk, so also the place to stop when cancelled.
    pub(crate) fn advance(&self, n: u64) -> Result<()> {
        if n > 0 {
            self.bytes.fetch_add(n, Relaxed);
        }
        self.check()
    }

    /// `Err(Error::cancelled())` once [`Progress::cancel`] was called.
    pub(crate) fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            Err(Error::cancelled())
        } else {
            Ok(())
        }
    }
}

/// One input's share of a [`Progress`] (several inputs may share one): what the reader of that
/// input reports, as a position reached or as bytes done, and the top-up to the input's size at
/// the end (a reader skips headers and padding it never reports); and the run's
/// [`ReadOptions`] for that input, since every reader threads its tracker down to where damage
/// is met and bytes inflate; and the input's marker table ([`Marks`]), for the same reason: the
/// readers meet markers where they decode. `Sync`: trace.dat's CPU streams report from several
/// threads.
pub(crate) struct Tracker<'p> {
    progress: &'p Progress,
    options: ReadOptions,
    marks: Marks,
    /// Bytes of this input added to `progress` so far.
    done: AtomicU64,
    /// Highest position given to [`Tracker::reached`].
    reached: AtomicU64,
}

impl<'p> Tracker<'p> {
    /// A tracker with the default [`ReadOptions`].
    pub(crate) fn new(progress: &'p Progress) -> Tracker<'p> {
        Tracker::with_options(progress, ReadOptions::default())
    }

    pub(crate) fn with_options(progress: &'p Progress, options: ReadOptions) -> Tracker<'p> {
        Tracker {
            progress,
            options,
            marks: Marks::default(),
            done: AtomicU64::new(0),
            reached: AtomicU64::new(0),
        }
    }

    pub(crate) fn progress(&self) -> &'p Progress {
        self.progress
    }

    /// The read options of this input's run.
    pub(crate) fn options(&self) -> ReadOptions {
        self.options
    }

    /// The marker table of this input.
    pub(crate) fn marks(&self) -> &Marks {
        &self.marks
    }

    /// This tracker with `marks` as its marker table: a reader's inner tracker (counting other
    /// bytes) puts its markers where the input's are.
    pub(crate) fn with_marks(mut self, marks: Marks) -> Tracker<'p> {
        self.marks = marks;
        self
    }

    /// A fresh inflation account for this input, with the run's limit.
    pub(crate) fn budget(&self) -> crate::inflate::Budget {
        crate::inflate::Budget::new(self.options.max_inflate)
    }

    /// `n` more bytes of this input are done (the end of a chunk: stops when cancelled).
    pub(crate) fn advance(&self, n: u64) -> Result<()> {
        self.done.fetch_add(n, Relaxed);
        self.progress.advance(n)
    }

    /// The reader has worked through the input up to offset `at`; only new ground counts
    /// (the end of a chunk: stops when cancelled).
    pub(crate) fn reached(&self, at: u64) -> Result<()> {
        let before = self.reached.fetch_max(at, Relaxed);
        self.advance(at.saturating_sub(before))
    }

    /// An input whose size was not known up front (a pipe) has ended: what it gave is its total.
    pub(crate) fn finish_stream(&self) {
        self.progress.add_total(self.done.load(Relaxed));
    }

    /// Runs `read` over an input of `len` bytes: its size is added to the total first and the
    /// count topped up to it at the end (readers report the chunks they work through, not
    /// headers or padding).
    pub(crate) fn whole<T>(&self, len: u64, read: impl FnOnce() -> Result<T>) -> Result<T> {
        self.progress.add_total(len);
        let got = read()?;
        self.finish(len);
        Ok(got)
    }

    /// The input, `len` bytes, has been read to its end.
    pub(crate) fn finish(&self, len: u64) {
        let rest = len.saturating_sub(self.done.swap(len, Relaxed));
        self.progress.bytes.fetch_add(rest, Relaxed);
    }
}

/// Events published to the shared counter every this many (a power of two: a mask test).
const PUBLISH_EVERY: u64 = 4096;

/// An [`EventSink`] in front of the caller's that counts events into a [`Progress`]: one plain
/// increment per event, one atomic store per [`PUBLISH_EVERY`]. Sits at the top of every read
/// so that each format gets the count without counting itself.
pub(crate) struct Counting<'a> {
    pub inner: &'a mut dyn EventSink,
    progress: &'a Progress,
    /// The counter's value when this sink started (several inputs may share it).
    base: u64,
    seen: u64,
}

impl<'a> Counting<'a> {
    pub(crate) fn new(inner: &'a mut dyn EventSink, progress: &'a Progress) -> Counting<'a> {
        Counting {
            inner,
            progress,
            base: 0,
            seen: 0,
        }
    }

    /// Publishes the final count (the read is over).
    pub(crate) fn finish(&mut self) {
        self.publish();
    }

    fn publish(&mut self) {
        self.progress
            .events
            .fetch_add(self.seen - self.base, Relaxed);
        self.base = self.seen;
    }
}

impl EventSink for Counting<'_> {
    #[inline]
    fn event(&mut self, event: &Event) {
        self.inner.event(event);
        self.seen += 1;
        if self.seen.is_multiple_of(PUBLISH_EVERY) {
            self.publish();
        }
    }

    fn events(&mut self, events: &[Event]) {
        self.inner.events(events);
        let before = self.seen;
        self.seen += events.len() as u64;
        if self.seen / PUBLISH_EVERY != before / PUBLISH_EVERY {
            self.publish();
        }
    }

    fn meta(&mut self, meta: &TraceMeta) {
        self.inner.meta(meta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracker_counts_new_ground_only_and_stops_when_cancelled() {
        let p = Progress::new();
        let t = Tracker::new(&p);
        t.reached(100).unwrap();
        t.reached(40).unwrap();
        t.reached(250).unwrap();
        t.advance(10).unwrap();
        assert_eq!(p.bytes(), 260);
        t.finish(1000);
        assert_eq!(p.bytes(), 1000);
        p.cancel();
        let e = t.reached(2000).unwrap_err();
        assert!(e.is_cancelled(), "{e}");
    }

    #[test]
    fn counting_sink_publishes_in_steps_and_at_the_end() {
        let p = Progress::new();
        let mut n = 0u64;
        let mut inner = |_: &Event| n += 1;
        let mut sink = Counting::new(&mut inner, &p);
        let e = Event {
            ts: 0,
            cpu: 0,
            current_pid: 0,
            kind: crate::EventKind::Other,
        };
        for _ in 0..PUBLISH_EVERY + 5 {
            sink.event(&e);
        }
        assert_eq!(p.events(), PUBLISH_EVERY);
        sink.finish();
        assert_eq!(p.events(), PUBLISH_EVERY + 5);
        assert_eq!(n, PUBLISH_EVERY + 5);
    }
}
