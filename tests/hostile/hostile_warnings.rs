//! Warnings for inputs that read fine but answer less than asked (issue #11 item 13): a topology
//! of another machine, and PDS/BMQ priorities in a text trace that records no kernel release.

use crate::hostile_support::run;
use serde_json::Value;
use std::time::Duration;

fn trace(rel: &str) -> String {
    fixtures::trace(rel).to_str().unwrap().to_string()
}

/// stderr of `analyze ARGS`, which must succeed.
fn warnings(args: &[&str]) -> String {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    let r = run(&all, None, Duration::from_secs(30));
    r.expect_code(0);
    r.stderr
}

/// The Juno topology (6 CPUs) given to a capture of a 4-CPU VM: the warning names both counts
/// and the file; the VM's own shape (4 CPUs) gives none.
#[test]
fn a_topology_of_another_machine_is_named() {
    let juno = fixtures::file("juno-r0.topology.json");
    let juno = juno.to_str().unwrap();
    let mi = trace("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let stderr = warnings(&[&mi, "--topology", juno]);
    let want = format!(
        "schedtrace: warning: the topology (file {juno}) describes 6 CPUs, the trace has 4: it is \
         of another machine? Placement classes of CPUs it does not describe are unknown\n"
    );
    assert!(stderr.contains(&want), "{stderr}\nwant {want}");
    let dir = crate::hostile_support::scratch("topo4");
    let four = dir.join("four.json");
    std::fs::write(&four, r#"{"llcs": ["0-3"], "packages": ["0-3"]}"#).unwrap();
    let stderr = warnings(&[&mi, "--topology", four.to_str().unwrap()]);
    assert!(!stderr.contains("describes"), "{stderr}");
}

/// `trace-cmd report` text of a PDS kernel (prio 172 for every normal task): without
/// `--kernel-release` no task competes and the warning says how to fix it; with it, they compete
/// and the warning is gone.
#[test]
fn pds_priorities_without_a_kernel_release_are_named() {
    let text = trace("pds-6.1-vm/mi/report.txt.xz");
    let stderr = warnings(&[&text]);
    let want =
        "schedtrace: warning: no task competes in the fairness metrics: their priorities are \
                not mainline nice levels (prio 100..139). A PDS or BMQ kernel prints others: give \
                its release, e.g. --kernel-release 6.1.0-pds\n";
    assert!(stderr.contains(want), "{stderr}");
    let r = run(
        &[
            "analyze",
            &text,
            "--kernel-release",
            "6.1.0-pds",
            "--json",
            "-",
        ],
        None,
        Duration::from_secs(30),
    );
    r.expect_code(0);
    assert!(!r.stderr.contains("no task competes"), "{}", r.stderr);
    let report: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(
        report["system"]["fairness"]["tasks"].as_u64().unwrap() > 0,
        "{}",
        report["system"]["fairness"]
    );
}
