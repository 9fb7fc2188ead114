//! `compare` still reads version-1 reports (schema 1: zeros where schema 2 writes null).
//! tests/data/pipe_pinned.report-v1.json.xz was written by `analyze --json` before schema 2
//! from fixtures/pipe_pinned.eevdf-6.18.trace.dat; compared with the same trace analysed
//! now, every task's runtime and switch counts agree.

use serde_json::Value;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn a_version_1_report_compares_with_its_trace() {
    let v1 = format!("{ROOT}/tests/data/pipe_pinned.report-v1.json.xz");
    let trace = format!("{ROOT}/fixtures/pipe_pinned.eevdf-6.18.trace.dat");
    let out = Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(["compare", &format!("v1={v1}"), &format!("v2={trace}")])
        .args([
            "--sort",
            "runtime",
            "--task-metrics",
            "runtime,switches",
            "--json",
            "-",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cmp: Value = serde_json::from_slice(&out.stdout).unwrap();
    let same = |m: &Value| {
        let cells = m["cells"].as_array().unwrap();
        let (a, b) = (cells[0]["mean"].as_f64(), cells[1]["mean"].as_f64());
        (a, b)
    };
    let tasks = cmp["tasks"]["tasks"].as_array().expect("task rows");
    assert!(tasks.len() >= 5, "{cmp}");
    for row in tasks {
        for m in row["metrics"].as_array().unwrap() {
            let key = m["key"].as_str().unwrap();
            // A role of several pids read back from a report has only each pid's
            // percentiles: its own is their largest (an upper bound), not the exact one.
            if key.ends_with("-p50") || key.ends_with("-p90") || key.ends_with("-p99") {
                continue;
            }
            let (a, b) = same(m);
            assert!(
                a == b && (a.is_some() || key != "runtime"),
                "{key} of {}: {a:?} vs {b:?}",
                row["name"]
            );
        }
    }
    // System metrics: equal wherever both are defined (schema 2 makes some undefined that
    // version 1 wrote as 0; none here, every one is compared).
    let system = cmp["system"].as_array().unwrap();
    assert!(system.len() > 10);
    for m in system {
        let (a, b) = same(m);
        match (a, b) {
            (Some(a), Some(b)) => assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{}", m["key"]),
            _ => assert_eq!(a, b, "{}", m["key"]),
        }
    }
}
