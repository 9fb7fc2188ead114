//! Short-term fairness (metrics.md §7): Jain's index over consecutive windows of each
//! length, closed as time passes ([`Fairness::tick`]), with the members' lags kept for
//! `--series`.

use super::{jain, FairSlots, Fairness};
use crate::scope::Scope;

/// Quiet stretches of up to this many windows are closed one window at a time (1000 s of
/// 10 ms windows, a fraction of a millisecond of work), longer ones in one arithmetic step:
/// the step gives the same index up to the last bit of a float sum, and the reports of
/// ordinary traces stay bit for bit what they were.
const STEADY_ONE_BY_ONE: u64 = 100_000;

/// Short-term Jain's index over consecutive windows of one length.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShortTerm {
    pub(crate) len_ns: u64,
    /// The current window's end and id, and its members (task slots): joining a CPU
    /// ([`Fairness::change`]) makes a task a member.
    pub(super) end: u64,
    pub(super) id: u32,
    pub(super) members: Vec<u32>,
    pub(crate) sum: f64,
    pub(crate) count: u64,
    pub(crate) min: f64,
    /// `--series`: every closed window's end, Jain's index (None when it does not count)
    /// and each member's lag (entitlement − runtime, by task slot) at its end.
    pub(crate) record: Option<Vec<WindowRecord>>,
}

/// One closed short-term window, kept for `--series`.
#[derive(Debug, Clone, Default)]
pub(crate) struct WindowRecord {
    pub(crate) end_ns: u64,
    pub(crate) jain: Option<f64>,
    pub(crate) lags: Vec<(u32, f64)>,
}

impl Fairness {
    /// Closes every short-term window that ended at or before `now` (call before
    /// processing an event at `now`). The first window starts at `origin`.
    ///
    /// Inline: it runs for every event, and nearly every time has nothing to close.
    #[inline]
    pub(crate) fn tick(
        &mut self,
        now: u64,
        origin: u64,
        tasks: &mut (impl FairSlots + ?Sized),
        scope: &Scope,
    ) {
        if now >= self.next_end {
            self.close_windows(now, origin, tasks, scope);
        }
    }

    /// [`Fairness::tick`] when at least one window ended.
    #[inline(never)]
    fn close_windows(
        &mut self,
        now: u64,
        origin: u64,
        tasks: &mut (impl FairSlots + ?Sized),
        scope: &Scope,
    ) {
        if !self.started {
            self.started = true;
            for st in &mut self.short {
                st.end = origin.saturating_add(st.len_ns);
                st.id = 1;
            }
        }
        for k in 0..self.short.len() {
            // A window that would end past u64::MAX never closes (it is the last, open one).
            while now >= self.short[k].end && self.short[k].end != u64::MAX {
                // The window holding the latest events.
                self.close_window(k, 1, tasks, scope);
                let st = &self.short[k];
                if now < st.end || st.end == u64::MAX {
                    continue;
                }
                // Every window from here to the one holding `now` saw no event: the same tasks
                // compete at the same rates in each, so all of them have one outcome. They are
                // closed as one arithmetic step, so a time jump of any size costs O(tasks).
                let steady = (now - st.end) / st.len_ns + 1;
                if steady <= STEADY_ONE_BY_ONE && !st.members.is_empty() {
                    // A short quiet stretch: one by one, the same float sums as ever.
                    continue;
                }
                if st.members.is_empty() {
                    let st = &mut self.short[k];
                    st.end = st.end.saturating_add(steady.saturating_mul(st.len_ns));
                    st.id = st.id.wrapping_add(steady as u32);
                } else {
                    self.close_window(k, steady, tasks, scope);
                }
            }
        }
        self.next_end = self.short.iter().map(|st| st.end).min().unwrap_or(u64::MAX);
    }

    /// Closes the current window of length `k` and, with `repeat > 1`, the `repeat - 1` windows
    /// after it, which must hold no event (then every one of them has the first one's ratios).
    fn close_window(
        &mut self,
        k: usize,
        repeat: u64,
        tasks: &mut (impl FairSlots + ?Sized),
        scope: &Scope,
    ) {
        let first = self.short[k].end;
        let len = self.short[k].len_ns;
        let boundary = first.saturating_add((repeat - 1).saturating_mul(len));
        let members = std::mem::take(&mut self.short[k].members);
        let st_id = self.short[k].id;
        let next_id = st_id.wrapping_add(repeat as u32);
        let mut ratios = Vec::with_capacity(members.len());
        let mut kept = Vec::with_capacity(members.len());
        let recording = self.short[k].record.is_some();
        let mut lags = Vec::new();
        for slot in members {
            let f = tasks.fair(slot);
            let (run, ent) = self.current(f, first, scope);
            if recording {
                lags.push((slot, ent - run as f64));
            }
            let (_, run0, ent0) = f.win[k];
            let d_ent = ent - ent0;
            if d_ent > 0.0 {
                ratios.push((run - run0) as f64 / d_ent);
            }
            let at_end = if repeat > 1 {
                self.current(f, boundary, scope)
            } else {
                (run, ent)
            };
            let f = tasks.fair_mut(slot);
            if f.cpu >= 0 {
                // Still competing: a member of the next window from its boundary on.
                f.win[k] = (next_id, at_end.0, at_end.1);
                kept.push(slot);
            } else {
                // Not competing at the boundary: it is not a member of the next window. Its
                // window id stays the closed one's, so that joining again during the next
                // window makes it a member (with the id of the next window it would never
                // be added again while it only alternates running <-> runnable on one CPU).
                f.win[k] = (st_id, at_end.0, at_end.1);
            }
        }
        let st = &mut self.short[k];
        st.members = kept;
        st.id = next_id;
        st.end = boundary.saturating_add(len);
        // Windows are counted while they end inside `--time` (they all start inside it) —
        // `boundary <= scope.end`. A window with a single competitor is trivially fair: not
        // counted.
        let in_scope = if first > scope.end || !scope.contains(first - 1) {
            0
        } else {
            repeat.min((scope.end - first) / len + 1)
        };
        let counted = (ratios.len() >= 2 && in_scope > 0)
            .then(|| jain(&ratios))
            .flatten();
        if let Some(j) = counted {
            st.sum += j * in_scope as f64;
            st.count += in_scope;
            st.min = st.min.min(j);
        }
        if let Some(record) = &mut st.record {
            // A quiet stretch closed in one step (a time jump) is recorded once, at its
            // last boundary: its windows all have the first one's outcome.
            record.push(WindowRecord {
                end_ns: boundary,
                jain: counted,
                lags,
            });
        }
    }
}
