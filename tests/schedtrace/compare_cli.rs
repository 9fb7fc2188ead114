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

#[test]
fn automatic_labels_and_text_tables() {
    let cfs = shared("cfs-6.1-vm/nice/trace-v6.dat.xz");
    let eevdf = shared("eevdf-6.12-vm/nice/trace-v6.dat.xz");
    let out = schedtrace(&["compare", &cfs, &eevdf]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "CFS 6.1.0-57-amd64",
        "EEVDF 6.12.95+deb12-amd64",
        "context switches",
        "wakeup latency p99",
        "tasks: runtime (ms); top 10 by runtime",
        "nice-n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(text
        .lines()
        .all(|l| l.len() <= 100 || l.contains("/fixtures/traces/") || l.starts_with("baseline")));
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
    assert_eq!(c["runs"][1]["scheduler"], "BFS family");
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
        [
            "BFS family 6.1.192-prjc-pds",
            "BFS family 6.1.192-prjc-pds #2"
        ]
    );
    let c = json(&[&format!("{mi},{again}")]);
    assert_eq!(labels(&c), ["BFS family 6.1.192-prjc-pds"]);
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
    assert_eq!(from_trace, from_report);
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
