//! Merges the per-CPU streams into one time-ordered stream in bounded batches.
//!
//! Each round decodes the next few pages of every CPU whose buffer ran low, in
//! parallel (rayon), then emits, in `(ts, cpu)` order, every buffered event up to
//! the bound `min((last decoded ts, cpu))` over CPUs that still have pages: no
//! later page can hold anything before that. The bounding CPU is drained every
//! round, so progress is guaranteed, and memory stays at a few pages per CPU
//! whatever the file size.

use super::stream::{CpuStream, Shared};
use crate::error::Result;
use crate::event::{Comm, Event, EventKind, EventSink};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Pages decoded per CPU per round (~100 events each).
const PAGES_PER_FILL: usize = 16;
/// A CPU is refilled when fewer events than this are buffered.
const REFILL_BELOW: usize = 2048;

pub fn run(
    streams: &mut [CpuStream],
    shared: &Shared,
    cmdlines: &[(i32, Comm)],
    sink: &mut dyn EventSink,
) -> Result<()> {
    let mut names_pending = !cmdlines.is_empty();
    let mut heap = BinaryHeap::with_capacity(streams.len());
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
        let within = |e: &Event| bound.map_or(true, |b| (e.ts, e.cpu) <= b);
        heap.clear();
        for (i, s) in streams.iter().enumerate() {
            if let Some(e) = s.buf.front().filter(|e| within(e)) {
                heap.push(Reverse((e.ts, e.cpu, i)));
            }
        }
        while let Some(Reverse((_, _, i))) = heap.pop() {
            let event = streams[i]
                .buf
                .pop_front()
                .expect("heap entries have a buffered event");
            if names_pending {
                names_pending = false;
                for &(pid, comm) in cmdlines {
                    sink.event(&Event {
                        ts: event.ts,
                        cpu: event.cpu,
                        current_pid: -1,
                        kind: EventKind::TaskName {
                            pid,
                            tgid: -1,
                            comm,
                        },
                    });
                }
            }
            sink.event(&event);
            if let Some(e) = streams[i].buf.front().filter(|e| within(e)) {
                heap.push(Reverse((e.ts, e.cpu, i)));
            }
        }
        if bound.is_none() && streams.iter().all(|s| s.buf.is_empty()) {
            return Ok(());
        }
    }
}
