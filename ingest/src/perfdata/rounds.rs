//! Time order from FINISHED_ROUND windows (formats.md §4.9) instead of one sort of the
//! whole file.
//!
//! `perf record` writes a FINISHED_ROUND after each pass over its per-CPU buffers, and
//! perf's own reader relies on it: at each marker it emits every queued record with a time
//! at most the largest time seen before the *previous* marker. [`RoundCheck`] follows the
//! keys as the scan makes them (arrival order), notes where each such flush falls and checks
//! that no later record sorts before something already flushed. When that holds, sorting
//! each flush on its own and concatenating gives exactly the whole-file sort, in small
//! cache-sized windows whose input pages can be given back as soon as they are emitted.
//! When it does not (pipe captures through filters, `perf inject`, old perf without markers,
//! a clock glitch), [`Plan::Whole`] falls back to sorting everything.
//!
//! Records with time 0 are the exception perf itself makes (it delivers them unqueued): perf
//! writes some at the end of a session (LOST_SAMPLES read from the counters, one per event).
//! The whole-file sort puts them first; to give the same order they are set aside as they
//! arrive and merged into the first window.

use super::scan::Key;

/// One flush point: the keys that had arrived by a FINISHED_ROUND and the time bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flush {
    /// Keys `[..keys_end]` (arrival order) had arrived at this marker.
    pub keys_end: usize,
    /// Flush every such key not flushed yet with `ts <= threshold`.
    pub threshold: u64,
}

/// Follows the arriving keys and FINISHED_ROUND markers (scan pass).
#[derive(Debug, Default)]
pub struct RoundCheck {
    /// Largest key so far.
    max: Option<Key>,
    /// Bound of the next flush (the largest time at the previous marker) and the largest key
    /// with a time within it: everything that flush will emit is at most that key.
    pending: Option<(u64, Key)>,
    /// Largest key already flushed: every later key must sort after it.
    flushed: Option<Key>,
    pub flushes: Vec<Flush>,
    /// Keys that arrived after a flush that should have held them.
    pub behind_flush: u64,
    /// Time-0 keys that arrived after the first flush (kept out of the key list).
    pub late_zero: Vec<Key>,
}

impl RoundCheck {
    /// A key arrived (in stream order). `false`: it was set aside (see the module doc) and
    /// must not be added to the key list.
    #[inline]
    pub fn key(&mut self, key: Key) -> bool {
        if key.ts == 0 && self.flushed.is_some() {
            self.late_zero.push(key);
            return false;
        }
        if self.flushed.is_some_and(|f| key < f) {
            self.behind_flush += 1;
        }
        if Some(key) > self.max {
            self.max = Some(key);
        }
        // Keys with the bound's exact time but a later place join the pending flush.
        if let Some((bound, top)) = &mut self.pending {
            if key.ts == *bound && key > *top {
                *top = key;
            }
        }
        true
    }

    /// A FINISHED_ROUND marker, after `keys_len` keys.
    pub fn marker(&mut self, keys_len: usize) {
        if let Some((threshold, top)) = self.pending {
            self.flushes.push(Flush {
                keys_end: keys_len,
                threshold,
            });
            self.flushed = Some(top);
        }
        self.pending = self.max.map(|m| (m.ts, m));
    }

    /// How pass 2 gets its keys in order.
    pub fn plan(self) -> Plan {
        let order = if self.behind_flush == 0 {
            Order::Rounds(self.flushes)
        } else {
            Order::Whole {
                behind_flush: self.behind_flush,
            }
        };
        Plan {
            order,
            late_zero: self.late_zero,
        }
    }
}

/// The result of the check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub order: Order,
    /// Time-0 keys set aside by [`RoundCheck::key`], in arrival order.
    pub late_zero: Vec<Key>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// Rounds hold: sort flush by flush (no flushes at all = one window).
    Rounds(Vec<Flush>),
    /// Some record arrived after a flush that should have held it: sort the whole file.
    Whole { behind_flush: u64 },
}

/// Sorts `keys` (arrival order) window by window, in place, and hands each sorted window to
/// `emit` with the keys still waiting: this window's leftover (sorted) and the later rounds
/// (arrival order). With [`Plan::Whole`] there is a single window.
pub fn sorted_windows(keys: &mut [Key], plan: &Plan, mut emit: impl FnMut(&[Key], &[Key], &[Key])) {
    let flushes: &[Flush] = match &plan.order {
        Order::Rounds(f) => f,
        Order::Whole { .. } => &[],
    };
    let mut late_zero = Some(&plan.late_zero[..]).filter(|z| !z.is_empty());
    // The first window starts with every time-0 key, the set-aside ones included.
    let mut emit = |done: &[Key], leftover: &[Key], upcoming: &[Key]| match late_zero.take() {
        None => emit(done, leftover, upcoming),
        Some(late) => {
            let zeros = done.partition_point(|k| k.ts == 0);
            let mut first = [&done[..zeros], late].concat();
            first.sort_unstable();
            emit(&first, leftover, upcoming);
            emit(&done[zeros..], leftover, upcoming);
        }
    };
    // keys[start..end_prev] is the sorted leftover of earlier windows.
    let mut start = 0;
    for flush in flushes {
        let end = flush.keys_end.min(keys.len());
        let window = &mut keys[start..end];
        // Leftover plus this round's per-CPU runs: the stable sort merges such runs in
        // O(n log runs). Keys are unique, so stability does not change the result.
        window.sort();
        let cut = window.partition_point(|k| k.ts <= flush.threshold);
        let (window, upcoming) = keys[start..].split_at(end - start);
        let (done, leftover) = window.split_at(cut);
        emit(done, leftover, upcoming);
        start += cut;
    }
    let rest = &mut keys[start..];
    rest.sort();
    emit(rest, &[], &[]);
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

    /// Feeds rounds of (ts) values; offsets are the arrival positions.
    fn run(rounds: &[&[u64]]) -> (Plan, Vec<Key>, Vec<Vec<u64>>) {
        let mut check = RoundCheck::default();
        let mut keys = Vec::new();
        let (mut late, mut all) = (0, Vec::new());
        for round in rounds {
            for &ts in *round {
                let k = key(ts, (keys.len() + late) as u64);
                if check.key(k) {
                    keys.push(k);
                } else {
                    late += 1;
                    all.push(k);
                }
            }
            check.marker(keys.len());
        }
        let plan = check.plan();
        let mut full = keys.clone();
        full.extend_from_slice(&all);
        full.sort();
        let mut windows = Vec::new();
        let mut out = Vec::new();
        sorted_windows(&mut keys, &plan, |w, _, _| {
            windows.push(w.iter().map(|k| k.ts).collect());
            out.extend_from_slice(w);
        });
        assert_eq!(out, full, "windows must concatenate to the full sort");
        (plan, out, windows)
    }

    #[test]
    fn two_cpus_per_round_flush_one_round_late() {
        // Each round: CPU 0's run then CPU 1's run, overlapping in time.
        let (plan, _, windows) = run(&[&[1, 4, 2, 3], &[5, 8, 6, 7], &[9, 12, 10, 11]]);
        assert!(matches!(plan.order, Order::Rounds(ref f) if f.len() == 2));
        // Marker 1 flushes up to the max at marker 0 (4), marker 2 up to 8, the end the rest.
        assert_eq!(
            windows,
            vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![9, 10, 11, 12]]
        );
    }

    #[test]
    fn late_record_falls_back_to_whole_sort() {
        // 2 arrives after the flush of everything up to 4.
        let (plan, _, windows) = run(&[&[1, 4], &[5, 6], &[2, 7]]);
        assert_eq!(plan.order, Order::Whole { behind_flush: 1 });
        assert_eq!(windows, vec![vec![1, 2, 4, 5, 6, 7]]);
    }

    #[test]
    fn equal_times_keep_stream_order_across_windows() {
        // A later record with the flushed bound's time sorts after it (higher offset): fine.
        let (plan, out, _) = run(&[&[3, 3], &[3, 5], &[3, 6]]);
        assert!(matches!(plan.order, Order::Rounds(_)));
        let offsets: Vec<u64> = out.iter().map(|k| k.loc >> 16).collect();
        assert_eq!(offsets, vec![0, 1, 2, 4, 3, 5]);
    }

    #[test]
    fn time_zero_records_at_the_end_go_first_as_in_the_whole_sort() {
        // perf's end-of-session LOST_SAMPLES carry time 0.
        let (plan, out, windows) = run(&[&[0, 2, 1], &[3, 4], &[5, 0, 0]]);
        assert!(matches!(plan.order, Order::Rounds(_)));
        assert_eq!(plan.late_zero.len(), 2);
        assert_eq!(windows[0], vec![0, 0, 0]);
        let ts: Vec<u64> = out.iter().map(|k| k.ts).collect();
        assert_eq!(ts, vec![0, 0, 0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn no_markers_is_one_window() {
        let mut check = RoundCheck::default();
        let mut keys: Vec<Key> = [3, 1, 2].iter().map(|&t| key(t, t)).collect();
        keys.iter().for_each(|&k| assert!(check.key(k)));
        let plan = check.plan();
        assert_eq!(plan.order, Order::Rounds(vec![]));
        let mut n = 0;
        sorted_windows(&mut keys, &plan, |w, _, _| {
            n += 1;
            assert_eq!(w.iter().map(|k| k.ts).collect::<Vec<_>>(), vec![1, 2, 3]);
        });
        assert_eq!(n, 1);
    }
}
