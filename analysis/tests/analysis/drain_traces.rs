//! The drain (what `export` writes its tables from) against the finished timeline store
//! and records, on every VM capture and on a `--time` window and `-C` CPUs of one: the same intervals
//! per task in the same order, the same records in the same order, and the same report —
//! the series included, whose interval sums the drain takes chunk by chunk.

use analysis::drain::{Drain, NameId, TaskInfo};
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
    /// Every name given, in id order.
    names: Vec<TaskInfo>,
    /// Per pid, the last name its intervals and records were given.
    last_names: BTreeMap<i32, TaskInfo>,
}

impl Caught {
    /// The name of `id`, which must have been given already and name `pid`.
    fn name(&mut self, id: NameId, pid: i32) {
        let name = self
            .names
            .get(id as usize)
            .expect("named before use")
            .clone();
        assert_eq!(name.pid, pid, "id {id}");
        self.last_names.insert(pid, name);
    }
}

struct Catch(Arc<Mutex<Caught>>);

impl Drain for Catch {
    fn names(&mut self, names: &[TaskInfo]) {
        self.0.lock().unwrap().names.extend_from_slice(names);
    }
    fn intervals(&mut self, task: NameId, intervals: Vec<IntervalView>, _: Window) {
        let mut c = self.0.lock().unwrap();
        c.chunks += 1;
        let pid = c.names[task as usize].pid;
        c.name(task, pid);
        c.intervals.entry(pid).or_default().extend(intervals);
    }
    fn waits(&mut self, waits: Vec<WaitRecord>, tasks: Vec<Option<NameId>>) {
        let mut c = self.0.lock().unwrap();
        assert_eq!(waits.len(), tasks.len());
        for (w, id) in waits.iter().zip(&tasks) {
            c.name(id.expect("a wait's task is known"), w.pid);
        }
        c.records.waits.extend(waits);
    }
    fn preemptions(&mut self, preemptions: Vec<PreemptionRecord>, tasks: Vec<[Option<NameId>; 3]>) {
        let mut c = self.0.lock().unwrap();
        assert_eq!(preemptions.len(), tasks.len());
        for (p, [waker, wakee, victim]) in preemptions.iter().zip(&tasks) {
            if let (Some(id), Some(pid)) = (waker, p.waker_pid) {
                c.name(*id, pid);
            }
            c.name(wakee.expect("the wakee is known"), p.wakee_pid);
            c.name(victim.expect("the victim is known"), p.victim_pid);
        }
        c.records.preemptions.extend(preemptions);
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
    // A name is given again only when it changed: no pid is given the same name twice
    // in a row (pid reuse aside: that is a new task, which may well have the same name).
    let mut given: BTreeMap<i32, Vec<&TaskInfo>> = BTreeMap::new();
    for n in &caught.names {
        given.entry(n.pid).or_default().push(n);
    }
    let reused: usize = given
        .values()
        .map(|g| g.windows(2).filter(|w| w[0] == w[1]).count())
        .sum();
    assert!(
        reused * 100 <= caught.names.len(),
        "{name}: {reused} names given twice"
    );
    // The last name each task was drained with is the store's (its last of all).
    for t in timeline.tasks() {
        let last = &caught.last_names[&t.pid];
        assert_eq!(
            (&last.comm, last.tgid),
            (&t.comm, t.tgid),
            "{name}: pid {}",
            t.pid
        );
    }
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
