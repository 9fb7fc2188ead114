//! `convert` keeps what the re-analysis of its output depends on (issue #11 item 11): the
//! window (first and last event of any kind, so a task running at the end keeps its tail) and
//! the trace clock.

use crate::hostile_support::{run, scratch, switch_line};
use serde_json::Value;
use std::time::Duration;

fn report(path: &str) -> Value {
    let r = run(
        &["analyze", path, "--json", "-"],
        None,
        Duration::from_secs(20),
    );
    r.expect_code(0);
    serde_json::from_str(&r.stdout).unwrap()
}

fn convert(from: &str, to: &str) {
    run(&["convert", from, "-o", to], None, Duration::from_secs(20)).expect_code(0);
}

fn runtime(report: &Value, pid: i64) -> u64 {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["pid"] == pid)
        .unwrap()["runtime_ns"]
        .as_u64()
        .unwrap()
}

#[test]
fn the_window_survives_conversion_with_non_sched_events_at_both_ends() {
    let dir = scratch("convert-window");
    let text = dir.join("t.txt");
    let marker = |ts: &str, what: &str| {
        format!("            bash-10    [000] ..... {ts}: print: tracing_mark_write: {what}\n")
    };
    let body = marker("1.000000", "start")
        + &switch_line("1.100000", ("bash", 10), "S", ("a", 1))
        + &switch_line("1.200000", ("a", 1), "R", ("b", 2))
        + &marker("1.500000", "end");
    std::fs::write(&text, body).unwrap();
    let out = dir.join("t.perfetto-trace");
    let (text, out) = (text.to_str().unwrap(), out.to_str().unwrap());
    convert(text, out);
    let (before, after) = (report(text), report(out));
    assert_eq!(
        before["window"],
        serde_json::json!({"start_ns": 1_000_000_000u64, "end_ns": 1_500_000_000u64})
    );
    assert_eq!(after["window"], before["window"]);
    // b runs from 1.2 s to the end of the window.
    assert_eq!(runtime(&before, 2), 300_000_000);
    assert_eq!(runtime(&after, 2), 300_000_000);
}

#[test]
fn the_trace_clock_survives_conversion() {
    let dat = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/pipe_pinned.eevdf-6.18.trace.dat"
    );
    let dir = scratch("convert-clock");
    let out = dir.join("t.perfetto-trace");
    let out = out.to_str().unwrap();
    convert(dat, out);
    let (before, after) = (report(dat), report(out));
    assert_eq!(after["source"]["clock"], before["source"]["clock"]);
    assert_eq!(after["window"], before["window"]);
}
