//! Helpers shared by the CLI test files (`mod support;`): where the reference traces are,
//! and running the binary.

#![allow(dead_code)] // each test file uses its own part

use std::process::{Command, Output};

/// A file of `../shared/traces` (the real traces laid beside the repository).
pub fn shared(rel: &str) -> String {
    format!("{}/../shared/traces/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary under test with `args`.
pub fn schedtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(args)
        .output()
        .expect("run schedtrace")
}
