//! The predicted trace: deterministic bytes, read back by the analysis.
use super::build::*;
use replay::sim::model::ModelName;
use replay::sim::{simulate, SimOptions};

fn workload() -> replay::demand::Demand {
    let mut w = Vec::new();
    for _ in 0..30 {
        w.push(sleep(7 * MS));
        w.push(burst(2 * MS));
    }
    demand(
        2,
        300 * MS,
        vec![
            task(0, "a", 0, &[0, 1], vec![burst(10_000 * MS)]),
            task(1, "b", 5, &[0, 1], vec![burst(10_000 * MS)]),
            task(2, "c", 0, &[0, 1], vec![burst(10_000 * MS)]),
            task(3, "sleeper", -3, &[0, 1], w),
        ],
    )
}

#[test]
fn same_input_and_seed_give_the_same_bytes() {
    let d = workload();
    for model in ModelName::ALL {
        let bytes = |seed| {
            let opts = SimOptions {
                seed,
                ..SimOptions::default()
            };
            let p = simulate(&d, model, opts).unwrap();
            let mut out = Vec::new();
            replay::predicted::write_perfetto(&d, &p, &mut out).unwrap();
            out
        };
        let first = bytes(7);
        assert_eq!(first, bytes(7), "{model}");
        assert!(!first.is_empty());
    }
}

#[test]
fn predicted_trace_reads_back_with_the_simulated_runtimes() {
    let d = workload();
    let dir = std::env::temp_dir().join(format!("schedtrace-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for model in ModelName::ALL {
        let p = simulate(&d, model, at_zero()).unwrap();
        let path = dir.join(format!("{model}.pftrace"));
        replay::predicted::write_file(&d, &p, &path).unwrap();
        let report =
            analysis::pipeline::analyze(&path, &analysis::pipeline::Options::default()).unwrap();
        let release = report.source.kernel_release.clone().unwrap();
        assert!(analysis::is_predicted(&release), "{release}");
        // `compare` and the TUI label an unnamed predicted run with a `?`.
        let loaded = analysis::compare::load::load(&path, &Default::default()).unwrap();
        let spec = analysis::compare::RunSpec::parse(path.to_str().unwrap()).unwrap();
        let runs = analysis::compare::assemble(&[spec], vec![vec![loaded]], &[]);
        assert_eq!(
            runs[0].label,
            format!("{}? {release}", analysis::scheduler_name(&release))
        );
        assert_eq!(report.source.cpus, Some(2));
        assert_eq!(report.window.start_ns, 0);
        assert_eq!(report.window.end_ns, 300 * MS);
        let ran = p.schedule.runtimes(d.tasks.len());
        for t in &d.tasks {
            let row = report.tasks.iter().find(|r| r.pid == t.pid).unwrap();
            assert_eq!(row.runtime_ns, ran[t.id], "{model} {}", t.comm);
            assert_eq!(row.comm, t.comm);
        }
        // Both CPUs busy all the time: 600 ms of CPU over the 4 tasks.
        assert_eq!(ran.iter().sum::<u64>(), 600 * MS);
    }
    std::fs::remove_dir_all(&dir).ok();
}
