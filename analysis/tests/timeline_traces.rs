//! The timeline store against the report on every VM capture of ../shared/traces: each
//! task's running intervals (clipped to the window) sum to its reported runtime exactly, its
//! timed waits ended by a switch-in sum to its sched delay, and per CPU the running
//! intervals never overlap and sum to the CPU's busy time exactly (the rest of the CPU's
//! time is its idle and unknown time, which the store does not hold).

use analysis::timeline_store::{EndReason, ThreadState};
use analysis::{Analyzer, Config, Report, Timeline, TimelineOptions};
use std::collections::BTreeMap;

fn vm_captures() -> Vec<std::path::PathBuf> {
    let root = fixtures::trace("");
    let mut found = Vec::new();
    for kernel in std::fs::read_dir(root).unwrap() {
        let kernel = kernel.unwrap().path();
        if !kernel.to_string_lossy().ends_with("-vm") {
            continue;
        }
        for run in std::fs::read_dir(&kernel).unwrap() {
            let trace = run.unwrap().path().join("trace-v6.dat.xz");
            if trace.exists() {
                found.push(trace);
            }
        }
    }
    found.sort();
    found
}

fn analyze(path: &std::path::Path) -> (Report, Timeline) {
    let mut analyzer = Analyzer::new(Config {
        timeline: Some(TimelineOptions::default()),
        ..Default::default()
    });
    let ingested = ingest::read_path(path, &mut analyzer).unwrap();
    let (report, timeline) = analyzer.finish_with_timeline(&ingested, "vm");
    (
        report,
        timeline.expect("asked for").expect("within the limit"),
    )
}

fn clip(start: u64, end: u64, w: analysis::Window) -> u64 {
    end.min(w.end_ns).saturating_sub(start.max(w.start_ns))
}

#[test]
fn intervals_add_up_to_the_report_on_every_vm_capture() {
    let traces = vm_captures();
    assert!(traces.len() >= 12, "{traces:?}");
    for path in &traces {
        let (report, timeline) = analyze(path);
        let w = report.window;
        let name = path.display();
        // Per pid (a reused pid has several lifetimes: their sums are compared).
        let mut reported: BTreeMap<i32, (u64, u64)> = BTreeMap::new();
        for t in &report.tasks {
            let e = reported.entry(t.pid).or_default();
            e.0 += t.runtime_ns;
            e.1 += t.sched_delay.sum_ns;
        }
        let mut stored: BTreeMap<i32, (u64, u64)> = BTreeMap::new();
        for task in timeline.tasks() {
            let e = stored.entry(task.pid).or_default();
            for v in task.intervals() {
                match v.state {
                    ThreadState::Running => e.0 += clip(v.start_ns, v.end_ns(), w),
                    ThreadState::RunnableWakeup | ThreadState::RunnablePreempted
                        if v.end == EndReason::SwitchedIn && v.latency_timed =>
                    {
                        e.1 += v.dur_ns
                    }
                    _ => {}
                }
            }
        }
        stored.retain(|_, v| *v != (0, 0));
        reported.retain(|_, v| *v != (0, 0));
        assert_eq!(stored, reported, "{name}: (runtime, sched delay) per pid");

        for row in &report.cpus {
            let mut last_end = 0;
            let mut busy = 0;
            for (_, v) in timeline.cpu_slices(row.cpu, 0, u64::MAX) {
                assert_eq!(v.cpu, Some(row.cpu));
                assert!(
                    v.start_ns >= last_end,
                    "{name}: cpu {} overlap at {}",
                    row.cpu,
                    v.start_ns
                );
                last_end = v.end_ns();
                busy += clip(v.start_ns, v.end_ns(), w);
            }
            assert_eq!(busy, row.busy_ns, "{name}: cpu {} busy", row.cpu);
        }
    }
}
