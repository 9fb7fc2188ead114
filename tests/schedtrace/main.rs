//! The `schedtrace` binary end to end, cross-format renderings, golden outputs, the repository itself.
//!
//! One test binary for the crate (each file was a binary of its own): the files are modules
//! here, so the dependencies are linked once instead of once per file.

mod cli;
mod compare_cli;
mod golden;
mod perf_ground_truth;
mod progress_line;
mod renderings;
mod repository;
