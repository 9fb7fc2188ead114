//! The report blocks issue #10 added, checked against the report's own totals on every VM
//! capture: every wakeup-preemption triple with its first and last time, the waker CPU ×
//! wakee CPU and migration matrices, the time of each task's largest lag, the start of each
//! longest wait, and the per-task log2 histograms.

use analysis::Report;
use serde_json::Value;

fn vm_captures() -> Vec<std::path::PathBuf> {
    let root = fixtures::trace("");
    let mut found: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|k| k.unwrap().path())
        .filter(|k| k.to_string_lossy().ends_with("-vm"))
        .flat_map(|k| {
            std::fs::read_dir(k)
                .unwrap()
                .map(|r| r.unwrap().path().join("trace-v6.dat.xz"))
        })
        .filter(|p| p.exists())
        .collect();
    found.sort();
    found
}

fn analyze(path: &std::path::Path) -> Report {
    analysis::pipeline::analyze(path, &Default::default()).unwrap()
}

#[test]
fn new_blocks_agree_with_the_report_totals() {
    let traces = vm_captures();
    assert!(traces.len() >= 12);
    for path in &traces {
        let r = analyze(path);
        let name = path.display();
        let (w, s) = (r.window, &r.system);
        // Triples: all of them, the top 10 their head; together at most every preemption
        // (a triple needs the waker's name).
        let p = &s.wakeup_preemption;
        assert_eq!(
            p.top_triples[..],
            p.triples[..p.triples.len().min(10)],
            "{name}"
        );
        let counted: u64 = p.triples.iter().map(|t| t.count).sum();
        assert!(
            counted <= p.count && (p.count == 0 || counted > 0),
            "{name}"
        );
        for t in &p.triples {
            assert!(w.start_ns <= t.first_ns && t.first_ns <= t.last_ns && t.last_ns <= w.end_ns);
        }
        // Matrices: the diagonal is the local wakeups, the rest remote; migrations are all
        // off the diagonal and sum to the system's.
        let a = &s.affinity;
        let diagonal: u64 = a
            .wakeup_cpu_pairs
            .iter()
            .filter(|c| c.from == c.to)
            .map(|c| c.count)
            .sum();
        let off: u64 = a
            .wakeup_cpu_pairs
            .iter()
            .filter(|c| c.from != c.to)
            .map(|c| c.count)
            .sum();
        assert_eq!(
            (diagonal, off),
            (a.wakeups_local, a.wakeups_remote),
            "{name}"
        );
        assert!(a.migration_cpu_pairs.iter().all(|c| c.from != c.to));
        assert_eq!(
            a.migration_cpu_pairs.iter().map(|c| c.count).sum::<u64>(),
            s.migrations,
            "{name}"
        );
        for t in &r.tasks {
            let h = &t.histograms;
            assert_eq!(
                h.wakeup_latency_log2.iter().sum::<u64>(),
                t.wakeup_latency.count
            );
            assert_eq!(
                h.preemption_wait_log2.iter().sum::<u64>(),
                t.preemption_wait.count
            );
            assert_eq!(h.slices_log2.iter().sum::<u64>(), t.slices.count);
            assert!(h.slices_log2.len() <= 64);
            // The longest slice lies in its bucket: [2^(b-1), 2^b).
            if let Some(max) = t.slices.max() {
                let b = h.slices_log2.len() - 1;
                assert!(
                    b == 0 && max == 0 || (1u64 << (b - 1)) <= max && (b == 64 || max < 1u64 << b)
                );
            }
            if let Some(f) = &t.fairness {
                match f.max_abs_lag_at_ns {
                    Some(at) => assert!(w.start_ns <= at && at <= w.end_ns, "{name}: lag at {at}"),
                    None => assert_eq!(f.max_abs_lag_ns, 0.0),
                }
            }
        }
        // JSON: the start of the longest wait is its end minus its length.
        let json: Value = serde_json::to_value(&r).unwrap();
        for t in json["tasks"].as_array().unwrap() {
            let st = &t["sched_delay"];
            if st["count"].as_u64() > Some(0) {
                let (max, at, start) = (
                    st["max_ns"].as_u64().unwrap(),
                    st["max_at_ns"].as_u64().unwrap(),
                    st["max_start_ns"].as_u64().unwrap(),
                );
                assert_eq!(start + max, at);
            } else {
                assert!(st["max_start_ns"].is_null());
            }
        }
    }
}
