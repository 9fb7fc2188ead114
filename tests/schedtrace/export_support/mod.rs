//! Helpers of the export tests: the VM captures, exports into scratch directories, and
//! reading NDJSON / CSV tables back.

#![allow(dead_code)] // each test file uses its own part

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every VM capture bundled in fixtures/traces (`<kernel>-vm/<workload>/trace-v6.dat.xz`),
/// as (label, path); the label is `<kernel>-<workload>`.
pub fn vm_captures() -> Vec<(String, String)> {
    let root = fixtures::trace("");
    let mut out = Vec::new();
    for kernel in std::fs::read_dir(&root).unwrap().flatten() {
        let name = kernel.file_name().to_string_lossy().into_owned();
        let Some(short) = name.strip_suffix("-vm") else {
            continue;
        };
        for workload in std::fs::read_dir(kernel.path()).unwrap().flatten() {
            let trace = workload.path().join("trace-v6.dat.xz");
            if trace.exists() {
                let w = workload.file_name().to_string_lossy().into_owned();
                out.push((format!("{short}-{w}"), trace.display().to_string()));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 14, "the VM captures are missing: {out:?}");
    out
}

pub fn schedtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(args)
        .output()
        .expect("run schedtrace")
}

/// A fresh scratch directory (removed when dropped).
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("schedtrace-export-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `schedtrace export ARGS`; panics with its stderr unless it succeeds.
pub fn export(args: &[&str]) {
    let mut all = vec!["export"];
    all.extend_from_slice(args);
    let out = schedtrace(&all);
    assert!(
        out.status.success(),
        "export {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The part file of `table`, run `run`, repeat `repeat` in `dir`.
pub fn part(dir: &Path, table: &str, run: &str, repeat: usize, ext: &str) -> PathBuf {
    dir.join(table)
        .join(format!("run={run}"))
        .join(format!("part-{repeat}.{ext}"))
}

/// The rows of an NDJSON table file.
pub fn ndjson(path: &Path) -> Vec<serde_json::Map<String, Value>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| match serde_json::from_str(l).unwrap() {
            Value::Object(m) => m,
            v => panic!("not an object: {v}"),
        })
        .collect()
}

/// `analyze FILE --json -` as JSON.
pub fn analyze_json(file: &str) -> Value {
    let out = schedtrace(&["analyze", file, "--json", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
