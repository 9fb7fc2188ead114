//! Putting each window's parsed chunks back in file order and feeding the sink as the
//! windows come, so that only a window of events is ever held: times of lost markers
//! (carried into the next window when a window ends with them), timestamp order, and the
//! `prev_state` encoding where a value's meaning depends on it.
//!
//! Order: events out of timestamp order are counted in file order against everything read
//! before (as `trace-cmd report` output is sorted, this is 0 for nearly every file); a
//! window holding any is stably sorted by time before it goes out. An event older than an
//! earlier window's events therefore goes out late, at the start of its own window — the rule
//! the perf.data reader follows for a record after its round — instead of the whole file
//! being held to sort it.

use super::chunk::{ChunkOut, Pending, CPU_UNKNOWN};
use super::state::{Encoding, Evidence, StateSrc};
use crate::event::{EventKind, EventSink};

#[derive(Default)]
pub(super) struct Merger {
    /// Lost markers that ended the previous window: they take the time of the next event.
    carry: Vec<Pending>,
    max_ts: u64,
    out_of_order: u64,
    /// Time and CPU of the last event line in file order: lost markers at the very end
    /// of the file take them.
    last: Option<(u64, u32)>,
    /// The file's encoding, once a value that needs it has been seen (see `Encoding::decodes_alike`).
    settled: Option<Encoding>,
}

impl Merger {
    /// Feeds the events of one window (its chunks in file order) to `sink`. `seen` is the
    /// `prev_state` evidence up to and including this window; `rest` gives that of every
    /// later window, and is called at most once per file: when a value whose meaning depends
    /// on the encoding turns up first.
    pub(super) fn window(
        &mut self,
        outs: Vec<ChunkOut<'_>>,
        seen: &Evidence,
        rest: impl FnOnce() -> Evidence,
        sink: &mut dyn EventSink,
    ) {
        let mut parts: Vec<Vec<Pending>> = Vec::with_capacity(outs.len() + 1);
        parts.push(std::mem::take(&mut self.carry));
        parts.extend(outs.into_iter().map(|o| o.events));

        if self.settled.is_none() && parts.iter().flatten().any(needs_encoding) {
            let mut all = *seen;
            all.merge(&rest());
            self.settled = Some(all.encoding());
        }
        resolve_lost_markers(&mut parts);
        self.carry = trailing_markers(&mut parts);
        if let Some(p) = parts.iter().flatten().next_back() {
            self.last = Some((p.event.ts, p.event.cpu));
        }
        self.deliver(parts, sink);
    }

    /// Sends the lost markers that end the file (with the last event's time) and returns
    /// the events that came out of timestamp order.
    pub(super) fn finish(mut self, sink: &mut dyn EventSink) -> u64 {
        let mut tail = std::mem::take(&mut self.carry);
        let (ts, cpu) = self.last.unwrap_or((0, 0));
        for p in &mut tail {
            fill(p, ts, cpu);
        }
        self.deliver(vec![tail], sink);
        self.out_of_order
    }

    /// Counts and delivers `parts` (file order); a window with late events is sorted first,
    /// stably, so each CPU keeps its own order among equal timestamps.
    fn deliver(&mut self, parts: Vec<Vec<Pending>>, sink: &mut dyn EventSink) {
        let mut late = 0;
        for p in parts.iter().flatten() {
            if p.event.ts < self.max_ts {
                late += 1;
            }
            self.max_ts = self.max_ts.max(p.event.ts);
        }
        self.out_of_order += late;
        // Until a value needs it, every value seen decodes alike under any encoding.
        let encoding = self.settled.unwrap_or(Encoding::B);
        if late == 0 {
            for p in parts.iter().flatten() {
                deliver(p, encoding, sink);
            }
        } else {
            let mut all: Vec<Pending> = parts.into_iter().flatten().collect();
            all.sort_by_key(|p| p.event.ts);
            for p in &all {
                deliver(p, encoding, sink);
            }
        }
    }
}

fn needs_encoding(p: &Pending) -> bool {
    matches!(p.state, StateSrc::Value(v) if !Encoding::decodes_alike(v))
}

fn deliver(p: &Pending, encoding: Encoding, sink: &mut dyn EventSink) {
    let mut event = p.event;
    if let (StateSrc::Value(v), EventKind::Switch { prev_state, .. }) = (p.state, &mut event.kind) {
        *prev_state = encoding.decode(v);
    }
    sink.event(&event);
}

/// A lost marker is printed just before the first event after the gap: it takes that
/// event's time (and CPU when the marker names none). Markers with no event after them in
/// `parts` are left as they are.
fn resolve_lost_markers(parts: &mut [Vec<Pending>]) {
    let mut next: Option<(u64, u32)> = None;
    for p in parts.iter_mut().rev().flat_map(|v| v.iter_mut().rev()) {
        if p.needs_time {
            if let Some((ts, cpu)) = next {
                fill(p, ts, cpu);
            }
        } else {
            next = Some((p.event.ts, p.event.cpu));
        }
    }
}

/// Takes the markers still waiting for a time off the end of `parts`, in file order.
fn trailing_markers(parts: &mut Vec<Vec<Pending>>) -> Vec<Pending> {
    let mut tail = Vec::new();
    while let Some(last) = parts.last_mut() {
        match last.last().map(|p| p.needs_time) {
            Some(true) => tail.extend(last.pop()),
            Some(false) => break,
            None => {
                parts.pop();
            }
        }
    }
    tail.reverse();
    tail
}

fn fill(p: &mut Pending, ts: u64, cpu: u32) {
    p.event.ts = ts;
    if p.event.cpu == CPU_UNKNOWN {
        p.event.cpu = cpu;
    }
    p.needs_time = false;
}
