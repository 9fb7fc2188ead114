//! Idle states from `power:cpu_idle` (docs/metrics.md §3b): a hand-built stream worked out by
//! hand, two public traces against `trace-cmd report`, then the `eevdf-6.18-host/cpu_idle`
//! capture read from each of its files (trace.dat, perf.data, the two tools' text, and the
//! perf.data converted to Perfetto): the time in each state per CPU equals what
//! `ground_truth.py` counted from `trace-cmd report` / `perf script`, and the idle waits split
//! by state add up to their idle time exactly.

use crate::common::*;
use analysis::pipeline::{analyze as analyze_path, Options};
use analysis::report::IdleStateRow;
use analysis::Report;
use ingest::PrevState::{Runnable as R, Sleeping as S};
use ingest::{Event, EventKind};
use std::collections::BTreeMap;
use std::path::Path;

fn cpu_idle(ts: u64, cpu: u32, state: u32) -> Event {
    Event {
        ts,
        cpu,
        current_pid: 0,
        kind: EventKind::CpuIdle { state, cpu_id: cpu },
    }
}

const EXIT: u32 = EventKind::IDLE_EXIT;

/// CPU 1 runs 20 until 500, then idles: it enters state 1 at 520. Task 10 (asleep on CPU 0)
/// is woken onto CPU 1 at 1000; CPU 1 leaves state 1 at 1050 and runs 10 at 1100: the wait's
/// 100 ns are idle, leaving state 1. Later 10 sleeps, CPU 1 idles without entering a state,
/// 10 is woken at 2000 and runs at 2030: 30 ns idle in no state. CPU 0 enters state 0 at 3000
/// and holds it to the end (3100).
#[test]
fn idle_pieces_take_the_state_the_cpu_was_leaving() {
    let r = analyze(&[
        switch(100, 0, 10, S, 0),
        switch(200, 1, 0, R, 20),
        switch(500, 1, 20, S, 0),
        cpu_idle(520, 1, 1),
        waking(1000, 0, 0, 10, 1),
        wakeup(1000, 0, 0, 10, 1),
        cpu_idle(1050, 1, EXIT),
        switch(1100, 1, 0, R, 10),
        switch(1500, 1, 10, S, 0),
        waking(2000, 0, 0, 10, 1),
        wakeup(2000, 0, 0, 10, 1),
        switch(2030, 1, 0, R, 10),
        cpu_idle(3000, 0, 0),
        switch(3100, 1, 10, S, 0),
    ]);
    let by_state = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
        pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
    };
    let c = &row(&r, 10).wait_causes;
    assert_eq!(c.idle_ns, 130);
    assert_eq!(c.idle_ns_by_state, by_state(&[("1", 100), ("none", 30)]));
    assert_eq!(r.system.wait_causes.idle_ns_by_state, c.idle_ns_by_state);
    let state = |state, ns, count| IdleStateRow { state, ns, count };
    assert_eq!(cpu(&r, 1).idle_states, [state(1, 530, 1)]);
    assert_eq!(cpu(&r, 0).idle_states, [state(0, 100, 1)]);
}

/// Without `cpu_idle` nothing is added: no rows, no split.
#[test]
fn a_trace_without_cpu_idle_has_no_idle_states() {
    let r = analyze(&[
        switch(100, 1, 0, R, 20),
        switch(500, 1, 20, S, 0),
        waking(1000, 0, 0, 10, 1),
        switch(1100, 1, 0, R, 10),
    ]);
    assert_eq!(row(&r, 10).wait_causes.idle_ns, 100);
    assert!(row(&r, 10).wait_causes.idle_ns_by_state.is_empty());
    assert!(r.cpus.iter().all(|c| c.idle_states.is_empty()));
}

/// A third-party trace with `power:cpu_idle` (trappy's `trace_idle.dat`, 6 CPUs, ARM Juno):
/// the time in each state per CPU equals what `ground_truth.py` (beside the host capture's
/// tools in `fixtures/traces/eevdf-6.18-host/cpu_idle/`) counts from `trace-cmd report -t -i
/// trace_idle.dat` (trace-cmd 3.1.6): 17 cpu_idle events, 23 switches, 3 migrations.
#[test]
fn trappy_trace_idle_matches_trace_cmd() {
    if fixtures::public_missing() {
        return;
    }
    let r = analysis::pipeline::analyze(
        &fixtures::trace("public/trappy/trace_idle.dat.xz"),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(r.quality.events.get("cpu_idle"), Some(&17));
    let state = |state, ns, count| IdleStateRow { state, ns, count };
    let got: Vec<(u32, Vec<IdleStateRow>)> = r
        .cpus
        .iter()
        .filter(|c| !c.idle_states.is_empty())
        .map(|c| (c.cpu, c.idle_states.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (0, vec![state(2, 2_780_400, 4)]),
            (1, vec![state(0, 1_618_500, 1)]),
            (2, vec![state(2, 4_467_580, 1)]),
            (3, vec![state(0, 1_610_360, 1)]),
            (5, vec![state(2, 5_255_380, 1)]),
        ]
    );
    split_adds_up(&r, "trace_idle");
}

/// LISA's `sched_load.trace.dat` (6 CPUs, 474 cpu_idle events): the time in each state per
/// CPU equals `ground_truth.py`'s count of `trace-cmd report -t` of the same file, to the ns;
/// its waits have idle pieces that left a state, and their split adds up.
#[test]
fn lisa_sched_load_matches_trace_cmd() {
    if fixtures::public_missing() {
        return;
    }
    let r = analysis::pipeline::analyze(
        &fixtures::trace("public/lisa/sched_load.trace.dat.xz"),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(r.quality.events.get("cpu_idle"), Some(&474));
    let rows = |list: &[(u32, u64, u64)]| -> Vec<IdleStateRow> {
        list.iter()
            .map(|&(state, ns, count)| IdleStateRow { state, ns, count })
            .collect()
    };
    let want: Vec<(u32, Vec<IdleStateRow>)> = vec![
        (
            0,
            rows(&[
                (0, 45_189_700, 68),
                (1, 44_502_200, 15),
                (2, 322_821_900, 26),
            ]),
        ),
        (1, rows(&[(0, 262_703_660, 24)])),
        (
            2,
            rows(&[
                (0, 11_745_780, 11),
                (1, 39_280_660, 11),
                (2, 360_552_920, 6),
            ]),
        ),
        (
            3,
            rows(&[
                (0, 15_600_140, 14),
                (1, 90_047_020, 18),
                (2, 298_879_900, 8),
            ]),
        ),
        (
            4,
            rows(&[(0, 4_503_340, 2), (1, 202_089_280, 7), (2, 31_606_040, 12)]),
        ),
        (
            5,
            rows(&[(0, 37_188_060, 3), (1, 202_727_660, 11), (2, 3_915_900, 1)]),
        ),
    ];
    let got: Vec<(u32, Vec<IdleStateRow>)> = r
        .cpus
        .iter()
        .map(|c| (c.cpu, c.idle_states.clone()))
        .collect();
    assert_eq!(got, want);
    assert!(
        split_adds_up(&r, "sched_load") > 0,
        "no idle piece left a state"
    );
}

/// Checks that every task's and the system's idle waits split by state add up to their idle
/// time exactly; returns the idle time of the pieces that left a state (not `none` or
/// `unknown`).
fn split_adds_up(report: &Report, what: &str) -> u64 {
    let mut labelled = 0;
    for t in &report.tasks {
        let c = &t.wait_causes;
        let sum: u64 = c.idle_ns_by_state.values().sum();
        assert_eq!(sum, c.idle_ns, "{what}: pid {} idle split", t.pid);
        labelled += c
            .idle_ns_by_state
            .iter()
            .filter(|(k, _)| k.parse::<u32>().is_ok())
            .map(|(_, ns)| ns)
            .sum::<u64>();
    }
    let s = &report.system.wait_causes;
    assert_eq!(
        s.idle_ns_by_state.values().sum::<u64>(),
        s.idle_ns,
        "{what}"
    );
    labelled
}

const CAPTURE: &str = "eevdf-6.18-host/cpu_idle";

/// `ground_truth.json`'s counts of one reference output: events by name, and per CPU the
/// rows of each state.
struct Truth {
    events: BTreeMap<String, u64>,
    states: BTreeMap<u32, Vec<IdleStateRow>>,
}

fn truth(source: &str) -> Truth {
    let path = fixtures::trace(&format!("{CAPTURE}/ground_truth.json"));
    let all: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let t = &all[source];
    let events = serde_json::from_value(t["events"].clone()).unwrap();
    let states = t["idle_states"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(cpu, rows)| {
            let rows = rows
                .as_array()
                .unwrap()
                .iter()
                .map(|r| IdleStateRow {
                    state: r["state"].as_u64().unwrap() as u32,
                    ns: r["ns"].as_u64().unwrap(),
                    count: r["count"].as_u64().unwrap(),
                })
                .collect();
            (cpu.parse().unwrap(), rows)
        })
        .collect();
    Truth { events, states }
}

/// Checks a report of the capture against one reference output's counts.
fn check(report: &Report, truth: &Truth, what: &str) {
    assert_eq!(
        report.quality.events.get("cpu_idle"),
        truth.events.get("cpu_idle"),
        "{what}: cpu_idle events"
    );
    assert!(report.quality.lost_events.is_empty(), "{what}: lost events");
    let got: BTreeMap<u32, Vec<IdleStateRow>> = report
        .cpus
        .iter()
        .filter(|c| !c.idle_states.is_empty())
        .map(|c| (c.cpu, c.idle_states.clone()))
        .collect();
    assert_eq!(got, truth.states, "{what}: time in each idle state");
    let labelled = split_adds_up(report, what);
    // Not vacuous: some waits were idle pieces of a CPU leaving a state.
    assert!(labelled > 0, "{what}: no idle piece left a state");
}

fn analyzed(path: &Path) -> Report {
    analyze_path(path, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn trace_dat_and_its_report_match_trace_cmd() {
    let t = truth("trace-cmd report -t (trace.dat)");
    let dir = fixtures::trace(CAPTURE);
    check(&analyzed(&dir.join("trace.dat")), &t, "trace.dat");
    check(
        &analyzed(&dir.join("trace-cmd.report.txt.xz")),
        &t,
        "trace-cmd report",
    );
}

#[test]
fn perf_data_its_script_and_perfetto_match_perf_script() {
    let t = truth("perf script --ns (perf.data)");
    let dir = fixtures::trace(CAPTURE);
    let data = dir.join("perf.data.xz");
    check(&analyzed(&data), &t, "perf.data");
    check(
        &analyzed(&dir.join("perf.script.txt.xz")),
        &t,
        "perf script",
    );
    // Perfetto keeps the event (CpuIdleFtraceEvent): the same numbers after a conversion.
    let out = std::env::temp_dir().join(format!("cpu_idle-{}.perfetto", std::process::id()));
    ingest::perfetto::convert(&data, &out, Default::default(), Default::default()).unwrap();
    let converted = analyzed(&out);
    let _ = std::fs::remove_file(&out);
    check(&converted, &t, "perf.data → Perfetto");
}
