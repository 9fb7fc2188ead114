//! The Timeline view's state: the visible time range, the cursor and the two window
//! markers. Kept inside the report's window at every step (the tests check it).

/// Smallest visible range: below this the columns would be finer than the clock matters.
const MIN_SPAN_NS: u64 = 1_000;
/// Cursor steps per visible range (`h`/`l`).
const CURSOR_STEPS: u64 = 100;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TimelineState {
    /// The report's window: nothing is shown outside it.
    pub window: (u64, u64),
    /// The visible range, `[start, end)`.
    pub start: u64,
    pub end: u64,
    pub cursor: u64,
    pub marker_start: Option<u64>,
    pub marker_end: Option<u64>,
}

impl TimelineState {
    pub(crate) fn new(window_start: u64, window_end: u64) -> TimelineState {
        let end = window_end.max(window_start + 1);
        TimelineState {
            window: (window_start, end),
            start: window_start,
            end,
            cursor: window_start,
            marker_start: None,
            marker_end: None,
        }
    }

    pub(crate) fn span(&self) -> u64 {
        self.end - self.start
    }

    pub(crate) fn fit(&mut self) {
        (self.start, self.end) = self.window;
        self.clamp();
    }

    /// Zooms by `factor` (< 1 in, > 1 out) around the cursor.
    pub(crate) fn zoom(&mut self, factor: f64) {
        let full = self.window.1 - self.window.0;
        let span = ((self.span() as f64 * factor) as u64).clamp(MIN_SPAN_NS.min(full), full);
        let left = (self.cursor - self.start) as f64 / self.span() as f64;
        let start = self.cursor.saturating_sub((left * span as f64) as u64);
        self.start = start;
        self.end = start.saturating_add(span);
        self.clamp();
    }

    /// Moves the visible range by `quarters` quarters of its length.
    pub(crate) fn pan(&mut self, quarters: i64) {
        let step = (self.span() / 4).max(1) as i64 * quarters;
        let span = self.span();
        let start = (self.start as i64)
            .saturating_add(step)
            .max(self.window.0 as i64) as u64;
        self.start = start;
        self.end = start.saturating_add(span);
        self.clamp();
        self.cursor = self.cursor.clamp(self.start, self.end - 1);
    }

    pub(crate) fn move_cursor(&mut self, steps: i64) {
        let step = (self.span() / CURSOR_STEPS).max(1) as i64;
        let target = (self.cursor as i64).saturating_add(step * steps);
        self.cursor = target.clamp(self.window.0 as i64, self.window.1 as i64 - 1) as u64;
        // Follow the cursor when it leaves the visible range.
        if self.cursor < self.start {
            let span = self.span();
            self.start = self.cursor;
            self.end = self.start + span;
        } else if self.cursor >= self.end {
            let span = self.span();
            self.end = self.cursor + 1;
            self.start = self.end - span;
        }
        self.clamp();
    }

    /// Centres the view on `at`, zoomed to `span` ns.
    pub(crate) fn focus(&mut self, at: u64, span: u64) {
        let at = at.clamp(self.window.0, self.window.1 - 1);
        let span = span.clamp(MIN_SPAN_NS, self.window.1 - self.window.0);
        self.start = at.saturating_sub(span / 2);
        self.end = self.start + span;
        self.cursor = at;
        self.clamp();
    }

    /// The view `J` gives of a wait of `len_ns` that ended at `at`: eight times as long,
    /// at least 1 ms, centred on its end (so the wait and what followed are both seen).
    pub(crate) fn around_wait(&self, at: u64, len_ns: u64) -> TimelineState {
        let mut view = *self;
        view.focus(at, len_ns.saturating_mul(8).max(1_000_000));
        view
    }

    /// The range between the markers, when both are set and apart.
    pub(crate) fn marked_range(&self) -> Option<(u64, u64)> {
        let (a, b) = (self.marker_start?, self.marker_end?);
        let (a, b) = (a.min(b), a.max(b));
        (b > a).then_some((a, b))
    }

    fn clamp(&mut self) {
        let (lo, hi) = self.window;
        let span = self.span().clamp(1, hi - lo);
        if self.start < lo {
            self.start = lo;
        }
        if self.start + span > hi {
            self.start = hi - span;
        }
        self.end = self.start + span;
        self.cursor = self.cursor.clamp(self.start, self.end - 1);
    }

    /// True when the visible range and cursor are inside the window (an invariant).
    #[cfg(test)]
    pub(crate) fn in_range(&self) -> bool {
        self.window.0 <= self.start
            && self.start < self.end
            && self.end <= self.window.1
            && (self.start..self.end).contains(&self.cursor)
    }
}
