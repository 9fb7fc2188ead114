//! The demand's inputs from a recording's sidecar (what `schedtrace record` writes beside
//! the trace), on the CFS `nice` fixture (two spinners at nice 0 and 5, their parent
//! `schedwl`) with a hand-built sidecar written beside it in a scratch folder:
//! `affinity`, the allowed CPUs (and `--affinity` rules, and the sidecar's HZ); `policy`,
//! the scheduling policy and nice.

// The simulator tests' hand-built workloads (not every builder is used here).
#[allow(dead_code)]
#[path = "../sim/build.rs"]
mod build;

mod affinity;
mod policy;

use analysis::recording::{Host, Recording, TaskSample, FORMAT_VERSION};
use replay::demand::Demand;
use std::path::{Path, PathBuf};

const TRACE: &str = "cfs-6.1-vm/nice/trace-v6.dat.xz";
const SCHEDWL: i32 = 271;
const NICE0: i32 = 272;
const NICE5: i32 = 273;

/// The fixture linked into a scratch folder, with `sidecar` (None: none) beside it under the
/// name without `.xz`, as `record` then `xz` leave it.
fn scratch(name: &str, sidecar: Option<&[u8]>) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("schedtrace-recorded-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace-v6.dat.xz");
    std::os::unix::fs::symlink(fixtures::trace(TRACE), &trace).unwrap();
    if let Some(bytes) = sidecar {
        std::fs::write(dir.join("trace-v6.dat.schedtrace.json"), bytes).unwrap();
    }
    trace
}

fn task(d: &Demand, pid: i32) -> &replay::demand::TaskDemand {
    d.tasks.iter().find(|t| t.pid == pid).unwrap()
}

/// Removes the scratch folders of `traces`.
fn clean(traces: &[&Path]) {
    for t in traces {
        let _ = std::fs::remove_dir_all(t.parent().unwrap());
    }
}

/// The sidecar `record` would write beside the fixture, holding `tasks` and `host`.
fn sidecar_json(tasks: Vec<TaskSample>, host: Host) -> Vec<u8> {
    let rec = Recording {
        schedtrace_recording: FORMAT_VERSION,
        trace: "trace-v6.dat".into(),
        clock: "monotonic".into(),
        tasks,
        host,
        ..Default::default()
    };
    serde_json::to_vec_pretty(&rec).unwrap()
}
