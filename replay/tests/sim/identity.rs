//! Identity replays of the `nice` fixture (a nice-0 and a nice-5 spinner sharing one CPU
//! for 3 s): each kernel's trace run through the model of its own scheduler, the
//! prediction written as a Perfetto trace and analysed like any trace, and the nice-0
//! spinner's share of the pair's CPU time compared with the traced one.
//!
//! Measured (seed 1): CFS 74.86 % traced / 74.98 % predicted, EEVDF 74.89 / 74.57,
//! PDS 82.22 / 83.31, BMQ 50.01 / 50.01 (BMQ's nice-5 spinner waited 3 s, then ran
//! alone: the spinners' last bursts end at their traced exits). The bound is the issue's
//! aim for identity replays, ±2 points; the largest error measured is 1.09 (PDS).
//! `cargo test -p schedtrace-replay --test sim identity -- --nocapture` prints them.

use replay::sim::model::ModelName;
use replay::sim::{simulate, SimOptions};

/// The nice-0 spinner's share of the two spinners' runtime, in percent.
fn share(report: &analysis::Report, n0: i32, n5: i32) -> f64 {
    let ran = |pid| {
        report
            .tasks
            .iter()
            .find(|r| r.pid == pid)
            .unwrap_or_else(|| panic!("pid {pid} not in the report"))
            .runtime_ns as f64
    };
    100.0 * ran(n0) / (ran(n0) + ran(n5))
}

#[test]
fn nice_shares_of_identity_replays_within_two_points() {
    let dir = std::env::temp_dir().join(format!("schedtrace-identity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let runs = [
        ("cfs-6.1-vm", ModelName::Cfs, 74.86, 74.98),
        ("eevdf-6.12-vm", ModelName::Eevdf, 74.89, 74.57),
        ("pds-6.1-vm", ModelName::Pds, 82.22, 83.31),
        ("bmq-6.1-vm", ModelName::Bmq, 50.01, 50.01),
    ];
    for (kernel, model, traced, predicted) in runs {
        let path = fixtures::trace(&format!("{kernel}/nice/trace-v6.dat.xz"));
        let extracted = replay::extract(&path, &replay::Options::default()).unwrap();
        let d = &extracted.demand;
        let pid = |prefix: &str, nice: i32| {
            d.tasks
                .iter()
                .find(|t| t.comm.starts_with(prefix) && t.nice == Some(nice))
                .unwrap_or_else(|| panic!("{kernel}: no {prefix} at nice {nice}"))
                .pid
        };
        let (n0, n5) = (pid("nice", 0), pid("nice", 5));
        let p = simulate(d, model, SimOptions::default()).unwrap();
        let out = dir.join(format!("{kernel}.pftrace"));
        replay::predicted::write_file(d, &p, &out).unwrap();
        let report = analysis::pipeline::analyze(&out, &Default::default()).unwrap();
        let (real, pred) = (share(&extracted.report, n0, n5), share(&report, n0, n5));
        eprintln!("{kernel} -> {model}: traced {real:.2} %, predicted {pred:.2} %");
        // The numbers the module's comment quotes, to the hundredth.
        assert!((real - traced).abs() < 0.006, "{kernel}: traced {real}");
        assert!(
            (pred - predicted).abs() < 0.006,
            "{kernel}: predicted {pred}"
        );
        assert!((pred - real).abs() <= 2.0, "{kernel}: {pred} vs {real}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
