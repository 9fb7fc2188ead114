//! Repeats and noise: the CV of a label with repeats, the flag rule (threshold and twice
//! the larger CV), one repeat without CV, tasks present in only some runs, and a
//! comparison from JSON reports equal to the one from the traces.

use crate::compare_support::*;
use analysis::compare::{compare, Options, Repeat, Run};
use serde_json::{json, Value};

#[test]
fn pds_mi_and_its_repeat_give_the_cv_of_the_two_reports() {
    let mi = load("pds-6.1-vm/mi/trace-v6.dat.xz");
    let again = load("pds-6.1-vm/mi-repeat/trace-v6.dat.xz");
    let base = load("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let (r1, r2, rb) = (mi.report.clone(), again.report.clone(), base.report.clone());
    let runs = vec![run("cfs", vec![base]), run("pds", vec![mi, again])];
    let fold = Options {
        matching: analysis::compare::matching::Matching {
            by: analysis::compare::matching::MatchBy::Fold,
            aliases: vec![],
        },
        ..Options::default()
    };
    let c = compare(&runs, &fold).unwrap();
    assert_eq!(c.runs[1].repeats.len(), 2);

    // The three massive_intr tasks (mintr0..2) fold into one row, summed per repeat.
    let runtime = |r: &Value| -> f64 {
        r["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| {
                let comm = t["comm"].as_str().unwrap();
                comm.starts_with("mintr") && comm[5..].chars().all(|c| c.is_ascii_digit())
            })
            .map(|t| t["runtime_ns"].as_f64().unwrap())
            .sum()
    };
    let (a, b) = (runtime(&r1), runtime(&r2));
    // 745.9 + 747.0 + 745.6 ms in the first run, 757.1 + 755.4 + 736.2 ms in the repeat.
    assert!((2_200e6..2_300e6).contains(&a) && (2_200e6..2_300e6).contains(&b));
    let mean = (a + b) / 2.0;
    let cv = (a - b).abs() / 2f64.sqrt() / mean * 100.0;
    let c_mintr = cell(task_row(&c, "mintr", "runtime"), "pds");
    assert_eq!(c_mintr.values, vec![Some(a), Some(b)]);
    assert_close("mintr runtime mean", c_mintr.mean, Some(mean));
    assert_close("mintr runtime cv", c_mintr.cv_pct, Some(cv));
    // Not in the CFS run (its program was called mi-work): no baseline, no change.
    assert_eq!(cell(task_row(&c, "mintr", "runtime"), "cfs").n, 0);
    assert_eq!(c_mintr.normalized, None);

    // Every system metric: mean and CV of the two repeats, normalized to the CFS run.
    for row in &c.system {
        let got = cell(row, "pds");
        let values: Vec<f64> = got.values.iter().flatten().copied().collect();
        let reread: Vec<Option<f64>> = [&r1, &r2]
            .iter()
            .map(|r| system_value(r, &row.key))
            .collect();
        assert_eq!(got.values, reread, "{}", row.key);
        let base: Vec<f64> = system_value(&rb, &row.key).into_iter().collect();
        // Percentile rows compare the pooled samples' percentile (one CFS repeat: its own).
        let shown = (got.pooled, cell(row, "cfs").pooled);
        let want = expected_shown(&values, &base, &row.better, 5.0, shown);
        check_cell(&format!("pds {}", row.key), got, &want, false);
    }
    for key in [
        "context_switches_per_sec",
        "wakeup_latency_p99",
        "utilization",
    ] {
        let got = cell(system_row(&c, key), "pds");
        assert_eq!(got.n, 2, "{key}");
        assert!(got.cv_pct.is_some(), "{key}");
    }
}

/// The system metrics this test knows, read straight from a report.
fn system_value(r: &Value, key: &str) -> Option<f64> {
    let p = |s: &str| r.pointer(s).and_then(Value::as_f64);
    match key {
        "context_switches_per_sec" => p("/system/context_switches_per_sec"),
        "wakeup_preemptions_per_sec" => p("/system/wakeup_preemption/per_sec"),
        "voluntary_involuntary_ratio" => {
            let inv = p("/system/switches/involuntary")?;
            (inv != 0.0).then(|| p("/system/switches/voluntary").map(|v| v / inv))?
        }
        "wakeup_latency_p50" => p("/system/wakeup_latency/p50_ns"),
        "wakeup_latency_p99" => p("/system/wakeup_latency/p99_ns"),
        "wakeup_latency_max" => p("/system/wakeup_latency/max_ns"),
        "preemption_wait_p99" => p("/system/preemption_wait/p99_ns"),
        "migrations_per_sec" => p("/system/migrations_per_sec"),
        "cross_llc_share" => p("/system/affinity/cross_llc_share"),
        "utilization" => p("/system/utilization"),
        "idle_while_runnable_share" => p("/system/work_conservation/idle_while_runnable_share"),
        "jain_index" => p("/system/fairness/jain"),
        other => panic!("this test does not know system metric {other}"),
    }
}

/// A minimal report as `analyze --json` writes it, with the given system numbers and tasks.
fn report(switches_per_sec: f64, jain: f64, p99_ns: f64, tasks: Vec<(&str, u64)>) -> Repeat {
    let tasks: Vec<Value> = tasks
        .into_iter()
        .enumerate()
        .map(|(i, (comm, runtime))| {
            json!({"pid": 100 + i, "comm": comm, "runtime_ns": runtime,
                   "switches": {"voluntary": 10, "involuntary": 5}, "wakeups": 10, "migrations": 0,
                   "wakeup_latency": {"count": 10, "sum_ns": 10_000, "max_ns": 2_000},
                   "preemption_wait": {"count": 5, "sum_ns": 5_000, "max_ns": 1_500},
                   "sched_delay": {"count": 15, "sum_ns": 15_000, "max_ns": 2_000}})
        })
        .collect();
    Repeat {
        path: "hand-built".into(),
        report: json!({
            "schema_version": 1,
            "source": {"path": "x", "format": "trace.dat", "kernel_release": "6.12.0", "scheduler": "EEVDF"},
            "window": {"start_ns": 0, "end_ns": 1_000_000_000u64},
            "quality": {"events": {"sched_switch": 1000}, "lost_events": []},
            "tasks": tasks,
            "cpus": [],
            "system": {"context_switches_per_sec": switches_per_sec, "fairness": {"jain": jain},
                       "wakeup_latency": {"p99_ns": p99_ns}},
        }),
        from_json_report: true,
        samples: None,
    }
}

#[test]
fn twenty_percent_beyond_a_one_percent_cv_is_flagged_three_percent_is_not() {
    // Three repeats each: 99, 100, 101 has sample stddev 1, CV exactly 1 %.
    let base = run(
        "before",
        vec![
            report(
                99.0,
                0.99,
                9_900.0,
                vec![("worker1", 100), ("worker2", 100), ("only_before", 50)],
            ),
            report(
                100.0,
                1.00,
                10_000.0,
                vec![("worker1", 100), ("worker2", 100)],
            ),
            report(
                101.0,
                1.01,
                10_100.0,
                vec![("worker1", 100), ("worker2", 100)],
            ),
        ],
    );
    // Context switches +20 % (neutral: no flag), Jain's index +20 % (higher is better: an
    // improvement; not a real index above 1, but the arithmetic is the same), wakeup p99 +20 % with CV 1 % (lower is better: a regression).
    let after = run(
        "after",
        vec![
            report(119.0, 1.19, 11_880.0, vec![("worker7", 150)]),
            report(120.0, 1.20, 12_000.0, vec![("worker7", 150)]),
            report(121.0, 1.21, 12_120.0, vec![("worker7", 150)]),
        ],
    );
    let single = run("single", vec![report(100.0, 1.0, 10_000.0, vec![])]);
    let fold = Options {
        matching: analysis::compare::matching::Matching {
            by: analysis::compare::matching::MatchBy::Fold,
            aliases: vec![],
        },
        ..Options::default()
    };
    let c = compare(&[base, after, single], &fold).unwrap();

    let sw = cell(system_row(&c, "context_switches_per_sec"), "after");
    assert_close(
        "switches cv",
        cell(system_row(&c, "context_switches_per_sec"), "before").cv_pct,
        Some(1.0),
    );
    assert_close("switches mean", sw.mean, Some(120.0));
    assert_close("switches normalized", sw.normalized, Some(1.2));
    // Neutral: the size of the change, no sign, no flag.
    assert_close("switches change", sw.change_pct, Some(20.0));
    assert_eq!(
        (sw.flag.as_deref(), sw.flag_basis.as_str()),
        (None, "neutral")
    );

    let jain = cell(system_row(&c, "jain_index"), "after");
    assert_close("jain change", jain.change_pct, Some(20.0));
    assert_eq!(jain.flag.as_deref(), Some("^"));

    let p99 = cell(system_row(&c, "wakeup_latency_p99"), "after");
    assert_close("p99 change", p99.change_pct, Some(-20.0));
    assert_close("p99 cv", p99.cv_pct, Some(1.0));
    assert_eq!(p99.flag.as_deref(), Some("*"));
    assert_eq!(p99.flag_basis, "threshold, 2 x CV, p < alpha");
    assert!(p99.p_value.unwrap() < 0.05, "{:?}", p99.p_value);

    // One repeat: no CV; with no noise estimate the threshold alone decides.
    let one = cell(system_row(&c, "context_switches_per_sec"), "single");
    assert_eq!((one.n, one.stddev, one.cv_pct), (1, None, None));
    assert_eq!(one.flag, None);

    // A metric no report has: `-` everywhere.
    let util = cell(system_row(&c, "utilization"), "after");
    assert_eq!(
        (util.n, util.mean, util.normalized, util.flag.as_deref()),
        (0, None, None, None)
    );

    // worker1 + worker2 fold into `worker` (200 per repeat); worker7 too (150): 25 %,
    // unsigned and not flagged (runtime is neutral).
    let worker = cell(task_row(&c, "worker", "runtime"), "after");
    assert_close("worker runtime", worker.mean, Some(150.0));
    assert_close("worker change", worker.change_pct, Some(25.0));
    assert_eq!(worker.flag, None);
    let before = cell(task_row(&c, "worker", "runtime"), "before");
    assert_eq!(before.values, vec![Some(200.0); 3]);

    // A task in one repeat of one run only.
    let only = c
        .tasks
        .tasks
        .iter()
        .find(|t| t.name == "only_before")
        .unwrap();
    assert_eq!(only.present_in, ["before"]);
    let row = task_row(&c, "only_before", "runtime");
    assert_eq!(cell(row, "before").values, vec![Some(50.0), None, None]);
    assert_eq!(cell(row, "before").n, 1);
    assert_eq!(cell(row, "after").mean, None);
    assert_eq!(cell(row, "after").change_pct, None);
    // Means of latency from sum and count, merged over the folded tasks: 10 000 ns / 10.
    assert_close(
        "wakeup mean",
        cell(task_row(&c, "worker", "wakeup-mean"), "before").mean,
        Some(1_000.0),
    );

    // The text output shows the flags and dashes.
    let text = render::compare::text::render(&c, &Default::default());
    assert!(text.contains("-20.0% *"), "{text}");
    assert!(text.contains("+20.0% ^"), "{text}");
}

#[test]
fn the_baseline_can_be_any_label() {
    let a = run("a", vec![report(100.0, 0.5, 1_000.0, vec![])]);
    let b = run("b", vec![report(50.0, 0.5, 1_000.0, vec![])]);
    let opts = Options {
        base: Some("b".into()),
        ..Options::default()
    };
    let c = compare(&[a.clone(), b.clone()], &opts).unwrap();
    assert_eq!(c.base, "b");
    let sw = cell(system_row(&c, "context_switches_per_sec"), "a");
    assert_close("normalized", sw.normalized, Some(2.0));
    // Context switches are neutral: the size of the change.
    assert_close("change", sw.change_pct, Some(100.0));
    let jain = cell(system_row(&c, "jain_index"), "a");
    assert_close("normalized", jain.normalized, Some(1.0));
    let bad = Options {
        base: Some("c".into()),
        ..Options::default()
    };
    assert!(compare(&[a, b], &bad).unwrap_err().contains("--base"));
}

#[test]
fn a_json_report_compares_like_its_trace() {
    let traces = [
        "pds-6.1-vm/pp1/trace-v6.dat.xz",
        "eevdf-6.12-vm/mi/trace-v6.dat.xz",
    ];
    let direct: Vec<Run> = traces.iter().map(|t| run(t, vec![load(t)])).collect();
    // Write each report as `analyze --json` does (pretty JSON of the report) and read it back.
    let dir = std::env::temp_dir().join(format!("schedtrace-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let via_json: Vec<Run> = traces
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut analyzer = analysis::Analyzer::new(analysis::Config::default());
            let ingested = ingest::read_path(&shared(t), &mut analyzer).unwrap();
            let report = analyzer
                .finish(&ingested, &shared(t).display().to_string())
                .select(&analysis::Selection::default());
            let file = dir.join(format!("{i}.json"));
            std::fs::write(&file, serde_json::to_string_pretty(&report).unwrap()).unwrap();
            let repeat = analysis::compare::load::load(&file, &Default::default()).unwrap();
            assert!(repeat.from_json_report);
            run(t, vec![repeat])
        })
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    let mut a = compare(&direct, &Options::default()).unwrap();
    let mut b = compare(&via_json, &Options::default()).unwrap();
    // From the trace a percentile row also has the pooled value (the same number with one
    // repeat); the JSON report has no samples to pool.
    for row in a
        .system
        .iter_mut()
        .chain(a.tasks.tasks.iter_mut().flat_map(|t| t.metrics.iter_mut()))
    {
        for cell in &mut row.cells {
            cell.pooled = None;
        }
    }
    b.significance.percentiles_exact = a.significance.percentiles_exact;
    for (ra, rb) in a.runs.iter().zip(&mut b.runs) {
        for (x, y) in ra.repeats.iter().zip(&mut rb.repeats) {
            y.path = x.path.clone();
            y.from_json_report = false;
        }
    }
    // The explanation's longest waits name the repeat they came from.
    let paths_a: Vec<Option<String>> = a
        .explain
        .iter()
        .flat_map(|e| e.subjects.iter().flat_map(|s| s.runs.iter()))
        .map(|r| r.longest.as_ref().map(|l| l.path.clone()))
        .collect();
    let runs_b = b
        .explain
        .iter_mut()
        .flat_map(|e| e.subjects.iter_mut().flat_map(|s| s.runs.iter_mut()));
    for (r, path) in runs_b.zip(paths_a) {
        if let (Some(l), Some(p)) = (r.longest.as_mut(), path) {
            l.path = p;
        }
    }
    assert_eq!(a, b);
    assert!(!a.tasks.tasks.is_empty());
}
