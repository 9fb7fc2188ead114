//! The admission of concurrent loads: the bound holds (observed by the jobs themselves,
//! counting how many are in flight), jobs do run together when it allows, and the loads
//! of real traces give the same comparison concurrently as one after the other.

use super::*;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Jobs that count themselves in flight (and their costs) while they run.
#[derive(Default)]
struct Watch {
    now: AtomicUsize,
    peak: AtomicUsize,
    bytes: AtomicU64,
    peak_bytes: AtomicU64,
    /// The bytes in flight as each job started.
    sums: std::sync::Mutex<Vec<u64>>,
}

impl Watch {
    /// One job of `cost` that stays in flight until `done` says so.
    fn job(&self, cost: u64, done: impl Fn(&Watch) -> bool) {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(n, Ordering::SeqCst);
        let b = self.bytes.fetch_add(cost, Ordering::SeqCst) + cost;
        self.peak_bytes.fetch_max(b, Ordering::SeqCst);
        self.sums.lock().unwrap().push(b);
        let start = Instant::now();
        while !done(self) && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(2));
        }
        self.bytes.fetch_sub(cost, Ordering::SeqCst);
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A job that waits (up to 10 s) for a second one to be in flight with it.
fn until_two(w: &Watch) -> bool {
    w.peak.load(Ordering::SeqCst) >= 2
}

#[test]
fn a_budget_smaller_than_two_inputs_runs_them_one_at_a_time() {
    let watch = Watch::default();
    let costs = [6, 6, 6, 6];
    let budget = Budget { jobs: 2, bytes: 10 };
    let started = Instant::now();
    let out = run_within(&costs, &budget, |i| {
        // Each job would wait the full 10 s for a partner if one were let in; 30 ms alone.
        watch.job(costs[i], |w| {
            until_two(w) || started.elapsed() > Duration::from_millis(30 * (i as u64 + 1))
        });
        i * 10
    });
    assert_eq!(out, [0, 10, 20, 30], "results in job order");
    assert_eq!(watch.peak.load(Ordering::SeqCst), 1);
}

#[test]
fn inputs_that_fit_together_run_together_on_two_workers() {
    let watch = Watch::default();
    let costs = [6, 6, 6, 6];
    let budget = Budget { jobs: 2, bytes: 12 };
    run_within(&costs, &budget, |i| watch.job(costs[i], until_two));
    assert_eq!(watch.peak.load(Ordering::SeqCst), 2);
    assert_eq!(watch.peak_bytes.load(Ordering::SeqCst), 12);
}

#[test]
fn no_more_at_once_than_jobs_and_never_over_the_bytes() {
    let watch = Watch::default();
    // 5 + 3 fit in 9, 5 + 5 do not; the 20 is larger than the whole budget and runs alone.
    let costs = [5, 3, 5, 20, 1, 1, 1];
    let budget = Budget { jobs: 3, bytes: 9 };
    let out = run_within(&costs, &budget, |i| {
        let started = Instant::now();
        watch.job(costs[i], |_| started.elapsed() > Duration::from_millis(20));
        i
    });
    assert_eq!(out, (0..costs.len()).collect::<Vec<_>>());
    assert!(watch.peak.load(Ordering::SeqCst) <= 3);
    // Only the 20, alone, ever exceeds 9.
    let sums = watch.sums.lock().unwrap().clone();
    assert_eq!(sums.len(), costs.len());
    assert!(sums.iter().all(|&b| b <= 9 || b == 20), "{sums:?}");
    assert!(sums.contains(&20));
}

#[test]
fn one_job_at_a_time_runs_on_the_callers_thread() {
    let caller = std::thread::current().id();
    let budget = Budget {
        jobs: 1,
        bytes: u64::MAX,
    };
    let threads = run_within(&[1, 1], &budget, |_| std::thread::current().id());
    assert_eq!(threads, [caller, caller]);
}

/// The four nice VM runs (CFS, EEVDF, PDS, BMQ), compared from loads two at a time and
/// from loads one after the other: the same comparison, byte for byte.
#[test]
fn the_four_nice_runs_compare_the_same_loaded_concurrently() {
    let kernels = ["cfs-6.1-vm", "eevdf-6.12-vm", "pds-6.1-vm", "bmq-6.1-vm"];
    let specs: Vec<crate::compare::RunSpec> = kernels
        .iter()
        .map(|k| crate::compare::RunSpec {
            label: None,
            paths: vec![fixtures::trace(&format!("{k}/nice/trace-v6.dat.xz"))],
        })
        .collect();
    let inputs: Vec<(PathBuf, pipeline::Options)> = specs
        .iter()
        .map(|s| (s.paths[0].clone(), pipeline::Options::default()))
        .collect();
    let compared = |budget: Budget| {
        let repeats = load_all_within(&inputs, &budget)
            .into_iter()
            .map(|r| vec![r.expect("fixture loads")])
            .collect();
        let runs = crate::compare::assemble(&specs, repeats, &[]);
        let c = crate::compare::compare(&runs, &crate::compare::Options::default()).unwrap();
        serde_json::to_string(&c).unwrap()
    };
    let one_by_one = compared(Budget {
        jobs: 1,
        bytes: u64::MAX,
    });
    let together = compared(Budget {
        jobs: 2,
        bytes: u64::MAX,
    });
    assert!(one_by_one.contains("\"label\":\"BMQ"), "{one_by_one}");
    assert_eq!(one_by_one, together);
}

#[test]
fn estimates_follow_what_the_reader_holds() {
    let plain = fixtures::trace("eevdf-6.18-host/pipe_pinned/trace.dat");
    let size = std::fs::metadata(&plain).unwrap().len();
    assert_eq!(estimated_bytes(&plain), FIXED_BYTES + size / 4);
    // A compressed trace.dat is held inflated.
    let xz = fixtures::trace("cfs-6.1-vm/nice/trace-v6.dat.xz");
    let size = std::fs::metadata(&xz).unwrap().len();
    assert_eq!(estimated_bytes(&xz), FIXED_BYTES + size * 20);
    // Compressed text streams.
    let text = fixtures::trace("eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz");
    let size = std::fs::metadata(&text).unwrap().len();
    assert_eq!(estimated_bytes(&text), FIXED_BYTES + size * 4);
    assert_eq!(estimated_bytes(Path::new("-")), u64::MAX);
}
