//! The drain (what `export` writes its tables from) against the finished timeline store
//! and records, on every VM capture and on a `--time` window and `-C` CPUs of one: the same intervals
//! per task in the same order, the same records in the same order, and the same report —
//! the series included, whose interval sums the drain takes chunk by chunk.

use analysis::drain::{Drain, TaskInfo, Who};
use analysis::pipeline::{self, Options};
use analysis::records::{EventRecords, PreemptionRecord, WaitRecord};
use analysis::timeline_store::IntervalView;
use analysis::{Config, Window};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Per pid, every interval in the order drained; the records.
#[derive(Default)]
struct Caught {
    intervals: BTreeMap<i32, Vec<IntervalView>>,
    records: EventRecords,
    /// Calls with more than one interval: the drain does hand out chunks.
    chunks: usize,
}

struct Catch(Arc<Mutex<Caught>>);

impl Drain for Catch {
    fn intervals(&mut self, task: &TaskInfo, intervals: &[IntervalView], _: Window) {
        let mut c = self.0.lock().unwrap();
        c.chunks += 1;
        c.intervals
            .entry(task.pid)
            .or_default()
            .extend_from_slice(intervals);
    }
    fn waits(&mut self, waits: &[WaitRecord], _: &Who) {
        self.0
            .lock()
            .unwrap()
            .records
            .waits
            .extend_from_slice(waits);
    }
    fn preemptions(&mut self, preemptions: &[PreemptionRecord], _: &Who) {
        let mut c = self.0.lock().unwrap();
        c.records.preemptions.extend_from_slice(preemptions);
    }
    /// Small chunks, so that intervals, waits and runqueue edges cross many drains.
    fn every(&self) -> u32 {
        997
    }
}

fn captures() -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for kernel in std::fs::read_dir(fixtures::trace("")).unwrap().flatten() {
        if !kernel.file_name().to_string_lossy().ends_with("-vm") {
            continue;
        }
        for workload in std::fs::read_dir(kernel.path()).unwrap().flatten() {
            let trace = workload.path().join("trace-v6.dat.xz");
            if trace.exists() {
                out.push(trace);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 14, "{out:?}");
    out
}

/// Checks the drain of `path` against the store; whether some task's intervals came in
/// more than one chunk.
fn same_as_the_store(path: &std::path::Path, config: Config) -> bool {
    let name = path.display();
    let options = Options {
        config: Config {
            timeline: Some(Default::default()),
            series: Some(10_000_000),
            records: Some(1 << 30),
            ..config
        },
        ..Default::default()
    };
    let (mut stored, timeline) = pipeline::analyze_with_timeline(path, &options).unwrap();
    let timeline = timeline.unwrap().unwrap();
    let records = *stored.records.take().unwrap().unwrap();
    let caught = Arc::new(Mutex::new(Caught::default()));
    let mut drained =
        pipeline::analyze_draining(path, &options, Box::new(Catch(caught.clone()))).unwrap();
    let caught = std::mem::take(&mut *caught.lock().unwrap());

    let mut want: BTreeMap<i32, Vec<IntervalView>> = BTreeMap::new();
    for t in timeline.tasks() {
        want.entry(t.pid).or_default().extend(t.intervals());
    }
    assert_eq!(caught.intervals.len(), want.len(), "{name}: tasks");
    for (pid, ivs) in &want {
        assert_eq!(caught.intervals.get(pid), Some(ivs), "{name}: pid {pid}");
    }
    assert_eq!(caught.records, records, "{name}: records");
    assert!(drained.records.take().unwrap().unwrap().waits.is_empty());
    assert!(stored.series.is_some());
    assert_eq!(
        serde_json::to_value(&drained).unwrap(),
        serde_json::to_value(&stored).unwrap(),
        "{name}: the report (series included)"
    );
    caught.chunks > want.len()
}

#[test]
fn the_drain_gives_the_store_records_and_report_of_every_vm_capture() {
    let mut chunked = 0;
    for path in captures() {
        chunked += usize::from(same_as_the_store(&path, Config::default()));
    }
    // Most captures hold many times `every` events: their tasks come in many chunks.
    assert!(chunked >= 10, "{chunked}");
}

#[test]
fn the_drain_keeps_the_time_window_as_the_store() {
    let path = fixtures::trace("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let config = Config {
        time_window: Some((500_000_000, 1_500_000_000)),
        time_relative: true,
        cpus: Some(vec![0, 1]),
        ..Default::default()
    };
    assert!(same_as_the_store(&path, config));
}
