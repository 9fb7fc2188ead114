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

/// The nice-0 spinner's share (percent) in the capture of `kernel`, and predicted by `model`
/// from that capture.
fn traced_and_predicted(kernel: &str, model: ModelName, dir: &std::path::Path) -> (f64, f64) {
    let path = fixtures::trace(&format!("{kernel}/nice/trace-v6.dat.xz"));
    let extracted = replay::extract(&path, &replay::Options::default()).unwrap();
    let d = &extracted.demand;
    let pid = |nice: i32| {
        d.tasks
            .iter()
            .find(|t| t.comm.starts_with("nice") && t.nice == Some(nice))
            .unwrap_or_else(|| panic!("{kernel}: no nice spinner at nice {nice}"))
            .pid
    };
    let (n0, n5) = (pid(0), pid(5));
    let p = simulate(d, model, SimOptions::default()).unwrap();
    let out = dir.join(format!("{kernel}-{model}.pftrace"));
    replay::predicted::write_file(d, &p, &out).unwrap();
    let report = analysis::pipeline::analyze(&out, &Default::default()).unwrap();
    (share(&extracted.report, n0, n5), share(&report, n0, n5))
}

#[test]
fn nice_shares_predicted_across_kernels_within_three_points() {
    // Every ordered pair of the mainline and PDS captures (A → B: B's model on A's
    // capture, against B's own capture). Measured (seed 1), nice 0's share predicted /
    // real: CFS → EEVDF 74.71 / 74.89, CFS → PDS 82.92 / 82.22, EEVDF → CFS 74.61 / 74.86,
    // EEVDF → PDS 82.63 / 82.22, PDS → CFS 75.55 / 74.86, PDS → EEVDF 75.34 / 74.89. The
    // bound is the aim for `nice`, ±3 points. Pairs with BMQ miss and are not
    // bounded here: BMQ's nice-5 spinner waited 3 s before its first run, which a
    // wall-bounded last burst keeps (docs/replay.md).
    let dir = std::env::temp_dir().join(format!("schedtrace-cross-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kernels = [
        ("cfs-6.1-vm", ModelName::Cfs),
        ("eevdf-6.12-vm", ModelName::Eevdf),
        ("pds-6.1-vm", ModelName::Pds),
    ];
    let real: Vec<f64> = kernels
        .iter()
        .map(|&(k, m)| traced_and_predicted(k, m, &dir).0)
        .collect();
    for (a, &(from, _)) in kernels.iter().enumerate() {
        for (b, &(_, model)) in kernels.iter().enumerate() {
            if a == b {
                continue;
            }
            let (_, predicted) = traced_and_predicted(from, model, &dir);
            eprintln!(
                "{from} -> {model}: predicted {predicted:.2} %, real {:.2} %",
                real[b]
            );
            assert!(
                (predicted - real[b]).abs() <= 3.0,
                "{from} -> {model}: {predicted} vs {}",
                real[b]
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
