//! Helpers shared by the CLI test files (`mod support;`): where the reference traces are,
//! and running the binary.

#![allow(dead_code)] // each test file uses its own part

use std::process::{Command, Output};

/// A trace of the collection (`fixtures::trace`: the project's own captures in fixtures/traces,
/// `public/...` beside the clone).
pub fn shared(rel: &str) -> String {
    fixtures::trace(rel).display().to_string()
}

/// Runs the binary under test with `args`.
pub fn schedtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(args)
        .output()
        .expect("run schedtrace")
}
