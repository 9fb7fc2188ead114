//! `schedtrace replay --as MODEL -o FILE` end to end: the predicted trace is written, its
//! headline printed beside the input's, the same seed gives the same bytes, and `compare`
//! takes the prediction as a run.

use super::support::{schedtrace, shared};

#[test]
fn predict_eevdf_from_cfs_then_compare_with_the_real_eevdf_run() {
    let dir = std::env::temp_dir().join(format!("schedtrace-replay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("eevdf.predicted.pftrace");
    let out_s = out.display().to_string();
    let cfs = shared("cfs-6.1-vm/nice/trace-v6.dat.xz");
    let run = schedtrace(&["replay", &cfs, "--as", "eevdf", "-o", &out_s]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stdout.contains("input: CFS (6.1.0-57-amd64)"), "{stdout}");
    assert!(
        stdout.contains("predicted: EEVDF (6.12.0-predicted-eevdf)"),
        "{stdout}"
    );
    assert!(stdout.contains("nice-n5 273"), "{stdout}");
    assert!(
        stderr.contains("predicted by eevdf v4 (EEVDF of Linux 6.12)"),
        "{stderr}"
    );
    // 6.12's 0.7 ms base slice, scaled by 1 + ilog2(4) for the capture's 4 CPUs.
    assert!(stderr.contains("sched_base_slice_ns=2100000"), "{stderr}");
    let first = std::fs::read(&out).unwrap();

    // Its report's header says it is a prediction (as compare and the TUI do).
    let analyzed = schedtrace(&["analyze", &out_s]);
    let text = String::from_utf8_lossy(&analyzed.stdout);
    assert!(
        text.contains(
            "kernel 6.12.0-predicted-eevdf (EEVDF; predicted by schedtrace replay, not traced)"
        ),
        "{text}"
    );

    // Same trace, same seed: the same bytes.
    let again = schedtrace(&["replay", &cfs, "--as", "eevdf", "-o", &out_s]);
    assert!(again.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), first);

    let real = format!("real={}", shared("eevdf-6.12-vm/nice/trace-v6.dat.xz"));
    let predicted = format!("predicted={out_s}");
    let cmp = schedtrace(&["compare", &real, &predicted]);
    let text = String::from_utf8_lossy(&cmp.stdout);
    assert!(
        cmp.status.success(),
        "{}",
        String::from_utf8_lossy(&cmp.stderr)
    );
    assert!(text.contains("kernel 6.12.0-predicted-eevdf"), "{text}");
    assert!(text.contains("nice-n0"), "{text}");
    // Every layout of compare names the predicted run as predicted.
    for format in ["text", "lkml", "markdown"] {
        let cmp = schedtrace(&["compare", &real, &predicted, "--format", format]);
        let text = String::from_utf8_lossy(&cmp.stdout);
        assert!(
            text.contains("predicted: EEVDF predicted (EEVDF), kernel 6.12.0-predicted-eevdf"),
            "{format}: {text}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn as_needs_an_output_and_a_known_model() {
    let cfs = shared("cfs-6.1-vm/nice/trace-v6.dat.xz");
    let no_output = schedtrace(&["replay", &cfs, "--as", "eevdf"]);
    assert_eq!(no_output.status.code(), Some(2));
    let unknown = schedtrace(&["replay", &cfs, "--as", "ule", "-o", "/dev/null"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("one of cfs, eevdf, pds, bmq"));
}

#[test]
fn the_prediction_never_overwrites_its_input() {
    let dir = std::env::temp_dir().join(format!("schedtrace-replay-self-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("nice.dat.xz");
    std::fs::copy(shared("cfs-6.1-vm/nice/trace-v6.dat.xz"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let c = copy.display().to_string();
    let run = schedtrace(&["replay", &c, "--as", "cfs", "-o", &c]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("would overwrite the input"));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn affinity_rules_give_the_demands_cpus() {
    let cfs = shared("cfs-6.1-vm/nice/trace-v6.dat.xz");
    let run = schedtrace(&[
        "replay",
        &cfs,
        "--affinity",
        "^nice-n.$=0,3",
        "--affinity",
        "nice=2",
        "--demand-json",
        "-",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let demand: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let tasks = demand["tasks"].as_array().unwrap();
    let of = |pid: i64| {
        let t = tasks.iter().find(|t| t["pid"] == pid).unwrap();
        (
            t["cpus"].clone(),
            t["cpus_from"].as_str().unwrap().to_string(),
        )
    };
    // The first matching rule wins; schedwl (CPU 2 in the trace) matches none.
    assert_eq!(of(272), (serde_json::json!([0, 3]), "given".to_string()));
    assert_eq!(of(273), (serde_json::json!([0, 3]), "given".to_string()));
    assert_eq!(of(271), (serde_json::json!([2]), "observed".to_string()));

    let bad = schedtrace(&[
        "replay",
        &cfs,
        "--affinity",
        "nice-n0=3-1",
        "--demand-json",
        "-",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("is not a CPU list like 1 or 0-3,6"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
}
