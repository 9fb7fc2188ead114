//! `schedtrace tui --print`: frames of the real binary checked against the JSON that
//! `analyze --json` and `compare --json` of the same files write (numbers never typed in).

use crate::support::{schedtrace, shared};
use serde_json::Value;

fn stdout(args: &[&str]) -> String {
    let out = schedtrace(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&stdout(args)).expect("one JSON document")
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// What each Tasks column shows, from one JSON task: (header, text).
fn expected_cells(t: &Value) -> Vec<(&'static str, String)> {
    // Schema 2 writes null for statistics over no samples: shown as `-`.
    let ms = |v: &Value| {
        if v.is_null() {
            "-".into()
        } else {
            format!("{:.3}", f(v) / 1e6)
        }
    };
    let us = |v: &Value| {
        if v.is_null() {
            "-".into()
        } else {
            format!("{:.3}", f(v) / 1e3)
        }
    };
    let count = |v: &Value| format!("{:.0}", f(v));
    let fair = &t["fairness"];
    let opt = |v: &Value, show: &dyn Fn(&Value) -> String| {
        if v.is_null() {
            "-".to_string()
        } else {
            show(v)
        }
    };
    vec![
        ("runtime ms", ms(&t["runtime_ns"])),
        ("vol", count(&t["switches"]["voluntary"])),
        ("invol", count(&t["switches"]["involuntary"])),
        ("wakeups", count(&t["wakeups"])),
        ("lat avg us", us(&t["wakeup_latency"]["mean_ns"])),
        ("lat p99 us", us(&t["wakeup_latency"]["p99_ns"])),
        ("lat max us", us(&t["wakeup_latency"]["max_ns"])),
        ("dly avg us", us(&t["sched_delay"]["mean_ns"])),
        ("dly max us", us(&t["sched_delay"]["max_ns"])),
        ("migr", count(&t["migrations"])),
        ("caused", count(&t["preemption"]["caused"])),
        ("suffer", count(&t["preemption"]["suffered"])),
        ("ratio", opt(&fair["ratio"], &|v| format!("{:.3}", f(v)))),
        ("max lag ms", opt(&fair["max_abs_lag_ns"], &ms)),
        (
            "warm%",
            opt(&t["affinity"]["warm_restart_share"], &|v| {
                format!("{:.1}", f(v) * 100.0)
            }),
        ),
        ("local", count(&t["affinity"]["wakeups_local"])),
        ("remote", count(&t["affinity"]["wakeups_remote"])),
    ]
}

#[test]
fn every_number_of_the_tasks_table_at_220_columns_equals_analyze_json() {
    for trace in [
        "cfs-6.1-vm/mi/trace-v6.dat.xz",
        "bmq-6.1-vm/nice/trace-v6.dat.xz",
    ] {
        let file = shared(trace);
        let report = json(&["analyze", &file, "--json", "-"]);
        let frame = stdout(&["tui", "--print", "--size", "220x60", "--keys", "2", &file]);
        let lines: Vec<&str> = frame.lines().collect();
        let head = lines
            .iter()
            .position(|l| l.contains("task:pid"))
            .expect("table header");
        // Column titles in screen order: where each expected title is in the header line.
        let header = lines[head];
        let mut titles: Vec<(usize, &str)> = expected_cells(&report["tasks"][0])
            .into_iter()
            .map(|(title, _)| {
                (
                    header
                        .find(title)
                        .unwrap_or_else(|| panic!("no column {title}: {header}")),
                    title,
                )
            })
            .collect();
        titles.sort_unstable();
        let titles: Vec<&str> = std::iter::once("task:pid")
            .chain(titles.into_iter().map(|(_, t)| t))
            .collect();
        let tasks = report["tasks"].as_array().unwrap();
        let mut rows = 0;
        for line in &lines[head + 1..] {
            let cells: Vec<&str> = line.split_whitespace().collect();
            let Some(label) = cells.first() else { continue };
            let Some(t) = tasks
                .iter()
                .find(|t| format!("{}:{}", t["comm"].as_str().unwrap(), t["pid"]) == *label)
            else {
                continue;
            };
            rows += 1;
            assert_eq!(cells.len(), titles.len(), "{line}");
            for (title, want) in expected_cells(t) {
                let col = titles
                    .iter()
                    .position(|h| *h == title)
                    .unwrap_or_else(|| panic!("no column {title}: {titles:?}"));
                assert_eq!(cells[col], want, "{label} {title}");
            }
        }
        assert_eq!(rows, tasks.len(), "{trace}: every task is a row\n{frame}");
    }
}

#[test]
fn overview_shows_the_kernel_window_and_jain_of_analyze_json() {
    let file = shared("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let report = json(&["analyze", &file, "--json", "-"]);
    let frame = stdout(&["tui", "--print", &file]);
    let kernel = report["source"]["kernel_release"].as_str().unwrap();
    assert!(frame.lines().next().unwrap().contains(kernel), "{frame}");
    let secs = |ns: u64| format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000);
    let window = format!(
        "{} s .. {} s",
        secs(report["window"]["start_ns"].as_u64().unwrap()),
        secs(report["window"]["end_ns"].as_u64().unwrap())
    );
    assert!(frame.contains(&window), "{window}\n{frame}");
    let jain = format!("{:.4}", f(&report["system"]["fairness"]["jain"]));
    let line = frame
        .lines()
        .find(|l| l.starts_with("Jain's index"))
        .unwrap();
    assert!(line.contains(&jain), "{line}: {jain}");
}

#[test]
fn compare_view_shows_the_changes_of_compare_json() {
    let runs = [
        format!("cfs={}", shared("cfs-6.1-vm/mi/trace-v6.dat.xz")),
        format!("eevdf={}", shared("eevdf-6.12-vm/mi/trace-v6.dat.xz")),
        format!(
            "pds={},{}",
            shared("pds-6.1-vm/mi/trace-v6.dat.xz"),
            shared("pds-6.1-vm/mi-repeat/trace-v6.dat.xz")
        ),
    ];
    let runs: Vec<&str> = runs.iter().map(String::as_str).collect();
    let mut args = vec!["compare"];
    args.extend(&runs);
    args.extend(["--json", "-"]);
    let cmp = json(&args);
    let change = |key: &str, label: &str| {
        let row = cmp["system"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == key)
            .unwrap();
        let cell = row["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["label"] == label)
            .unwrap();
        format!(
            "{:+.1} {}",
            f(&cell["change_pct"]),
            cell["flag"].as_str().unwrap_or("")
        )
    };
    let mut args = vec!["tui", "--print", "--size", "160x60"];
    args.extend(&runs);
    let frame = stdout(&args);
    for (key, label) in [
        ("wakeup_latency_p50", "eevdf"),
        ("wakeup_preemptions_per_sec", "pds"),
    ] {
        let want = change(key, label);
        let line = frame
            .lines()
            .find(|l| l.split_whitespace().any(|w| w == label) && l.contains(&want))
            .unwrap_or_else(|| panic!("{want} of {label} not shown:\n{frame}"));
        assert!(line.trim_end().ends_with(want.trim_end()), "{line}");
    }
    // `b` moves the baseline onto eevdf: its norm is then 1.000 everywhere.
    let mut args = vec!["tui", "--print", "--size", "160x60", "--keys", "b"];
    args.extend(&runs);
    let frame = stdout(&args);
    assert!(frame.contains("baseline eevdf"), "{frame}");
}

#[test]
fn bad_input_and_bad_options_exit_2_with_the_cause() {
    let out = schedtrace(&["tui", "--print", "no/such/trace.dat"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no/such/trace.dat") && err.contains("cannot open"),
        "{err}"
    );
    let file = shared("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let out = schedtrace(&["tui", "--print", "--filter", "mi(", &file]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a valid pattern"));
    let out = schedtrace(&["tui", "--print", "--sort", "nonsense", &file]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown column"));
    let out = schedtrace(&["tui", "--print", "--size", "0x5", &file]);
    assert!(!out.status.success());
}

#[test]
fn restore_options_open_a_filtered_sorted_view() {
    let file = shared("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let frame = stdout(&[
        "tui", "--print", "--view", "tasks", "--sort", "lat.p99", "--filter", "mi-work", &file,
    ]);
    assert!(frame.contains("3 of 18 rows"), "{frame}");
}
