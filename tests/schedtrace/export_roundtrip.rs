//! `schedtrace export` against `schedtrace analyze --json` of every VM capture: the task
//! and CPU rows field by field, and the per-event tables recomputing the report's numbers
//! (slices sum to runtime, wakeup waits give the latency statistics, intervals tile each
//! task's life, preemptions count the report's).

use crate::export_support::*;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The JSON row's scalar leaves as the export names them (`a.b.c` → `a_b_c`; arrays as
/// their JSON text), computed here independently of the exporter.
fn flat(v: &Value, prefix: &str, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                if prefix.is_empty() && (k == "group" || k == "members") {
                    continue;
                }
                let name = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}_{k}")
                };
                flat(child, &name, out);
            }
        }
        Value::Array(_) => {
            out.insert(prefix.to_string(), Value::String(v.to_string()));
        }
        leaf => {
            out.insert(prefix.to_string(), leaf.clone());
        }
    }
}

/// Exported rows equal the JSON rows field by field: every leaf of the JSON is the column of
/// that name, and every other column is null (an absent optional object: fairness).
fn same_rows(what: &str, json: &[Value], exported: &[Map<String, Value>], key: &[&str]) {
    assert_eq!(json.len(), exported.len(), "{what}: row count");
    let sort_key =
        |get: &dyn Fn(&str) -> Value| key.iter().map(|k| get(k).to_string()).collect::<Vec<_>>();
    let mut json: Vec<&Value> = json.iter().collect();
    json.sort_by_key(|r| sort_key(&|k| r[k].clone()));
    let mut exported: Vec<&Map<String, Value>> = exported.iter().collect();
    exported.sort_by_key(|r| sort_key(&|k| r[k].clone()));
    for (j, e) in json.iter().zip(&exported) {
        let mut leaves = BTreeMap::new();
        flat(j, "", &mut leaves);
        for (name, value) in &leaves {
            assert_eq!(e.get(name), Some(value), "{what}: column {name} of {j}");
        }
        for (name, value) in e.iter() {
            if !leaves.contains_key(name) {
                assert_eq!(
                    value,
                    &Value::Null,
                    "{what}: column {name} not in the JSON row"
                );
            }
        }
    }
}

fn int(row: &Map<String, Value>, k: &str) -> u64 {
    row[k]
        .as_u64()
        .unwrap_or_else(|| panic!("{k}: {:?}", row[k]))
}

#[test]
fn every_vm_capture_round_trips_against_analyze_json() {
    let captures = vm_captures();
    let dir = Scratch::new("roundtrip");
    let mut args: Vec<String> = captures.iter().map(|(l, p)| format!("{l}={p}")).collect();
    args.extend([
        "-o".into(),
        dir.path().into(),
        "--format".into(),
        "ndjson".into(),
    ]);
    export(&args.iter().map(String::as_str).collect::<Vec<_>>());

    for (label, path) in &captures {
        let report = analyze_json(path);
        let table = |t: &str| ndjson(&part(&dir.0, t, label, 0, "ndjson"));

        // tasks and cpus: the report's rows.
        let tasks = table("tasks");
        same_rows(
            label,
            report["tasks"].as_array().unwrap(),
            &tasks,
            &["pid", "runtime_ns", "sleep_ns"],
        );
        same_rows(
            label,
            report["cpus"].as_array().unwrap(),
            &table("cpus"),
            &["cpu"],
        );

        // Per pid (a reused pid's lives together, on both sides).
        let mut want: BTreeMap<u64, [u64; 6]> = BTreeMap::new();
        for t in report["tasks"].as_array().unwrap() {
            let w = want.entry(t["pid"].as_u64().unwrap()).or_default();
            w[0] += t["runtime_ns"].as_u64().unwrap();
            w[1] += t["slices"]["count"].as_u64().unwrap();
            w[2] += t["wakeup_latency"]["count"].as_u64().unwrap();
            w[3] += t["wakeup_latency"]["sum_ns"].as_u64().unwrap();
            w[4] = w[4].max(t["wakeup_latency"]["max_ns"].as_u64().unwrap_or(0));
            w[5] += t["preemption_wait"]["sum_ns"].as_u64().unwrap();
        }
        let mut got: BTreeMap<u64, [u64; 6]> = BTreeMap::new();
        for s in table("slices") {
            let g = got.entry(int(&s, "pid")).or_default();
            g[0] += int(&s, "dur_ns");
            let complete = ["block", "wakeup_preempt", "preempt", "exit"];
            g[1] += u64::from(complete.contains(&s["end_reason"].as_str().unwrap()));
        }
        for w in table("waits") {
            let g = got.entry(int(&w, "pid")).or_default();
            let dur = int(&w, "dur_ns");
            assert_eq!(dur, int(&w, "end_ns") - int(&w, "start_ns"));
            match w["kind"].as_str().unwrap() {
                "wakeup" => {
                    g[2] += 1;
                    g[3] += dur;
                    g[4] = g[4].max(dur);
                }
                "preemption" => g[5] += dur,
                "wakeup_untimed" => {}
                k => panic!("kind {k}"),
            }
        }
        // Tasks the report leaves out (nothing happened in the window) have nothing here.
        got.retain(|pid, g| want.contains_key(pid) || g.iter().all(|&n| n == 0));
        for (pid, w) in &want {
            let g = got.get(pid).copied().unwrap_or_default();
            assert_eq!(
                g, *w,
                "{label} pid {pid}: [runtime, slices, lat count, lat sum, lat max, preempt sum]"
            );
        }

        // Intervals tile each task's life: each starts where the one before ended (a gap only
        // after an exit), the last ends at the trace end (or at the exit).
        let runs = table("runs");
        let end = int(&runs[0], "window_end_ns");
        let mut lives: BTreeMap<u64, Vec<(u64, u64, String)>> = BTreeMap::new();
        for iv in table("intervals") {
            let s = int(&iv, "start_ns");
            lives.entry(int(&iv, "pid")).or_default().push((
                s,
                s + int(&iv, "dur_ns"),
                iv["end_reason"].as_str().unwrap().into(),
            ));
        }
        for (pid, mut ivs) in lives {
            ivs.sort();
            for pair in ivs.windows(2) {
                let ((_, e0, why), (s1, _, _)) = (&pair[0], &pair[1]);
                assert!(
                    *s1 == *e0 || (why == "exit" && s1 >= e0),
                    "{label} pid {pid}: {pair:?}"
                );
            }
            let (_, last_end, why) = ivs.last().unwrap();
            assert!(
                *last_end == end || why == "exit",
                "{label} pid {pid}: ends {last_end}, {why}"
            );
        }

        // preemptions: the report's count; runs: the report's source and window.
        let preemptions = report["system"]["wakeup_preemption"]["count"]
            .as_u64()
            .unwrap();
        assert_eq!(table("preemptions").len() as u64, preemptions, "{label}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0]["label"], Value::from(label.as_str()));
        assert_eq!(
            runs[0]["kernel_release"],
            report["source"]["kernel_release"]
        );
        assert_eq!(
            int(&runs[0], "window_start_ns"),
            report["window"]["start_ns"].as_u64().unwrap()
        );
        assert_eq!(
            runs[0]["wakeup_latency_p99_ns"],
            report["system"]["wakeup_latency"]["p99_ns"]
        );
        assert_eq!(int(&runs[0], "tasks"), tasks.len() as u64);
    }
}
