//! Reading in windows gives what reading the file in one piece gives: the same events in
//! the same order and the same metadata and counts, whatever the window size (down to one
//! line per window, so that every line boundary is a window boundary once).

use super::read_in_windows;
use crate::event::{Event, EventKind, PrevState};
use crate::progress::{Progress, Tracker};
use crate::source::KeepAll;
use crate::Ingested;

/// What was read, its events (markers' numbers taken out) and its markers' texts: the
/// windows' chunks are parsed in parallel, so a marker's number depends on the order they met
/// it (see `mark::texts_apart`).
type Read = (String, Vec<Event>, Vec<String>);

fn read_with(bytes: &[u8], window: usize) -> Read {
    let mut events = Vec::new();
    let progress = Progress::new();
    let tracker = Tracker::new(&progress);
    let got = read_in_windows(
        bytes,
        window,
        &KeepAll,
        &mut |e: &Event| events.push(*e),
        &tracker,
    );
    let (events, texts) = crate::mark::texts_apart(events, tracker.marks());
    (format!("{got:?}"), events, texts)
}

fn assert_window_independent(bytes: &[u8], windows: &[usize], what: &str) -> Vec<Event> {
    let (whole, whole_events, whole_texts) = read_with(bytes, usize::MAX);
    for &w in windows {
        let (got, events, texts) = read_with(bytes, w);
        assert_eq!(got, whole, "{what}: metadata and counts, window {w}");
        assert_eq!(texts, whole_texts, "{what}: markers' texts, window {w}");
        assert!(events == whole_events, "{what}: events, window {w}");
    }
    whole_events
}

fn fixture(name: &str) -> Vec<u8> {
    let path = fixtures::file(name);
    let mut out = Vec::new();
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::io::Read::read_to_end(&mut xz2::read::XzDecoder::new(file), &mut out).unwrap();
    out
}

#[test]
fn real_text_reads_the_same_in_any_window() {
    for name in [
        "traces/eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz",
        "traces/eevdf-6.18-host/pipe_pinned/perf.sched.script.txt.xz",
        "ftrace-6.18-lost.trace_pipe.xz",
        "ftrace-6.18-latency.trace.xz",
        "dual.ftrace.txt.xz",
    ] {
        let bytes = fixture(name);
        let events = assert_window_independent(&bytes, &[4096, 100_000], name);
        assert!(events.len() > 1000, "{name}: {}", events.len());
    }
}

/// One plugin-rendered switch (`trace-cmd report`) at `us` µs with `state` letters.
fn switch(us: u64, state: &str) -> String {
    format!(
        "            a-10    [000]  1.{us:06}: sched_switch:         a:10 [120] {state} ==> b:11 [120]\n"
    )
}

fn states(events: &[Event]) -> Vec<PrevState> {
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Switch { prev_state, .. } => Some(prev_state),
            _ => None,
        })
        .collect()
}

/// `x` (0x40) is TASK_DEAD on kernels <= 4.13 and TASK_PARKED after: the lines after it
/// decide, also when they are windows later.
#[test]
fn a_value_that_needs_the_encoding_waits_for_the_whole_file() {
    for (later, expected) in [("S|D", PrevState::Dead), ("Z", PrevState::Blocked)] {
        let mut text = String::from("cpus=1\n");
        for us in 1..20 {
            text += &switch(us, "S");
        }
        text += &switch(20, "x");
        for us in 21..40 {
            text += &switch(us, "R");
        }
        text += &switch(40, later);
        let events = assert_window_independent(text.as_bytes(), &[1, 200, 1000], later);
        assert_eq!(states(&events)[19], expected, "then {later}");
        assert_eq!(states(&events)[0], PrevState::Sleeping);
    }
}

/// Lost markers take the time of the event after them, also across a window boundary, and
/// the last event's time at the end of the file.
#[test]
fn lost_markers_across_windows() {
    let mut text = String::from("cpus=2\n");
    text += "CPU:1 [LOST 5 EVENTS]\n";
    text += &switch(1, "S");
    text += "CPU:0 [LOST 7 EVENTS]\n[LOST 2 EVENTS]\n";
    text += &switch(2, "S");
    text += &switch(3, "S");
    text += "CPU:1 [LOST 9 EVENTS]\n";
    let events = assert_window_independent(text.as_bytes(), &[1, 30, 120], "lost");
    let lost: Vec<(u64, u32)> = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Lost { .. }))
        .map(|e| (e.ts, e.cpu))
        .collect();
    assert_eq!(
        lost,
        [
            (1_000_001_000, 1),
            (1_000_002_000, 0),
            (1_000_002_000, 0),
            (1_000_003_000, 1)
        ]
    );
}

/// A file of lost markers and no event line fails, and nothing goes to the sink.
#[test]
fn markers_without_events_fail_before_anything_goes_out() {
    let mut n = 0;
    let got: crate::Result<Ingested> = read_in_windows(
        b"CPU:1 [LOST 5 EVENTS]\nnot a line\n",
        1,
        &KeepAll,
        &mut |_: &Event| n += 1,
        &Tracker::new(&Progress::new()),
    );
    assert!(got.is_err());
    assert_eq!(n, 0);
}

/// Late events are sorted within their window; one older than an earlier window goes out
/// at the start of its own, and is counted either way.
#[test]
fn late_events_are_sorted_within_their_window() {
    let text = format!(
        "cpus=1\n{}{}{}",
        switch(5, "S"),
        switch(7, "S"),
        switch(6, "S")
    );
    let times = |events: Vec<Event>| events.iter().map(|e| e.ts % 1_000_000).collect::<Vec<_>>();
    let (whole, events, _) = read_with(text.as_bytes(), usize::MAX);
    assert!(whole.contains("out_of_order: 1"), "{whole}");
    assert_eq!(times(events), [5000, 6000, 7000]);
    let (windowed, events, _) = read_with(text.as_bytes(), 1);
    assert!(windowed.contains("out_of_order: 1"), "{windowed}");
    assert_eq!(times(events), [5000, 7000, 6000]);
}
