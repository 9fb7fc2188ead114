//! What every recording test shares: the one-at-a-time lock, the skip rule, running
//! `schedtrace` and `perf script`, and the spinner whose own counters are the ground truth.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_schedtrace");

/// Why recording cannot run here, if it cannot.
pub(crate) fn cannot_record() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root".into());
    }
    let on = Path::new("/sys/kernel/tracing/tracing_on");
    if std::fs::OpenOptions::new().write(true).open(on).is_err() {
        return Some(format!(
            "{} is not writable (tracefs not mounted?)",
            on.display()
        ));
    }
    if Command::new("perf").arg("--version").output().is_err() {
        return Some("perf is absent".into());
    }
    None
}

pub(crate) fn skip(test: &str) -> bool {
    let Some(why) = cannot_record() else {
        return false;
    };
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{test}: cannot record under CI: {why}");
    }
    println!("skipped {test}: {why}");
    true
}

/// The lock, and a fresh scratch folder, for a test that can record here (None: skipped).
pub(crate) fn start(
    test: &str,
    name: &str,
) -> Option<(std::sync::MutexGuard<'static, ()>, PathBuf)> {
    let one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if skip(test) {
        return None;
    }
    Some((one, scratch(name)))
}

pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedtrace-record-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) fn run(args: &[&str]) -> Output {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.code().is_some(),
        "schedtrace {args:?} died: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `schedtrace record -q -o TRACE -- sh -c SCRIPT`.
pub(crate) fn record_sh(trace: &Path, script: &str) -> Output {
    run(&[
        "record",
        "-q",
        "-o",
        trace.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        script,
    ])
}

pub(crate) fn analyze(trace: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", trace.to_str().unwrap(), "-q", "--json", "-"];
    args.extend_from_slice(extra);
    let out = run(&args);
    assert!(
        out.status.success(),
        "analyze {}: {}",
        trace.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What `perf script ARGS -i TRACE` prints.
pub(crate) fn perf_script(trace: &Path, args: &[&str]) -> String {
    let out = Command::new("perf")
        .arg("script")
        .args(args)
        .arg("-i")
        .arg(trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "perf script: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Events per name as `perf script` prints them for the same file.
pub(crate) fn perf_script_counts(trace: &Path) -> std::collections::BTreeMap<String, u64> {
    let mut counts = std::collections::BTreeMap::new();
    for line in perf_script(trace, &["-F", "event"]).lines() {
        let name = line.trim().trim_end_matches(':');
        let name = name.rsplit(':').next().unwrap_or(name);
        if !name.is_empty() {
            *counts.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// Every event kind `analyze` counted equals `perf script`'s count of it.
pub(crate) fn assert_counts_match(trace: &Path, report: &Value) {
    let ours: std::collections::BTreeMap<String, u64> = report["quality"]["events"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .filter(|(_, n)| *n > 0)
        .collect();
    assert_eq!(ours, perf_script_counts(trace), "{}", trace.display());
}

pub(crate) fn task(report: &Value, pid: i64) -> &Value {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["pid"].as_i64() == Some(pid))
        .unwrap_or_else(|| panic!("pid {pid} not in the report"))
}

pub(crate) fn share(report: &Value) -> f64 {
    report["system"]["work_conservation"]["idle_while_runnable_share"]
        .as_f64()
        .unwrap()
}

/// A shell that spins `n` loop turns, then writes its pid and its own
/// `/proc/self/schedstat` (runtime ns, wait ns, slices) to `out` as it ends.
pub(crate) fn spinner(n: u32, out: &Path) -> String {
    format!(
        "sh -c 'i=0; while [ $i -lt {n} ]; do i=$((i+1)); done; echo $$ $(cat /proc/$$/schedstat) > {}'",
        out.display()
    )
}

/// What a [`spinner`] wrote as it ended: pid, runtime ns, wait ns, slices.
pub(crate) fn own_counters(file: &Path) -> Vec<u64> {
    std::fs::read_to_string(file)
        .unwrap()
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}
