//! The engine's side of draining ([`crate::drain`], for `schedtrace export`): turning the
//! store and the records on for a drain, and handing them over every [`Drain::every`]
//! events and once at the end.

use super::Analyzer;
use crate::drain::{Drain, DrainPoint, Draining};
use crate::metrics::records::Recorder;
use crate::timeline::Task;
use crate::timeline_store::StoreState;
use crate::window::Window;
use crate::TimelineOptions;

impl Analyzer {
    /// Hands intervals and records to `sink` as the trace is read (before any event: the
    /// store and records are turned on, without their memory limits, which a drain does
    /// not need). The report's `records` are then empty and no store is given back.
    pub fn drain_into(&mut self, sink: Box<dyn Drain>) {
        debug_assert!(
            self.first_ts.is_none(),
            "a drain starts before the first event"
        );
        if self.store.is_none() {
            self.store = Some(StoreState::new(TimelineOptions::default()));
        }
        self.records = Some(Box::new(Recorder::new(u64::MAX)));
        let draining = Draining::new(sink);
        if let Some(store) = &mut self.store {
            store.countdown = draining.every;
        }
        self.drain = Some(Box::new(draining));
    }

    /// Whether a drain takes the store's intervals (then no memory limit applies).
    pub(crate) fn draining(&self) -> bool {
        self.drain.is_some()
    }

    /// Drains every closed interval of `tasks` and every record (every [`Drain::every`]
    /// events, and once at the end with `last` set, after every interval was closed).
    pub(crate) fn drain_now(&mut self, tasks: &mut [Task], last: bool) {
        let Some(first) = self.first_ts else {
            return;
        };
        let Some(mut d) = self.drain.take() else {
            return;
        };
        let start = first.max(self.scope.start);
        let at = DrainPoint {
            window: Window {
                start_ns: start,
                end_ns: self.now.min(self.scope.end).max(start),
            },
            now: self.now,
            scope: &self.scope,
            series_window_ns: self.series.as_ref().map(|s| s.window_ns),
            last,
        };
        let map = self.cpu_map();
        let records = self.records.as_mut().map(|r| r.take(map.as_ref()));
        d.drain(tasks, at, records, |pid| self.find(pid));
        self.drain = Some(d);
    }
}
