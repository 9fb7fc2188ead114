//! The export's dataset on disk: refusals (non-empty DIR, a label appended twice, Parquet
//! without the feature), `--force`, CSV = NDJSON, and a killed export leaving no file a
//! reader would take for complete.

use crate::export_support::*;
use std::path::{Path, PathBuf};

fn first_two() -> [(String, String); 2] {
    let c = vm_captures();
    [c[0].clone(), c[1].clone()]
}

fn fails_with(args: &[&str], needle: &str) {
    let out = schedtrace(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: {err}");
}

#[test]
fn a_non_empty_dir_an_appended_label_and_force() {
    let [(_, a), (_, b)] = first_two();
    let dir = Scratch::new("append");
    let d = dir.path();
    export(&[&format!("one={a}"), "-o", d, "--format", "csv"]);
    // Again without --append or --force: refused, nothing changed.
    fails_with(
        &["export", &format!("two={b}"), "-o", d, "--format", "csv"],
        "not empty: give --append",
    );
    // The same label appended: refused.
    fails_with(
        &[
            "export",
            &format!("one={b}"),
            "-o",
            d,
            "--format",
            "csv",
            "--append",
        ],
        "already has run `one`",
    );
    // Another format appended: refused.
    fails_with(
        &[
            "export",
            &format!("two={b}"),
            "-o",
            d,
            "--format",
            "ndjson",
            "--append",
        ],
        "the dataset is csv",
    );
    export(&[&format!("two={b}"), "-o", d, "--format", "csv", "--append"]);
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.0.join("_schedtrace_export.json")).unwrap(),
    )
    .unwrap();
    let runs: Vec<&str> = manifest["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run"].as_str().unwrap())
        .collect();
    assert_eq!(runs, ["one", "two"]);
    assert!(
        part(&dir.0, "waits", "one", 0, "csv").exists()
            && part(&dir.0, "waits", "two", 0, "csv").exists()
    );
    // No staging directory is left behind.
    let left: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!left.iter().any(|n| n.starts_with("_staging")), "{left:?}");

    // --force replaces the dataset: only the new run is left.
    export(&[
        &format!("three={a}"),
        "-o",
        d,
        "--format",
        "ndjson",
        "--force",
    ]);
    assert!(!dir.0.join("waits/run=one").exists() && !dir.0.join("waits/run=two").exists());
    assert!(part(&dir.0, "waits", "three", 0, "ndjson").exists());

    // A directory schedtrace did not write is never replaced.
    let other = Scratch::new("foreign");
    std::fs::create_dir_all(&other.0).unwrap();
    std::fs::write(other.0.join("notes.txt"), "mine").unwrap();
    fails_with(
        &[
            "export",
            &a,
            "-o",
            other.path(),
            "--format",
            "csv",
            "--force",
        ],
        "not a schedtrace export",
    );
    assert_eq!(
        std::fs::read_to_string(other.0.join("notes.txt")).unwrap(),
        "mine"
    );
}

#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_names_the_feature() {
    let [(_, a), _] = first_two();
    let dir = Scratch::new("nofeature");
    fails_with(
        &["export", &a, "-o", dir.path(), "--format", "parquet"],
        "`parquet` feature",
    );
    assert!(!dir.0.exists(), "nothing written");
}

/// Every table file of a dataset, relative to it (the staging area excluded).
fn files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_name().to_string_lossy().starts_with("_staging") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn csv_and_ndjson_hold_the_same_rows() {
    let [(_, a), _] = first_two();
    let (csv_dir, json_dir) = (Scratch::new("csv"), Scratch::new("ndjson"));
    export(&[&format!("x={a}"), "-o", csv_dir.path(), "--format", "csv"]);
    export(&[
        &format!("x={a}"),
        "-o",
        json_dir.path(),
        "--format",
        "ndjson",
    ]);
    for table in [
        "runs",
        "tasks",
        "cpus",
        "slices",
        "waits",
        "intervals",
        "series",
        "preemptions",
    ] {
        let rows = ndjson(&part(&json_dir.0, table, "x", 0, "ndjson"));
        let mut reader = csv::Reader::from_path(part(&csv_dir.0, table, "x", 0, "csv")).unwrap();
        let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(records.len(), rows.len(), "{table}");
        assert!(
            !rows.is_empty() || table == "preemptions",
            "{table} is empty"
        );
        for (record, row) in records.iter().zip(&rows) {
            let mut keys: Vec<&String> = row.keys().collect();
            let mut names: Vec<&String> = header.iter().collect();
            keys.sort();
            names.sort();
            assert_eq!(keys, names, "{table}: columns");
            for (field, name) in record.iter().zip(&header) {
                let as_text = match &row[name] {
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::String(s) => s.clone(),
                    v => v.to_string(),
                };
                assert_eq!(field, as_text, "{table}.{name}");
            }
        }
    }
}

/// Killed at several moments, an export leaves only files that are byte for byte those of
/// a complete export: nothing half written where a reader looks.
#[test]
fn a_killed_export_leaves_no_partial_table_file() {
    let captures = vm_captures();
    let args: Vec<String> = captures.iter().map(|(l, p)| format!("{l}={p}")).collect();
    let full = Scratch::new("full");
    let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
    all.extend(["-o", full.path(), "--format", "csv"]);
    export(&all);
    let complete = files(&full.0);
    let started = std::time::Instant::now();
    let mut seen_partial_datasets = 0;
    for delay_ms in [50, 200, 400, 700, 1000, 1500, 2500] {
        let dir = Scratch::new(&format!("killed-{delay_ms}"));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_schedtrace"))
            .arg("export")
            .args(&args)
            .args(["-o", dir.path(), "--format", "csv"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let present = files(&dir.0);
        if !status.success() && present.len() < complete.len() {
            seen_partial_datasets += 1;
        }
        for f in &present {
            assert!(
                complete.contains(f),
                "{delay_ms} ms: unexpected {}",
                f.display()
            );
            let (a, b) = (
                std::fs::read(dir.0.join(f)).unwrap(),
                std::fs::read(full.0.join(f)).unwrap(),
            );
            assert!(
                a == b,
                "{delay_ms} ms: {} differs from the complete export's",
                f.display()
            );
        }
    }
    assert!(
        seen_partial_datasets > 0,
        "never killed mid-way ({:?})",
        started.elapsed()
    );
}
