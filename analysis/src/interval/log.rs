//! One task's intervals as the store keeps them: the encoded bytes ([`super::codec`]) and,
//! every [`MARK_EVERY`] intervals, a mark (the reader's state there) so that a view can
//! start reading near any time: O(log n) to find the mark, then at most `MARK_EVERY`
//! intervals decoded before the first one it wants.

use super::codec::{self, Context};
use super::{Fields, IntervalView, ThreadState};

/// Intervals between two marks: 64 costs a 24-byte mark per 64 intervals (0.4 byte each).
const MARK_EVERY: usize = 64;

/// The reader's state at interval `MARK_EVERY × k`.
#[derive(Debug, Clone, Copy)]
struct Mark {
    ctx: Context,
    offset: usize,
}

/// The intervals of one task so far, contiguous in time.
///
/// A drained log ([`TaskLog::drained`], for the export) keeps its intervals as views
/// instead: they leave at the next drain, a few thousand events later, so encoding them
/// only to decode them again was all cost (a twentieth of the analysing thread).
#[derive(Debug, Clone)]
pub(crate) struct TaskLog {
    /// Drained: the closed intervals since the last drain (the bytes stay empty).
    views: Option<Vec<IntervalView>>,
    /// Kept and summed for a series: the intervals closed since the series' sums last took
    /// them ([`TaskLog::unsummed`]), beside the bytes, so the sums are made in the pass
    /// instead of decoding the whole store again at its end.
    unsummed: Option<Vec<IntervalView>>,
    bytes: Vec<u8>,
    marks: Vec<Mark>,
    /// Intervals written (gaps included).
    len: usize,
    /// One above the highest CPU of a running interval (0: none ran).
    cpus_run: u32,
    /// The writer's state: `start_ns` is the end of the last interval.
    ctx: Context,
}

impl Default for TaskLog {
    fn default() -> TaskLog {
        TaskLog {
            views: None,
            unsummed: None,
            bytes: Vec::new(),
            marks: Vec::new(),
            len: 0,
            cpus_run: 0,
            ctx: Context::at(0),
        }
    }
}

impl TaskLog {
    /// A log whose intervals are only ever taken by [`TaskLog::drain_with`].
    pub(crate) fn drained() -> TaskLog {
        TaskLog {
            views: Some(Vec::new()),
            ..TaskLog::default()
        }
    }

    /// A kept log that also hands its closed intervals to the series' sums.
    pub(crate) fn summed() -> TaskLog {
        TaskLog {
            unsummed: Some(Vec::new()),
            ..TaskLog::default()
        }
    }

    /// The intervals closed since the series' sums last emptied this (`None`: not summed).
    pub(crate) fn unsummed(&mut self) -> Option<&mut Vec<IntervalView>> {
        self.unsummed.as_mut()
    }

    /// Appends the interval `[start, now)`. A task's intervals are contiguous apart from
    /// its time before the first transition, which is not an interval.
    #[inline]
    pub(crate) fn close(&mut self, start: u64, now: u64, fields: Fields) {
        if self.len == 0 {
            self.ctx = Context::at(start);
        }
        debug_assert!(start == self.ctx.start_ns);
        if let Some(views) = &mut self.views {
            // The view the bytes would read back as (the codec's tests hold the two equal).
            let dur_ns = now.saturating_sub(start);
            if let Some(view) = codec::view(start, dur_ns, &fields) {
                views.push(view);
            }
            self.ctx.start_ns += dur_ns;
            self.len += 1;
            return;
        }
        if let Some(unsummed) = &mut self.unsummed {
            if let Some(view) = codec::view(start, now.saturating_sub(start), &fields) {
                unsummed.push(view);
            }
        }
        if self.len.is_multiple_of(MARK_EVERY) {
            self.marks.push(Mark {
                ctx: self.ctx,
                offset: self.bytes.len(),
            });
        }
        // Time never runs backwards for a task (the analyzer keeps `now` monotonic); were
        // it to, the interval is empty rather than wrapping round.
        if let (Some(ThreadState::Running), Some(cpu)) = (fields.state, fields.cpu) {
            self.cpus_run = self.cpus_run.max(cpu.saturating_add(1));
        }
        codec::write(
            &mut self.bytes,
            &mut self.ctx,
            now.saturating_sub(start),
            &fields,
        );
        self.len += 1;
    }

    /// Intervals written, gaps included.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// One above the highest CPU number this task ran on (0 if it never ran).
    pub(crate) fn cpus_run(&self) -> u32 {
        self.cpus_run
    }

    /// Where the last interval ended.
    pub(crate) fn end_ns(&self) -> u64 {
        self.ctx.start_ns
    }

    /// Where the first interval starts (the end, when there is none).
    pub(crate) fn start_ns(&self) -> u64 {
        self.marks
            .first()
            .map_or(self.ctx.start_ns, |m| m.ctx.start_ns)
    }

    /// Every interval in time order (gaps left out).
    pub(crate) fn cursor(&self) -> Cursor<'_> {
        self.cursor_from(0)
    }

    /// From the last mark before `t` on: every interval that ends after `t` or starts
    /// at it comes out of it, a few (< [`MARK_EVERY`]) that end before it may come first.
    pub(crate) fn cursor_near(&self, t: u64) -> Cursor<'_> {
        let mark = self.marks.partition_point(|m| m.ctx.start_ns < t);
        self.cursor_from(mark.saturating_sub(1))
    }

    fn cursor_from(&self, mark: usize) -> Cursor<'_> {
        match self.marks.get(mark) {
            Some(m) => Cursor {
                bytes: &self.bytes,
                pos: m.offset,
                ctx: m.ctx,
                left: self.len - mark * MARK_EVERY,
            },
            None => Cursor {
                bytes: &[],
                pos: 0,
                ctx: self.ctx,
                left: 0,
            },
        }
    }

    /// Takes the closed intervals as views (gaps left out), leaving the log empty and its
    /// end where it was: the next interval still starts there.
    ///
    /// A drained log gives its own vector, not a copy (the export's feeder copied every
    /// view into its batch: a twentieth of the analysing thread), and starts a new one with
    /// room for as many: a task holds room for about its last drain's intervals (an exited
    /// one none: the drain shrinks its log).
    pub(crate) fn take_views(&mut self) -> Vec<IntervalView> {
        let views = match &mut self.views {
            Some(views) => {
                let room = Vec::with_capacity(views.len());
                std::mem::replace(views, room)
            }
            None => self.cursor().collect(),
        };
        self.bytes.clear();
        self.marks.clear();
        self.len = 0;
        views
    }

    /// Gives back the capacity the growth left unused (once, when the log is complete).
    pub(crate) fn shrink(&mut self) {
        self.unsummed = None;
        self.bytes.shrink_to_fit();
        self.marks.shrink_to_fit();
        if let Some(views) = &mut self.views {
            views.shrink_to_fit();
        }
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        let views = self.views.as_ref().map_or(0, |v| v.capacity());
        (self.bytes.capacity()
            + self.marks.capacity() * std::mem::size_of::<Mark>()
            + views * std::mem::size_of::<IntervalView>()) as u64
    }
}

/// Reads a task's intervals forward in time order, skipping gaps.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    ctx: Context,
    /// Intervals still to read, gaps included.
    left: usize,
}

impl Iterator for Cursor<'_> {
    type Item = IntervalView;

    #[inline]
    fn next(&mut self) -> Option<IntervalView> {
        while self.left > 0 {
            self.left -= 1;
            if let Some(v) = codec::read(self.bytes, &mut self.pos, &mut self.ctx) {
                return Some(v);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::EndReason;

    fn fields(state: Option<ThreadState>, cpu: Option<u32>, waker: Option<i32>) -> Fields {
        Fields {
            state,
            end: EndReason::SwitchedIn,
            cpu,
            waker,
            untimed: false,
        }
    }

    /// 1000 intervals of varied states, lengths (zero-length ones too), CPUs and wakers,
    /// with a gap every 97, ending at u64::MAX.
    fn log() -> (TaskLog, Vec<(u64, u64, Fields)>) {
        let states = [
            Some(ThreadState::Running),
            Some(ThreadState::RunnableWakeup),
            Some(ThreadState::Sleeping),
            Some(ThreadState::RunnablePreempted),
            Some(ThreadState::Unknown),
            Some(ThreadState::Blocked),
        ];
        let dur = |i: u64| if i.is_multiple_of(5) { 0 } else { i * i * 31 };
        let mut t = u64::MAX - (0..1000).map(dur).sum::<u64>();
        let (mut log, mut want) = (TaskLog::default(), Vec::new());
        for i in 0..1000u64 {
            let state = if i % 97 == 96 {
                None
            } else {
                states[i as usize % 6]
            };
            let cpu = matches!(
                state,
                Some(ThreadState::Running | ThreadState::RunnableWakeup)
            )
            .then_some((i / 7 % 3) as u32);
            let waker = (state == Some(ThreadState::RunnableWakeup)).then_some(i as i32 - 500);
            let dur = dur(i);
            let f = fields(state, cpu, waker);
            log.close(t, t + dur, f);
            want.push((t, dur, f));
            t += dur;
        }
        (log, want)
    }

    fn view(start: u64, dur: u64, f: &Fields) -> Option<IntervalView> {
        Some(IntervalView {
            start_ns: start,
            dur_ns: dur,
            state: f.state?,
            cpu: f.cpu,
            end: f.end,
            waker_pid: f.waker.filter(|&w| w >= 0),
            latency_timed: true,
        })
    }

    #[test]
    fn the_log_reads_back_what_was_written_from_any_mark() {
        let (log, want) = log();
        let views: Vec<IntervalView> = want
            .iter()
            .filter_map(|(s, d, f)| view(*s, *d, f))
            .collect();
        assert_eq!((log.len(), log.cpus_run()), (1000, 3));
        assert_eq!(log.cursor().collect::<Vec<_>>(), views);
        assert_eq!(log.start_ns(), want[0].0);
        assert_eq!(log.end_ns(), u64::MAX);
        // Fewer than 7 bytes an interval, marks included, once the growth's slack is gone.
        let mut shrunk = log.clone();
        shrunk.shrink();
        assert!(shrunk.bytes() < 1000 * 7, "{}", shrunk.bytes());
        // From near any time: every interval ending after it or starting at it, after at
        // most a mark's worth of earlier ones.
        for &(t, _, _) in want.iter().step_by(13) {
            for probe in [t.saturating_sub(1), t, t + 1] {
                let near: Vec<IntervalView> = log.cursor_near(probe).collect();
                let wanted: Vec<&IntervalView> = views
                    .iter()
                    .filter(|v| v.end_ns() > probe || v.start_ns >= probe)
                    .collect();
                let skipped = near.len() - wanted.len();
                assert!(skipped < MARK_EVERY, "{probe}: {skipped}");
                assert_eq!(
                    near[skipped..].iter().collect::<Vec<_>>(),
                    wanted,
                    "{probe}"
                );
            }
        }
        // From the last mark (interval 960) on: 40 intervals, one of them a gap (969).
        assert_eq!(log.cursor_near(u64::MAX).count(), 39);
    }

    #[test]
    fn draining_empties_the_log_and_the_next_interval_starts_where_it_ended() {
        let (mut log, want) = log();
        // A drained log given the same intervals hands out the views the bytes read as.
        let mut drained = TaskLog::drained();
        for &(start, dur, f) in &want {
            drained.close(start, start + dur, f);
        }
        let out = log.take_views();
        let direct = drained.take_views();
        assert_eq!(direct, out);
        assert!(drained.is_empty() && drained.end_ns() == log.end_ns());
        assert_eq!(
            out.len(),
            want.iter().filter(|w| w.2.state.is_some()).count()
        );
        assert!(log.is_empty() && log.cursor().next().is_none());
        let end = log.end_ns();
        let f = fields(Some(ThreadState::Running), Some(1), None);
        log.close(end, u64::MAX, f);
        let v: Vec<IntervalView> = log.cursor().collect();
        assert_eq!(v, [view(end, u64::MAX - end, &f).unwrap()]);
        let mut empty = TaskLog::default();
        assert_eq!((empty.start_ns(), empty.cursor_near(5).count()), (0, 0));
        assert!(empty.take_views().is_empty());
    }
}
