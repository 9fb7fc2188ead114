//! A perf.data decoded on a second thread (the default: framing, ordering and decoding there,
//! the analysis here) gives the same report, byte for byte, as the whole read on one thread
//! (`ReadOptions::one_thread`): every perf.data of the fixtures, file and pipe mode, plain and
//! `perf record -z`, and the public ones beside the clone. The batches handed between the
//! threads must neither reorder, drop nor repeat an event, nor change the ledger.

use analysis::pipeline::{self, Options};
use std::path::{Path, PathBuf};

/// The report as `analyze --json` writes it (with the series, which sees every event's time),
/// or the error the read stopped on.
fn report(path: &Path, one_thread: bool) -> Result<String, String> {
    let options = Options {
        config: analysis::Config {
            series: Some(10_000_000),
            ..Default::default()
        },
        read: ingest::ReadOptions {
            one_thread,
            ..Default::default()
        },
        ..Default::default()
    };
    pipeline::analyze(path, &options)
        .map(|r| serde_json::to_string(&r).unwrap())
        .map_err(|e| e.to_string())
}

fn same_on_one_thread_or_two(path: &Path) -> Result<String, String> {
    let two = report(path, false);
    let one = report(path, true);
    assert!(
        one == two,
        "{}: the report differs with the decoder on one thread",
        path.display()
    );
    two
}

/// Every file of `dir` whose name says perf.data (`perf.*`, `*.data*`).
fn perf_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("perf.") || name.contains(".data")
        })
        .collect();
    files.sort();
    files
}

#[test]
fn project_perf_data_same_report_on_one_thread_or_two() {
    let mut files = perf_files(&fixtures::file("perfdata"));
    let traces = fixtures::file("traces");
    for kernel in std::fs::read_dir(&traces).unwrap() {
        let kernel = kernel.unwrap().path();
        if !kernel.is_dir() {
            continue;
        }
        for workload in std::fs::read_dir(&kernel).unwrap() {
            let data = workload.unwrap().path().join("perf.sched.data.xz");
            if data.is_file() {
                files.push(data);
            }
        }
    }
    // 6 of fixtures/perfdata and 3 captures with ground truth, at the time of writing.
    assert!(files.len() >= 9, "perf.data fixtures found: {files:?}");
    let mut largest = 0;
    for file in &files {
        let json =
            same_on_one_thread_or_two(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        let events: u64 = report["quality"]["events"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        // A report of nothing would be the same on any number of threads.
        assert!(events > 100, "{}: only {events} events", file.display());
        largest = largest.max(events);
    }
    // Many batches of the relay (4096 events each) went between the threads.
    assert!(largest > 50_000, "largest fixture: {largest} events");
}

#[test]
fn public_perf_data_same_report_on_one_thread_or_two() {
    if fixtures::public_missing() {
        return;
    }
    let mut files = perf_files(&fixtures::trace("public/quipper"));
    files.extend(perf_files(&fixtures::trace("public/perfparser")));
    assert!(files.len() >= 5, "public perf.data found: {files:?}");
    for file in &files {
        // Some hold no scheduler events or a layout that is refused: the refusal must be the
        // same too.
        let _ = same_on_one_thread_or_two(file);
    }
}
