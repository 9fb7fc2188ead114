//! The `--series` durations summed in the pass when the timeline store is kept (the TUI,
//! `analyze --series`): each kept log also hands the intervals it closes to
//! [`IntervalSums`] at every store check ([`crate::timeline_store::CHECK_EVERY`] events),
//! while they are fresh, instead of the whole store being decoded again at the end
//! ([`IntervalSums::of_timeline`], a second sweep over every interval). The sums are the
//! same to the bit: every interval is added once, and the runqueue edges are swept in time
//! order, up to a watermark before which no interval still to come can start, as the
//! export's drain does.

use super::Analyzer;
use crate::series_sums::IntervalSums;
use crate::timeline::{State, Task};

impl Analyzer {
    /// Adds the intervals the logs of `tasks` closed since the last call to the series'
    /// sums, and sweeps the runqueue edges that no later interval can precede.
    pub(crate) fn sum_series(&mut self, tasks: &mut [Task]) {
        let (Some(counts), Some(first)) = (&self.series, self.first_ts) else {
            return;
        };
        if !self.sum_series_in_pass {
            return;
        }
        if self.store.as_ref().is_none_or(|s| !s.recording()) {
            // Past the store's limit the logs are gone, and the series with them.
            self.series_sums = None;
            return;
        }
        let origin = first.max(self.scope.start);
        let sums = self
            .series_sums
            .get_or_insert_with(|| IntervalSums::new(origin, counts.window_ns));
        // No interval closed from now on starts before a waiting task's wait (or now).
        let mut watermark = self.now;
        for t in tasks.iter_mut() {
            if matches!(t.state, State::Runnable { .. }) {
                watermark = watermark.min(t.since);
            }
            let Some(unsummed) = t.log.as_mut().and_then(|l| l.unsummed()) else {
                continue;
            };
            for v in unsummed.iter() {
                sums.add(v, &self.scope);
            }
            unsummed.clear();
        }
        sums.sweep_until(watermark);
    }
}

#[cfg(test)]
mod tests {
    use crate::{Analyzer, Config};
    use ingest::{Event, EventSink, Marks, TraceMeta};

    /// The analyzer, its series summed every `every` events besides the store checks (most
    /// captures have fewer events than one check's worth): the watermark is then met at
    /// every kind of moment, mid-wait included.
    struct Often {
        analyzer: Analyzer,
        every: u32,
        seen: u32,
    }

    impl EventSink for Often {
        fn event(&mut self, event: &Event) {
            self.analyzer.event(event);
            self.seen += 1;
            if self.every > 0 && self.seen.is_multiple_of(self.every) {
                let mut tasks = std::mem::take(&mut self.analyzer.tasks);
                self.analyzer.sum_series(&mut tasks);
                self.analyzer.tasks = tasks;
            }
        }
        fn meta(&mut self, meta: &TraceMeta) {
            self.analyzer.meta(meta);
        }
        fn marks(&mut self, marks: &Marks) {
            self.analyzer.marks(marks);
        }
    }

    /// The series of every VM capture (10 ms and 1 ms windows), summed in the pass (at the
    /// store checks only, and every 97 events) and summed from the finished store at the end:
    /// the same JSON, to the last bit of every float.
    #[test]
    fn the_pass_sums_are_the_finished_stores() {
        let mut captures = Vec::new();
        for kernel in std::fs::read_dir(fixtures::trace("")).unwrap().flatten() {
            if kernel.file_name().to_string_lossy().ends_with("-vm") {
                for workload in std::fs::read_dir(kernel.path()).unwrap().flatten() {
                    captures.push(workload.path().join("trace-v6.dat.xz"));
                }
            }
        }
        captures.retain(|p| p.exists());
        assert!(captures.len() >= 14, "{captures:?}");
        for path in &captures {
            let bytes = ingest::source::load(path).unwrap();
            for window_ns in [10_000_000, 1_000_000] {
                let series = |in_pass: bool, every: u32| {
                    let config = Config {
                        series: Some(window_ns),
                        timeline: Some(Default::default()),
                        ..Default::default()
                    };
                    let mut analyzer = Analyzer::new(config);
                    analyzer.sum_series_in_pass = in_pass;
                    let mut sink = Often {
                        analyzer,
                        every,
                        seen: 0,
                    };
                    let ingested = ingest::read_bytes(&bytes, &mut sink).unwrap();
                    let (report, _) = sink.analyzer.finish_with_timeline(&ingested, "t");
                    serde_json::to_string(&report.series).unwrap()
                };
                let store = series(false, 0);
                assert!(store.len() > 1000, "{}: {store}", path.display());
                for every in [0, 97] {
                    let pass = series(true, every);
                    assert!(
                        pass == store,
                        "{}: the series differ ({every})",
                        path.display()
                    );
                }
            }
        }
    }
}
