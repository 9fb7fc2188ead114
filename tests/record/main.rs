//! `schedtrace record` end to end on this machine's kernel: record real workloads with perf,
//! then check the analysis against the file's own `perf script` and the tasks' own /proc
//! counters (issue 28).
//!
//! A test binary of its own: it measures how long CPUs idled while the pinned tasks waited,
//! so it must not share the machine with the other test binaries' threads (cargo runs test
//! binaries one after another), and its tests take one lock to run one at a time.
//!
//! It needs root, a writable tracefs and perf; where they are missing it prints one
//! `skipped …` line and passes, except under CI=true, where `.ci/run` provides them.

mod affinity;
mod replay_recorded;
mod support;

use serde_json::Value;
use std::process::Command;
use std::time::Duration;
use support::{analyze, assert_counts_match, perf_script_counts, run, start, BIN};
#[test]
fn an_unpinned_ping_pong_is_recorded_with_every_event() {
    let Some((_one, dir)) = start("an_unpinned_ping_pong_is_recorded_with_every_event", "pipe")
    else {
        return;
    };
    let trace = dir.join("pipe.perf.data");
    let out = run(&[
        "record",
        "-q",
        "-o",
        trace.to_str().unwrap(),
        "--",
        "perf",
        "bench",
        "sched",
        "pipe",
        "-l",
        "20000",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = analyze(&trace, &[]);
    assert_counts_match(&trace, &report);
    let cpus = report["source"]["cpus"].as_u64().unwrap();
    let every = if cpus == 1 {
        "0".to_string()
    } else {
        format!("0-{}", cpus - 1)
    };
    // perf bench's two ends wake each other thousands of times (a read that finds the next
    // message already there does not sleep), each allowed every CPU.
    let ends: Vec<&Value> = report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["comm"] == "sched-pipe" && t["wakeups"].as_u64().unwrap_or(0) >= 1_000)
        .collect();
    assert_eq!(
        ends.len(),
        2,
        "{:?}",
        report["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| &t["comm"])
            .collect::<Vec<_>>()
    );
    for t in ends {
        assert_eq!(
            t["allowed_cpus"],
            Value::from(every.clone()),
            "{}",
            t["pid"]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigint_mid_run_leaves_a_file_analyze_reads() {
    let Some((_one, dir)) = start("sigint_mid_run_leaves_a_file_analyze_reads", "sigint") else {
        return;
    };
    let trace = dir.join("cut.perf.data");
    let child = Command::new(BIN)
        .args([
            "record",
            "-q",
            "-o",
            trace.to_str().unwrap(),
            "--",
            "sleep",
            "30",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    // The SIGINT passed on ends `sleep`, whose status (128 + 2) passes through.
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = analyze(&trace, &[]);
    assert!(
        report["quality"]["events"]["sched_switch"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(report["source"]["recording"].is_object());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_say_what_to_do() {
    let Some((_one, dir)) = start("errors_say_what_to_do", "errors") else {
        return;
    };
    // An output that cannot be written is named, exit 2, before anything is recorded.
    let out = run(&["record", "-q", "-o", "/proc/none/x.perf.data", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/proc/none/x.perf.data: cannot write"),
        "{err}"
    );
    // A command that cannot run.
    let trace = dir.join("x.perf.data");
    let out = run(&[
        "record",
        "-q",
        "-o",
        trace.to_str().unwrap(),
        "--",
        "/no/such/program",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/program: cannot run"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// No space left: recording stops while perf still has room to finish the file (exit 2, the
/// file named), and the trace it kept reads back. On a 66 MiB tmpfs of its own (a private
/// mount namespace, gone with the command), 2 MiB from the 64 MiB floor. perf empties its
/// ring buffers (16 MiB a CPU on 2 CPUs) to the file in batches, not event by event:
/// `-l 2000` (1.2 s here) once ended on a busy machine before 2 MiB reached the file (exit
/// 0); `-l 8000` runs on after the stop, unrecorded, for the few seconds it takes.
#[test]
fn a_full_disk_stops_with_the_trace_valid() {
    let Some((_one, dir)) = start("a_full_disk_stops_with_the_trace_valid", "full") else {
        return;
    };
    let small = dir.join("small");
    std::fs::create_dir_all(&small).unwrap();
    let trace = small.join("full.perf.data");
    let script = format!(
        "mount -t tmpfs -o size=66m none {small} && {BIN} record -q -o {trace} -- \
         perf bench sched messaging -g 2 -l 8000; echo status=$?; \
         {BIN} analyze {trace} -q --json {report}",
        small = small.display(),
        trace = trace.display(),
        report = dir.join("report.json").display(),
    );
    let out = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", &script])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.contains("status=2"), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!("{}: no space left: stopped with", trace.display())),
        "{stderr}"
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap();
    assert!(
        report["quality"]["events"]["sched_switch"]
            .as_u64()
            .unwrap()
            > 0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether debugfs is mounted at /sys/kernel/debug (in this mount namespace).
fn debugfs_mounted() -> bool {
    std::fs::read_to_string("/proc/self/mounts")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some("/sys/kernel/debug"))
}

/// While it records, `record` says how many events perf wrote and what each CPU lost so far
/// (stderr not a terminal: a line after 1 s); the count can only be at most what the file
/// holds in the end. The scheduler's features come from debugfs, which `record` mounts for
/// the reading when it is absent and unmounts after, saying so in the sidecar.
#[test]
fn progress_and_the_scheduler_features_are_said() {
    let Some((_one, dir)) = start("progress_and_the_scheduler_features_are_said", "progress")
    else {
        return;
    };
    let mounted_before = debugfs_mounted();
    let trace = dir.join("sleep.perf.data");
    let out = run(&[
        "record",
        "-o",
        trace.to_str().unwrap(),
        "--",
        "sleep",
        "1.6",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("schedtrace record: ") && l.contains(" events, "))
        .unwrap_or_else(|| panic!("no progress line in {stderr}"));
    let events: u64 = line
        .split(", ")
        .find_map(|p| p.strip_suffix(" events"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    let report = analyze(&trace, &[]);
    let total: u64 = perf_script_counts(&trace).values().sum();
    assert!(0 < events && events <= total, "{line}: {total} in the end");
    let lost = report["quality"]["lost_events"].as_array().unwrap();
    if lost.is_empty() {
        assert!(line.ends_with("lost: none"), "{line}");
    }
    let sidecar: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("sleep.perf.data.schedtrace.json")).unwrap(),
    )
    .unwrap();
    let host = &sidecar["host"];
    let source = host["sched_features_source"].as_str().unwrap();
    match host["sched_features"].as_array() {
        Some(flags) => assert!(!flags.is_empty(), "{source}"),
        // Not readable: the source says which file refused, or why it is absent.
        None => assert!(
            source.contains("/sys/kernel/debug/sched/features"),
            "{source}"
        ),
    }
    if !mounted_before {
        assert!(
            source.contains("mounted it read-only at /sys/kernel/debug"),
            "{source}"
        );
        assert!(stderr.contains("debugfs was not mounted"), "{stderr}");
        assert!(!debugfs_mounted(), "debugfs left mounted");
    }
    let header = run(&["analyze", trace.to_str().unwrap(), "-q"]);
    let text = String::from_utf8_lossy(&header.stdout);
    assert!(text.contains("features: "), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
