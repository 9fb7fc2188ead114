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

/// The store's reads against a plain scan of every interval, on every VM capture: a CPU's
/// slices (merged from its tasks' logs) are its tasks' running intervals sorted by (start,
/// task), over the whole trace and over spans that start and end mid-interval; the tasks
/// that ran on a CPU in a span are those with a slice of some length there; a task's
/// intervals in a span (read from the mark before it) are those of the full read that
/// overlap it.
#[test]
fn range_reads_equal_a_full_scan_on_every_vm_capture() {
    for path in &vm_captures() {
        let (_, timeline) = analyze(path);
        let name = path.display();
        let w = timeline.window();
        // Spans of a seventh and a 1/1000 of the window, at odd offsets, and the whole.
        let len = w.len_ns();
        let mut spans = vec![(0, u64::MAX)];
        for k in 0..7 {
            spans.push((
                w.start_ns + k * len / 7 + 13,
                w.start_ns + (k + 1) * len / 7 + 7,
            ));
            let a = w.start_ns + (2 * k + 1) * len / 15;
            spans.push((a, a + len / 1000));
        }
        for cpu in 0..timeline.cpu_count() {
            let mut all: Vec<(u64, usize, u64)> = Vec::new();
            for (t, task) in timeline.tasks().iter().enumerate() {
                for v in task.intervals() {
                    if v.state == ThreadState::Running && v.cpu == Some(cpu) {
                        all.push((v.start_ns, t, v.end_ns()));
                    }
                }
            }
            all.sort_unstable();
            for &(a, b) in &spans {
                let want: Vec<(u64, usize, u64)> = all
                    .iter()
                    .copied()
                    .filter(|&(s, _, e)| e > a && s < b)
                    .collect();
                let got: Vec<(u64, usize, u64)> = timeline
                    .cpu_slices(cpu, a, b)
                    .map(|(t, v)| (v.start_ns, t, v.end_ns()))
                    .collect();
                assert_eq!(got, want, "{name}: cpu {cpu} slices in {a}..{b}");
                let mut ran: Vec<usize> = want
                    .iter()
                    .filter(|&&(s, _, e)| e > s)
                    .map(|&(_, t, _)| t)
                    .collect();
                ran.sort_unstable();
                ran.dedup();
                let got: Vec<usize> = timeline.tasks_run_on(cpu, a, b).collect();
                assert_eq!(got, ran, "{name}: cpu {cpu} tasks in {a}..{b}");
            }
        }
        let mut read = 0;
        for task in timeline.tasks() {
            let all: Vec<_> = task.intervals().collect();
            for &(a, b) in &spans {
                let want: Vec<_> = all
                    .iter()
                    .copied()
                    .filter(|v| (v.end_ns() > a || v.start_ns >= a) && v.start_ns < b)
                    .collect();
                let got: Vec<_> = task.intervals_in(a, b).collect();
                assert_eq!(got, want, "{name}: pid {} in {a}..{b}", task.pid);
                read += got.len();
            }
        }
        assert!(read > 0, "{name}");
    }
}
