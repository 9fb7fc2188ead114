//! Merges the per-CPU streams into one time-ordered stream in bounded batches.
//!
//! Each round decodes the next few pages of every CPU whose buffer ran low, in
//! parallel (rayon), then emits, in `(ts, cpu)` order, every buffered event up to
//! the bound `min((last decoded ts, cpu))` over CPUs that still have pages: no
//! later page can hold anything before that. The bounding CPU is drained every
//! round, so progress is guaranteed, and memory stays at a few pages per CPU
//! whatever the file size. Decoding and merging run on their own thread, one merged batch
//! ahead of the sink.

use super::stream::{CpuStream, Shared};
use crate::error::Result;
use crate::event::{Comm, Event, EventKind, EventSink};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Pages decoded per CPU per round (~100 events each).
const PAGES_PER_FILL: usize = 64;
/// A CPU is refilled when fewer events than this are buffered.
const REFILL_BELOW: usize = 8192;

/// Decodes and merges on a second thread while the caller's thread feeds the sink, so the
/// analysis of one batch overlaps the decoding of the next (the sink need not be `Send`).
pub(super) fn run(
    streams: &mut [CpuStream],
    shared: &Shared,
    cmdlines: &[(i32, Comm)],
    sink: &mut dyn EventSink,
) -> Result<()> {
    if rayon::current_thread_index().is_some() || shared.progress.options().one_thread {
        // Called from a rayon worker (a caller reading several traces on the pool): a thread
        // blocked here waiting for batches would hold a worker that the decoding needs, and
        // with every worker waiting nothing decodes. Decode and feed inline instead (as asked
        // with `ReadOptions::one_thread`).
        return merge_batches(streams, shared, cmdlines, |batch| {
            for event in batch.drain(..) {
                sink.event(&event);
            }
            true
        });
    }
    crate::relay::run_batches(
        |deliver| merge_batches(streams, shared, cmdlines, |batch| deliver.batch(batch)),
        sink,
    )
}

/// Fills `batch` round by round with events in `(ts, cpu)` order and hands each round to
/// `deliver` (which returns false to stop).
fn merge_batches(
    streams: &mut [CpuStream],
    shared: &Shared,
    cmdlines: &[(i32, Comm)],
    mut deliver: impl FnMut(&mut Vec<Event>) -> bool,
) -> Result<()> {
    let mut names_pending = !cmdlines.is_empty();
    let mut heap = BinaryHeap::with_capacity(streams.len());
    let mut batch = Vec::new();
    loop {
        let results: Vec<Result<()>> = streams
            .par_iter_mut()
            .filter(|s| !s.exhausted && s.buf.len() < REFILL_BELOW)
            .map(|s| s.fill(shared, PAGES_PER_FILL))
            .collect();
        // Report the lowest CPU's error, deterministically.
        results.into_iter().collect::<Result<Vec<()>>>()?;

        let bound = streams
            .iter()
            .filter(|s| !s.exhausted)
            .map(|s| (s.last_ts, s.cpu))
            .min();
        let within = |e: &Event| !matches!(bound, Some(b) if (e.ts, e.cpu) > b);
        heap.clear();
        for (i, s) in streams.iter().enumerate() {
            if let Some(e) = s.buf.front().filter(|e| within(e)) {
                heap.push(Reverse((e.ts, e.cpu, i)));
            }
        }
        if names_pending {
            if let Some(&Reverse((ts, cpu, _))) = heap.peek() {
                // The saved task names go out first, stamped with the first event's time.
                names_pending = false;
                batch.extend(cmdlines.iter().map(|&(pid, comm)| Event {
                    ts,
                    cpu,
                    current_pid: -1,
                    kind: EventKind::TaskName {
                        pid,
                        tgid: -1,
                        comm,
                    },
                }));
            }
        }
        while let Some(Reverse((_, _, i))) = heap.pop() {
            // Stream `i` holds the earliest event, and keeps the lead until its front passes
            // the next stream's (the heap's top): its run of events goes out in one copy,
            // without a heap operation per event (a CPU's events mostly come in runs between
            // the others').
            let rival = heap.peek().map(|&Reverse(key)| key);
            let stream = &mut streams[i];
            let run = 1 + stream
                .buf
                .iter()
                .skip(1)
                .take_while(|e| within(e) && rival.is_none_or(|r| (e.ts, e.cpu, i) < r))
                .count();
            batch.extend(stream.buf.range(..run));
            stream.buf.drain(..run);
            if let Some(e) = stream.buf.front().filter(|e| within(e)) {
                heap.push(Reverse((e.ts, e.cpu, i)));
            }
        }
        if !batch.is_empty() && !deliver(&mut batch) {
            return Ok(());
        }
        if bound.is_none() && streams.iter().all(|s| s.buf.is_empty()) {
            return Ok(());
        }
    }
}
