//! `compare` on the real VM captures of one workload under CFS 6.1, EEVDF 6.12 and PDS 6.1:
//! the scheduler family comes from each file's kernel release, and every number of the
//! comparison equals what this test computes itself from the three single-run reports.

use crate::compare_support::*;
use analysis::compare::{assemble, compare, scheduler_name_of, scheduler_of, Options, RunSpec};
use serde_json::Value;
use std::collections::BTreeMap;

const KERNELS: [&str; 3] = ["cfs-6.1-vm", "eevdf-6.12-vm", "pds-6.1-vm"];
const LABELS: [&str; 3] = [
    "CFS 6.1.0-57-amd64",
    "EEVDF 6.12.95+deb12-amd64",
    "PDS 6.1.192-prjc-pds",
];

fn ptr(r: &Value, p: &str) -> Option<f64> {
    r.pointer(p).and_then(Value::as_f64)
}

/// The system metrics as this test reads them: (key, value in one report, higher is better).
type Reader = fn(&Value) -> Option<f64>;
const SYSTEM: &[(&str, Reader, &str)] = &[
    (
        "context_switches_per_sec",
        |r| ptr(r, "/system/context_switches_per_sec"),
        "neutral",
    ),
    (
        "wakeup_preemptions_per_sec",
        |r| ptr(r, "/system/wakeup_preemption/per_sec"),
        "lower",
    ),
    (
        "voluntary_involuntary_ratio",
        |r| {
            let inv = ptr(r, "/system/switches/involuntary")?;
            (inv != 0.0).then(|| ptr(r, "/system/switches/voluntary").map(|v| v / inv))?
        },
        "neutral",
    ),
    (
        "wakeup_latency_p50",
        |r| ptr(r, "/system/wakeup_latency/p50_ns"),
        "lower",
    ),
    (
        "wakeup_latency_p99",
        |r| ptr(r, "/system/wakeup_latency/p99_ns"),
        "lower",
    ),
    (
        "wakeup_latency_max",
        |r| ptr(r, "/system/wakeup_latency/max_ns"),
        "lower",
    ),
    (
        "preemption_wait_p99",
        |r| ptr(r, "/system/preemption_wait/p99_ns"),
        "lower",
    ),
    (
        "migrations_per_sec",
        |r| ptr(r, "/system/migrations_per_sec"),
        "lower",
    ),
    (
        "cross_llc_share",
        |r| ptr(r, "/system/affinity/cross_llc_share"),
        "lower",
    ),
    ("utilization", |r| ptr(r, "/system/utilization"), "neutral"),
    (
        "idle_while_runnable_share",
        |r| ptr(r, "/system/work_conservation/idle_while_runnable_share"),
        "lower",
    ),
    ("jain_index", |r| ptr(r, "/system/fairness/jain"), "higher"),
];

/// Per exact name: (runtime ns, switches per second of window, wakeup latency max ns)
/// summed / maxed over the report's tasks, read through the typed report model.
fn tasks_by_name(report: &Value) -> BTreeMap<String, (f64, f64, f64)> {
    let typed: analysis::Report = serde_json::from_value(report.clone()).unwrap();
    let mut by_name: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
    for t in &typed.tasks {
        let secs = typed.window.len_ns() as f64 / 1e9;
        let e = by_name.entry(t.comm.clone()).or_default();
        e.0 += t.runtime_ns as f64;
        e.1 += (t.switches.voluntary + t.switches.involuntary) as f64 / secs;
        e.2 = e.2.max(t.wakeup_latency.max_ns as f64);
    }
    by_name
}

fn check_workload(workload: &str) {
    let files: Vec<String> = KERNELS
        .iter()
        .map(|k| format!("{k}/{workload}/trace-v6.dat.xz"))
        .collect();
    let repeats: Vec<_> = files.iter().map(|f| load(f)).collect();
    let families: Vec<String> = repeats.iter().map(|r| scheduler_of(&r.report)).collect();
    assert_eq!(families, ["CFS", "EEVDF", "BFS family"], "{workload}");
    let names: Vec<String> = repeats
        .iter()
        .map(|r| scheduler_name_of(&r.report))
        .collect();
    assert_eq!(names, ["CFS", "EEVDF", "PDS"], "{workload}");
    let reports: Vec<Value> = repeats.iter().map(|r| r.report.clone()).collect();

    let specs: Vec<RunSpec> = files
        .iter()
        .map(|f| RunSpec::parse(shared(f).to_str().unwrap()).unwrap())
        .collect();
    let runs = assemble(&specs, repeats.into_iter().map(|r| vec![r]).collect(), &[]);
    let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, LABELS, "{workload}: automatic labels");
    let c = compare(&runs, &Options::default()).unwrap();
    assert_eq!(c.base, LABELS[0]);

    // Headers.
    for (run, report) in c.runs.iter().zip(&reports) {
        let r = &run.repeats[0];
        let window = report["window"]["end_ns"].as_u64().unwrap()
            - report["window"]["start_ns"].as_u64().unwrap();
        assert_eq!(r.window_ns, window);
        let events: u64 = report["quality"]["events"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(r.events, events);
        assert!(!r.from_json_report);
    }

    // System table: same metrics as this test's list, every cell as computed here.
    let keys: Vec<&str> = c.system.iter().map(|r| r.key.as_str()).collect();
    let mine: Vec<&str> = SYSTEM.iter().map(|s| s.0).collect();
    assert_eq!(
        keys, mine,
        "the system table and this test list the same metrics"
    );
    for (key, read, higher) in SYSTEM {
        let row = system_row(&c, key);
        let base: Vec<f64> = read(&reports[0]).into_iter().collect();
        for (label, report) in LABELS.iter().zip(&reports) {
            let v: Vec<f64> = read(report).into_iter().collect();
            let want = expected(&v, &base, higher, 5.0);
            check_cell(
                &format!("{workload} {key} {label}"),
                cell(row, label),
                &want,
                *label == LABELS[0],
            );
        }
    }
    // The metrics every capture has (with the metrics of `analysis::system`).
    for key in [
        "context_switches_per_sec",
        "wakeup_latency_p99",
        "utilization",
    ] {
        for cell in &system_row(&c, key).cells {
            assert_eq!(cell.n, 1, "{workload} {key} {}: present", cell.label);
        }
    }
    for cell in &system_row(&c, "cross_llc_share").cells {
        assert_eq!(cell.n, 0, "{workload}: no topology, no cross-LLC share");
    }
    // Context switches per second, recomputed from the per-CPU rows.
    for (label, report) in LABELS.iter().zip(&reports) {
        let switches: u64 = report["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["switches"].as_u64().unwrap())
            .sum();
        let secs = (report["window"]["end_ns"].as_u64().unwrap()
            - report["window"]["start_ns"].as_u64().unwrap()) as f64
            / 1e9;
        let got = cell(system_row(&c, "context_switches_per_sec"), label)
            .mean
            .unwrap();
        assert!(
            (got - switches as f64 / secs).abs() <= 1e-6 * got,
            "{workload} {label}: {got} /s vs {switches} switches in {secs} s"
        );
    }

    // Task table: top 10 by largest runtime in any run, matched by exact name.
    let tasks: Vec<_> = reports.iter().map(tasks_by_name).collect();
    let mut names: Vec<&String> = tasks.iter().flat_map(|t| t.keys()).collect();
    names.sort();
    names.dedup();
    let best = |n: &String| {
        tasks
            .iter()
            .filter_map(|t| t.get(n).map(|x| x.0))
            .fold(f64::MIN, f64::max)
    };
    names.sort_by(|a, b| best(b).total_cmp(&best(a)).then(a.cmp(b)));
    names.truncate(10);
    let table: Vec<&String> = c.tasks.tasks.iter().map(|t| &t.name).collect();
    assert_eq!(table, names, "{workload}: task table rows");
    for name in names {
        for (key, pick, higher) in [
            ("runtime", 0usize, "neutral"),
            ("switches", 1, "neutral"),
            ("wakeup-max", 2, "lower"),
        ] {
            let row = task_row(&c, name, key);
            let value = |t: &BTreeMap<String, (f64, f64, f64)>| -> Vec<f64> {
                t.get(name)
                    .map(|x| [x.0, x.1, x.2][pick])
                    .into_iter()
                    .collect()
            };
            let base = value(&tasks[0]);
            for (label, t) in LABELS.iter().zip(&tasks) {
                // The typed model has wakeup max 0 for tasks without wakeups; compare shows
                // it as 0 too (a task with no wakeup has max_ns 0 in the report).
                let want = expected(&value(t), &base, higher, 5.0);
                check_cell(
                    &format!("{workload} {name} {key} {label}"),
                    cell(row, label),
                    &want,
                    *label == LABELS[0],
                );
            }
        }
    }
}

#[test]
fn pp1_cfs_eevdf_pds() {
    check_workload("pp1");
}

#[test]
fn pp2_cfs_eevdf_pds() {
    check_workload("pp2");
}

#[test]
fn mi_cfs_eevdf_pds() {
    check_workload("mi");
}

#[test]
fn nice_cfs_eevdf_pds() {
    check_workload("nice");
}

#[test]
fn workload_tasks_match_across_cfs_and_eevdf() {
    // CFS and EEVDF ran the same programs: their workload tasks are matched by name; the
    // PDS capture used other program names, so those rows have `-` for it.
    let repeats: Vec<_> = KERNELS
        .iter()
        .map(|k| vec![load(&format!("{k}/nice/trace-v6.dat.xz"))])
        .collect();
    let specs: Vec<RunSpec> = KERNELS
        .iter()
        .map(|k| RunSpec::parse(&format!("{k}=x")).unwrap())
        .collect();
    let fold = Options {
        matching: analysis::compare::matching::Matching {
            by: analysis::compare::matching::MatchBy::Fold,
            aliases: vec![],
        },
        ..Options::default()
    };
    let c = compare(&assemble(&specs, repeats, &[]), &fold).unwrap();
    let nice = c.tasks.tasks.iter().find(|t| t.name == "nice-n").unwrap();
    assert_eq!(nice.present_in, ["cfs-6.1-vm", "eevdf-6.12-vm"]);
    let runtime = task_row(&c, "nice-n", "runtime");
    assert_eq!(cell(runtime, "pds-6.1-vm").n, 0);
    assert_eq!(cell(runtime, "pds-6.1-vm").mean, None);
    assert_eq!(cell(runtime, "pds-6.1-vm").normalized, None);
}
