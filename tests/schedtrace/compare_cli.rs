//! End-to-end tests of `schedtrace compare`: labels, repeats, baseline, JSON output, a JSON
//! report from `analyze --json` standing in for its trace, and errors.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn shared(rel: &str) -> String {
    fixtures::trace(rel).display().to_string()
}

fn schedtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(args)
        .output()
        .expect("run schedtrace")
}

fn json(args: &[&str]) -> Value {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "-"]);
    let out = schedtrace(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

fn labels(c: &Value) -> Vec<String> {
    c["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap().to_string())
        .collect()
}

/// The standard output of a run that must succeed.
fn succeeds(args: &[&str]) -> String {
    let out = schedtrace(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn automatic_labels_and_text_tables() {
    let cfs = shared("cfs-6.1-vm/nice/trace-v6.dat.xz");
    let eevdf = shared("eevdf-6.12-vm/nice/trace-v6.dat.xz");
    let text = succeeds(&["compare", &cfs, &eevdf]);
    for want in [
        "CFS 6.1.0-57-amd64",
        "EEVDF 6.12.95+deb12-amd64",
        "context switches",
        "wakeup latency p99",
        "task runtime (ms): neutral",
        "nice-n0",
        "CFS 6.1.0-57-amd64: nice-n5 (pid 273) waited",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
}

#[test]
fn lkml_of_the_four_nice_kernels_with_roles_workload_and_a_relative_window() {
    let files: Vec<String> = ["cfs-6.1-vm", "eevdf-6.12-vm", "pds-6.1-vm", "bmq-6.1-vm"]
        .iter()
        .zip(["cfs", "eevdf", "pds", "bmq"])
        .map(|(k, l)| format!("{l}={}", shared(&format!("{k}/nice/trace-v6.dat.xz"))))
        .collect();
    let mut args: Vec<&str> = vec!["compare"];
    args.extend(files.iter().map(String::as_str));
    args.extend([
        "--match",
        r"nice-?n?(\d)",
        "--workload",
        "nice",
        "--format",
        "lkml",
        "--width",
        "90",
    ]);
    let text = succeeds(&args);
    for want in [
        "Test          : task runtime share",
        "Interpretation: Neutral",
        "bmq: nice5 (pid 189) waited 3.003 s",
        "cfs[pct imp](CV)",
        "o Why: change of each role's wait, by what its CPU ran",
        "  bmq vs cfs: nice5 (role 5) waited +706.743 ms: +734.224 ms behind nice0 (role 0) on CPU",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 90), "{text}");
    // --no-explain drops the block, --explain adds it to the text layout.
    let mut two: Vec<&str> = vec!["compare", &files[0], &files[3], "--match", r"nice-?n?(\d)"];
    two.extend(["--format", "lkml", "--no-explain"]);
    assert!(!succeeds(&two).contains("o Why"));
    two.truncate(5);
    two.push("--explain");
    assert!(succeeds(&two).contains("\nWhy: change of each role's wait"));

    // The same with the first 0.5..2.5 s of each trace: windows of 2 s exactly.
    args.truncate(5);
    args.extend([
        "--match",
        r"nice-?n?(\d)",
        "--time",
        "+0.5,+2.5",
        "--json",
        "-",
    ]);
    let c: Value = serde_json::from_str(&succeeds(&args)).unwrap();
    for r in c["runs"].as_array().unwrap() {
        assert_eq!(
            r["repeats"][0]["window_ns"], 2_000_000_000u64,
            "{}",
            r["label"]
        );
    }
    assert_eq!(
        c["scope"]["analysis"][0],
        "--time +0.5,+2.5 (from each trace's start)"
    );
}

#[test]
fn repeats_labels_base_and_sort() {
    let mi = shared("pds-6.1-vm/mi/trace-v6.dat.xz");
    let again = shared("pds-6.1-vm/mi-repeat/trace-v6.dat.xz");
    let cfs = shared("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let c = json(&[
        &cfs,
        &format!("pds={mi},{again}"),
        "--label",
        "cfs",
        "--base",
        "pds",
        "--sort",
        "switches",
        "--top",
        "3",
    ]);
    assert_eq!(labels(&c), ["cfs", "pds"]);
    assert_eq!(c["base"], "pds");
    assert_eq!(c["runs"][1]["repeats"].as_array().unwrap().len(), 2);
    assert_eq!(c["runs"][1]["scheduler"], "PDS");
    assert_eq!(c["runs"][1]["family"], "BFS family");
    assert_eq!(c["tasks"]["sort"], "switches");
    let tasks = c["tasks"]["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3);
    // Ordered by the largest mean switch count in any run.
    let best = |t: &Value| -> f64 {
        let row = t["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["key"] == "switches")
            .unwrap();
        row["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["mean"].as_f64())
            .fold(f64::MIN, f64::max)
    };
    assert!(best(&tasks[0]) >= best(&tasks[1]) && best(&tasks[1]) >= best(&tasks[2]));

    // Plain files with the same automatic label stay apart; a comma makes repeats.
    let c = json(&[&mi, &again]);
    assert_eq!(
        labels(&c),
        ["PDS 6.1.192-prjc-pds", "PDS 6.1.192-prjc-pds #2"]
    );
    let c = json(&[&format!("{mi},{again}")]);
    assert_eq!(labels(&c), ["PDS 6.1.192-prjc-pds"]);
    assert_eq!(c["runs"][0]["repeats"].as_array().unwrap().len(), 2);
}

#[test]
fn a_json_report_from_analyze_gives_the_same_comparison() {
    let trace = shared("eevdf-6.12-vm/pp2/trace-v6.dat.xz");
    let other = shared("cfs-6.1-vm/pp2/trace-v6.dat.xz");
    let report: PathBuf = std::env::temp_dir().join(format!(
        "schedtrace-cli-compare-{}.json",
        std::process::id()
    ));
    let out = schedtrace(&["analyze", &trace, "--json", report.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let from_trace = json(&[&other, &trace]);
    let mut from_report = json(&[&other, report.to_str().unwrap()]);
    std::fs::remove_file(&report).unwrap();
    let repeat = &mut from_report["runs"][1]["repeats"][0];
    assert_eq!(repeat["from_json_report"], true);
    repeat["from_json_report"] = false.into();
    repeat["path"] = trace.clone().into();
    // The explanation's longest waits name the repeat they are from.
    for s in from_report["explain"]["subjects"].as_array_mut().unwrap() {
        let longest = &mut s["runs"][1]["longest"];
        if longest.is_object() {
            longest["path"] = trace.clone().into();
        }
    }
    // The trace's percentile rows also carry the pooled value of its samples (the same
    // number with one repeat); a JSON report has no samples to pool.
    // A task role of several pids (trace-cmd's two here) read back from JSON has only each
    // pid's percentiles: the role's is their largest, an upper bound of the exact one, and
    // the comparison says so.
    assert_eq!(from_trace["significance"]["percentiles_exact"], true);
    assert_eq!(from_report["significance"]["percentiles_exact"], false);
    let mut from_trace = from_trace;
    for (t, r) in task_percentiles(&mut from_trace)
        .into_iter()
        .zip(task_percentiles(&mut from_report))
    {
        for (a, b) in t.iter().zip(r.iter()) {
            assert!(b["value"].as_f64() >= a["value"].as_f64(), "{a} vs {b}");
        }
        t.clear();
        r.clear();
    }
    for c in [&mut from_trace, &mut from_report] {
        clear_pooled(c);
        c["significance"]["percentiles_exact"] = true.into();
    }
    assert_eq!(from_trace, from_report);
}

/// The cells of every task row that shows a percentile.
fn task_percentiles(c: &mut Value) -> Vec<&mut Vec<Value>> {
    let mut out = Vec::new();
    for task in c["tasks"]["tasks"].as_array_mut().unwrap() {
        for row in task["metrics"].as_array_mut().unwrap() {
            if row["key"]
                .as_str()
                .is_some_and(|k| k.ends_with("-p50") || k.ends_with("-p99"))
            {
                out.push(row["cells"].as_array_mut().unwrap());
            }
        }
    }
    out
}

/// Sets every cell's `pooled` to null.
fn clear_pooled(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if map.contains_key("pooled") {
                map["pooled"] = Value::Null;
            }
            map.values_mut().for_each(clear_pooled);
        }
        Value::Array(items) => items.iter_mut().for_each(clear_pooled),
        _ => {}
    }
}

#[test]
fn errors_exit_2_with_a_message() {
    let cfs = shared("cfs-6.1-vm/pp1/trace-v6.dat.xz");
    let out = schedtrace(&["compare", &cfs, "--base", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--base \"nope\""));

    let out = schedtrace(&["compare", "x=/nonexistent/trace.dat"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/trace.dat"));

    let out = schedtrace(&["compare", &cfs, "--label", "a", "--label", "b"]);
    assert_eq!(out.status.code(), Some(2));

    let bad = std::env::temp_dir().join(format!("schedtrace-cli-bad-{}.json", std::process::id()));
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    let out = schedtrace(&["compare", bad.to_str().unwrap()]);
    std::fs::remove_file(&bad).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("schema_version"));
}
