//! Time order from FINISHED_ROUND markers (formats.md §4.9), as the records arrive.
//!
//! perf writes per-CPU buffers round by round, so records are only ordered within a CPU.
//! `perf record` writes a FINISHED_ROUND after each pass over its buffers, and perf's own
//! reader relies on it: at each marker it emits every queued record with a time at most the
//! largest time seen before the *previous* marker. [`RoundQueue`] does the same with 16-byte
//! keys: the reader emits a round as soon as its marker is framed and then forgets its
//! input, so memory stays at about two rounds whatever the length of the trace, and the
//! records are decoded while their bytes are still in the cache. A file without markers
//! (old perf, `perf inject`) is one round, sorted whole at the end.
//!
//! A record that arrives after the round that should have held it was emitted (a clock
//! glitch, a filter that reorders) cannot be put back: like perf, it goes out with the next
//! round, and it is counted ([`RoundQueue::late`]) so that the quality ledger shows it; the
//! analysis then processes it at the previous event's time and counts it again.
//!
//! Records with time 0 are the exception perf itself makes: it writes some at the end of a
//! session (LOST_SAMPLES read from the counters, one per event); they are not late.

/// Sort key of one event-bearing record. Ordering by (ts, loc) keeps records with equal
/// timestamps in stream order, which is what perf's own ordered-events queue does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    pub ts: u64,
    /// segment (bit 63) | byte offset (bits 16..63) | attr index (bits 0..16).
    pub loc: u64,
}

impl Key {
    pub(super) fn new(ts: u64, seg: u64, offset: usize, attr: u16) -> Key {
        Key {
            ts,
            loc: seg << 63 | (offset as u64) << 16 | attr as u64,
        }
    }
    pub(crate) fn segment(&self) -> u64 {
        self.loc >> 63
    }
    pub(crate) fn offset(&self) -> usize {
        ((self.loc >> 16) & ((1 << 47) - 1)) as usize
    }
    pub(crate) fn attr(&self) -> usize {
        (self.loc & 0xffff) as usize
    }
}

/// Keys waiting for their round, and where the markers fall among them.
#[derive(Debug, Default)]
pub(crate) struct RoundQueue {
    /// `keys[head..]` wait: the sorted leftover of the last flush, then arrivals in stream
    /// order. Emitted keys are dropped from the front only once they are the larger part.
    keys: Vec<Key>,
    head: usize,
    /// Largest key so far.
    max: Option<Key>,
    /// Time bound of the flush that the next marker triggers (the largest time at the
    /// previous marker).
    bound: Option<u64>,
    /// Flushes due, oldest first: keys `[..keys_end]` had arrived at the marker, and
    /// those with `ts <= threshold` go.
    due: Vec<(usize, u64)>,
    /// Largest key emitted: every later key must sort after it.
    emitted: Option<Key>,
    /// Keys that arrived after a round that should have held them had been emitted.
    pub late: u64,
    /// Largest number of keys waiting at once.
    pub peak_waiting: usize,
}

impl RoundQueue {
    /// A key arrived (in stream order).
    #[inline]
    pub(crate) fn push(&mut self, key: Key) {
        if key.ts != 0 && self.emitted.is_some_and(|e| key < e) {
            self.late += 1;
        }
        if Some(key) > self.max {
            self.max = Some(key);
        }
        self.keys.push(key);
    }

    /// A FINISHED_ROUND marker: the flush bounded by the previous marker becomes due.
    pub(crate) fn marker(&mut self) {
        if let Some(threshold) = self.bound {
            self.due.push((self.keys.len(), threshold));
        }
        self.bound = self.max.map(|m| m.ts);
    }

    /// Whether a marker has made a flush due.
    #[inline]
    pub(crate) fn has_due(&self) -> bool {
        !self.due.is_empty()
    }

    /// Hands every due round to `emit`, sorted, and forgets it.
    pub(crate) fn flush_due(&mut self, mut emit: impl FnMut(&[Key])) {
        self.peak_waiting = self.peak_waiting.max(self.keys.len() - self.head);
        for (keys_end, threshold) in std::mem::take(&mut self.due) {
            let window = &mut self.keys[self.head..keys_end];
            // The sorted leftover plus this round's per-CPU runs: the stable sort merges such
            // runs in O(n log runs). Keys are unique, so stability does not change the result.
            window.sort();
            let cut = window.partition_point(|k| k.ts <= threshold);
            self.emit(cut, &mut emit);
        }
        if self.head * 2 >= self.keys.len() {
            self.keys.drain(..self.head);
            self.head = 0;
        }
    }

    /// The end of the stream: everything left, sorted.
    pub(crate) fn finish(&mut self, mut emit: impl FnMut(&[Key])) {
        self.flush_due(&mut emit);
        self.keys[self.head..].sort();
        self.emit(self.keys.len() - self.head, &mut emit);
    }

    fn emit(&mut self, count: usize, emit: &mut impl FnMut(&[Key])) {
        if count == 0 {
            return;
        }
        let done = &self.keys[self.head..self.head + count];
        emit(done);
        let last = done[count - 1];
        self.emitted = Some(self.emitted.map_or(last, |e| e.max(last)));
        self.head += count;
    }

    /// The lowest offset among the waiting keys of `segment`.
    pub(crate) fn lowest_offset(&self, segment: u64) -> Option<usize> {
        self.keys[self.head..]
            .iter()
            .filter(|k| k.segment() == segment)
            .map(|k| k.offset())
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ts: u64, offset: u64) -> Key {
        Key {
            ts,
            loc: offset << 16,
        }
    }

    /// Feeds rounds of times (offsets are arrival positions); returns the emitted windows.
    fn run(rounds: &[&[u64]]) -> (RoundQueue, Vec<Key>, Vec<Vec<u64>>) {
        let mut queue = RoundQueue::default();
        let (mut n, mut windows, mut out) = (0, Vec::new(), Vec::new());
        let mut take = |w: &[Key]| {
            windows.push(w.iter().map(|k| k.ts).collect::<Vec<_>>());
            out.extend_from_slice(w);
        };
        for round in rounds {
            for &ts in *round {
                queue.push(key(ts, n));
                n += 1;
            }
            queue.marker();
            queue.flush_due(&mut take);
        }
        queue.finish(&mut take);
        (queue, out, windows)
    }

    #[test]
    fn two_cpus_per_round_flush_one_round_late() {
        // Each round: CPU 0's run then CPU 1's run, overlapping in time.
        let (queue, out, windows) = run(&[&[1, 4, 2, 3], &[5, 8, 6, 7], &[9, 12, 10, 11]]);
        // Marker 1 flushes up to the max at marker 0 (4), marker 2 up to 8, the end the rest.
        assert_eq!(
            windows,
            vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![9, 10, 11, 12]]
        );
        assert_eq!(queue.late, 0);
        assert!(out.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_record_behind_its_flushed_round_goes_out_next_and_is_counted() {
        // 2 arrives after everything up to 4 was emitted.
        let (queue, _, windows) = run(&[&[1, 4], &[5, 6], &[2, 7]]);
        assert_eq!(queue.late, 1);
        assert_eq!(windows, vec![vec![1, 4], vec![2, 5, 6], vec![7]]);
    }

    #[test]
    fn equal_times_keep_stream_order_across_windows() {
        // A later record with the flushed bound's time sorts after it (higher offset): fine.
        let (queue, out, _) = run(&[&[3, 3], &[3, 5], &[3, 6]]);
        assert_eq!(queue.late, 0);
        let offsets: Vec<u64> = out.iter().map(|k| k.loc >> 16).collect();
        assert_eq!(offsets, vec![0, 1, 2, 4, 3, 5]);
    }

    #[test]
    fn time_zero_records_at_the_end_are_not_late() {
        // perf's end-of-session LOST_SAMPLES carry time 0.
        let (queue, out, windows) = run(&[&[0, 2, 1], &[3, 4], &[5, 0, 0]]);
        assert_eq!(queue.late, 0);
        assert_eq!(windows[0], vec![0, 1, 2]);
        assert_eq!(out.len(), 8);
    }

    #[test]
    fn no_markers_is_one_window() {
        let mut queue = RoundQueue::default();
        [3, 1, 2].iter().for_each(|&t| queue.push(key(t, t)));
        assert!(!queue.has_due());
        let mut windows = Vec::new();
        queue.finish(|w| windows.push(w.iter().map(|k| k.ts).collect::<Vec<_>>()));
        assert_eq!(windows, vec![vec![1, 2, 3]]);
    }

    #[test]
    fn waiting_keys_bound_what_input_is_still_needed() {
        let mut queue = RoundQueue::default();
        queue.push(key(5, 100));
        queue.push(key(1, 200));
        queue.marker();
        queue.push(key(7, 300));
        queue.marker();
        queue.flush_due(|w| assert_eq!(w.len(), 2));
        queue.push(key(6, 400));
        assert_eq!(queue.lowest_offset(0), Some(300));
    }
}
