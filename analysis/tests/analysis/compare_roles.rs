//! The comparisons of issue #13 on the real VM captures: roles matched across kernels
//! that name the same workload's tasks differently, shares checked against the kernels'
//! own counters (`ground_truth.json`), the workload-scoped Jain's index recomputed here,
//! and p-values against independently computed ones (the LKML layout parsed back is a
//! test of `render`: render/tests/render/compare_layouts.rs).

use crate::compare_support::*;
use analysis::compare::matching::Matching;
use analysis::compare::model::Comparison;
use analysis::compare::significance::welch_p;
use analysis::compare::{compare, Options};
use serde_json::Value;

const NICE: [(&str, &str); 4] = [
    ("cfs", "cfs-6.1-vm"),
    ("eevdf", "eevdf-6.12-vm"),
    ("pds", "pds-6.1-vm"),
    ("bmq", "bmq-6.1-vm"),
];

fn matching(re: &str, aliases: &[(&str, &str)]) -> Matching {
    Matching {
        by: Matching::regex(re).unwrap(),
        aliases: aliases
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
    }
}

/// The kernel's own CPU share of each workload task (by comm), from its counters.
fn ground_truth_shares(kernel: &str) -> Vec<(String, f64)> {
    let text =
        std::fs::read_to_string(shared(&format!("{kernel}/nice/ground_truth.json"))).unwrap();
    let gt: Value = serde_json::from_str(&text).unwrap();
    let tasks = gt["tasks"].as_array().unwrap();
    // schedwl (CFS, EEVDF): delta.sum_exec_runtime_ns; the PDS/BMQ tool: phase_cpu_time_ns.
    let cpu = |t: &Value| {
        t.pointer("/delta/sum_exec_runtime_ns")
            .or_else(|| t.get("phase_cpu_time_ns"))
            .and_then(Value::as_f64)
            .unwrap()
    };
    let total: f64 = tasks.iter().map(cpu).sum();
    tasks
        .iter()
        .map(|t| (t["comm"].as_str().unwrap().to_string(), cpu(t) / total))
        .collect()
}

#[test]
fn nice_on_four_kernels_one_row_per_role_shares_as_the_kernels_counted() {
    let runs: Vec<_> = NICE
        .iter()
        .map(|(l, k)| run(l, vec![load(&format!("{k}/nice/trace-v6.dat.xz"))]))
        .collect();
    let opts = Options {
        matching: matching(r"nice-?n?(\d)", &[]),
        ..Options::default()
    };
    let c = compare(&runs, &opts).unwrap();
    let schedulers: Vec<&str> = c.runs.iter().map(|r| r.scheduler.as_str()).collect();
    assert_eq!(schedulers, ["CFS", "EEVDF", "PDS", "BMQ"]);
    assert_eq!(c.runs[3].family, "BFS family");
    for role in ["0", "5"] {
        let t = c.tasks.tasks.iter().find(|t| t.name == role).unwrap();
        assert_eq!(t.present_in, ["cfs", "eevdf", "pds", "bmq"], "role {role}");
        for m in &t.members {
            assert_eq!(
                m.comms.len(),
                1,
                "role {role} in {}: {:?}",
                m.label,
                m.comms
            );
        }
    }
    let weight0 = 1024.0 / (1024.0 + 335.0);
    for (label, kernel) in NICE {
        for (comm, share) in ground_truth_shares(kernel) {
            let role = if comm.ends_with('0') { "0" } else { "5" };
            let got = cell(task_row(&c, role, "runtime-share"), label)
                .value
                .unwrap();
            assert!(
                (got - share).abs() < 0.01,
                "{label} {comm}: share {got} vs kernel {share}"
            );
            let weight = cell(task_row(&c, role, "weight-share"), label)
                .value
                .unwrap();
            let want = if role == "0" { weight0 } else { 1.0 - weight0 };
            assert_close(
                &format!("{label} {role} weight share"),
                Some(weight),
                Some(want),
            );
        }
    }
    // BMQ gives nice5 nothing while nice0 runs: its wait of ~3.0 s is the run's worst.
    let bmq = &c.runs[3].repeats[0].worst_wait;
    let longest = bmq.longest.as_ref().unwrap();
    assert_eq!(
        (longest.comm.as_str(), longest.len_ns),
        ("nice5", 3_003_208_743)
    );
    assert!(bmq.starved.iter().any(|w| w.comm == "nice5"));
    assert_close(
        "bmq nice5 longest wait",
        cell(task_row(&c, "5", "sched-delay-max"), "bmq").value,
        Some(3_003_208_743.0),
    );
    // Nobody starves on CFS: its worst wait is far below the threshold.
    assert!(c.runs[0].repeats[0].worst_wait.starved.is_empty());
}

/// The mi workload on three kernels, tasks matched through the PDS aliases; the layout
/// tests of `render` compare the same runs with PDS repeated.
fn mi_comparison() -> Comparison {
    let runs = vec![
        run("cfs", vec![load("cfs-6.1-vm/mi/trace-v6.dat.xz")]),
        run("eevdf", vec![load("eevdf-6.12-vm/mi/trace-v6.dat.xz")]),
        run("pds", vec![load("pds-6.1-vm/mi/trace-v6.dat.xz")]),
    ];
    compare(&runs, &mi_options()).unwrap()
}

#[test]
fn mi_roles_through_aliases_and_the_workload_jain_index() {
    let c = mi_comparison();
    for role in ["mi-work0", "mi-work1", "mi-work2", "mi-spin"] {
        let t = c.tasks.tasks.iter().find(|t| t.name == role).unwrap();
        assert_eq!(t.present_in, ["cfs", "eevdf", "pds"], "{role}");
    }
    assert!(c.scope.system_rows_cover.contains("mi-|mintr|mspin"));
    // Jain's index of the workload tasks' fairness ratios, from each single-run report.
    let re = regex::Regex::new("mi-|mintr|mspin").unwrap();
    for (i, file) in ["cfs-6.1-vm", "eevdf-6.12-vm", "pds-6.1-vm"]
        .iter()
        .enumerate()
    {
        let report = load(&format!("{file}/mi/trace-v6.dat.xz")).report;
        let ratios: Vec<f64> = report["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| re.is_match(t["comm"].as_str().unwrap()))
            .filter_map(|t| t.pointer("/fairness/ratio").and_then(Value::as_f64))
            .collect();
        assert_eq!(ratios.len(), 4, "{file}");
        let sum: f64 = ratios.iter().sum();
        let jain = sum * sum / (4.0 * ratios.iter().map(|x| x * x).sum::<f64>());
        let got = system_row(&c, "jain_index").cells[i].value;
        assert_close(&format!("{file} workload jain"), got, Some(jain));
        // Over every task it is lower (kworkers and the tracer compete too).
        let all = report
            .pointer("/system/fairness/jain")
            .and_then(Value::as_f64)
            .unwrap();
        assert!(all < jain, "{file}: all tasks {all} vs workload {jain}");
    }
}

#[test]
fn welch_p_values_equal_scipys() {
    // scipy 1.x: scipy.stats.ttest_ind(a, b, equal_var=False).pvalue
    let cases: [(&[f64], &[f64], f64); 3] = [
        (
            &[11880.0, 12000.0, 12120.0],
            &[9900.0, 10000.0, 10100.0],
            3.161479506074532e-05,
        ),
        (&[1.0, 2.0, 3.5], &[2.0, 2.5, 4.0, 5.0], 0.28470833836933407),
        (
            &[120.0, 80.0, 160.0],
            &[100.0, 60.0, 140.0],
            0.5733922538253555,
        ),
    ];
    for (a, b, want) in cases {
        let got = welch_p(a, b).unwrap();
        assert!(
            (got - want).abs() <= 1e-9 * want.max(1e-3),
            "{a:?} {b:?}: {got} vs scipy {want}"
        );
    }
}
