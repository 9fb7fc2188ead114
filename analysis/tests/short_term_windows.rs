//! Short-term Jain's index on a real trace (issue #10's bug): on the EEVDF `nice` run
//! (two spinners, 3 s) with `--fair-set nice`, every 10 ms window in which both spinners
//! exist counts. The expected count is recomputed here from the raw events: the windows
//! (from the first event on) that end by the last event and overlap the time both tasks
//! were on the CPUs.

use analysis::{Config, FairSet};
use ingest::{Event, EventKind, EventSink};

const TRACE: &str = "eevdf-6.12-vm/nice/trace-v6.dat.xz";
const WINDOW: u64 = 10_000_000;

/// First and last time each workload task was switched (in or out), and the trace span.
#[derive(Default)]
struct Spans {
    first_ts: Option<u64>,
    last_ts: u64,
    tasks: [(u64, u64); 2],
}

const PIDS: [i32; 2] = [314, 315];

impl EventSink for Spans {
    fn event(&mut self, ev: &Event) {
        if matches!(ev.kind, EventKind::TaskName { .. }) {
            return;
        }
        self.first_ts.get_or_insert(ev.ts);
        self.last_ts = self.last_ts.max(ev.ts);
        if let EventKind::Switch { prev, next, .. } = &ev.kind {
            for (i, pid) in PIDS.iter().enumerate() {
                if prev.pid == *pid || next.pid == *pid {
                    let span = &mut self.tasks[i];
                    if span.0 == 0 {
                        span.0 = ev.ts;
                    }
                    span.1 = ev.ts;
                }
            }
        }
    }
}

fn short_term_windows(time_window: Option<(u64, u64)>) -> u64 {
    let config = Config {
        fair_set: Some(FairSet::parse("nice").unwrap()),
        time_window,
        ..Default::default()
    };
    let report = analysis::pipeline::analyze(
        &fixtures::trace(TRACE),
        &analysis::pipeline::Options {
            config,
            ..Default::default()
        },
    )
    .unwrap();
    let st = &report.system.fairness.short_term[0];
    assert_eq!(st.window_ns, WINDOW);
    st.windows
}

#[test]
fn every_window_with_both_spinners_counts() {
    let mut spans = Spans::default();
    ingest::read_path(&fixtures::trace(TRACE), &mut spans).unwrap();
    let origin = spans.first_ts.unwrap();
    let both_from = spans.tasks.iter().map(|s| s.0).max().unwrap();
    let both_to = spans.tasks.iter().map(|s| s.1).min().unwrap();
    let expected = (0u64..)
        .map(|k| (origin + k * WINDOW, origin + (k + 1) * WINDOW))
        .take_while(|&(_, end)| end <= spans.last_ts)
        .filter(|&(start, end)| end > both_from && start < both_to)
        .count() as u64;
    // About 300 for the 3 s run (the bug gave 1).
    assert!((295..=310).contains(&expected), "{expected}");
    assert_eq!(short_term_windows(None), expected);
}

/// The setup migrations at 115.389-115.391 s were the trigger: starting the window after
/// them gave 302 windows before the fix, and a start before them must not lose any.
#[test]
fn a_start_before_the_setup_migrations_loses_no_window() {
    let late = short_term_windows(Some((115_400_000_000, u64::MAX)));
    let early = short_term_windows(Some((115_380_000_000, u64::MAX)));
    assert_eq!(late, 302);
    assert!(early >= late, "{early} < {late}");
}
