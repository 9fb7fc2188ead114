//! The `schedtrace` binary end to end: CLI, compare, convert, golden outputs, hostile inputs, the TUI, progress, the repository itself.
//!
//! One test binary for these files (tests/hostile is the other, see its main.rs), each file a
//! module, so that the dependencies are linked
//! once instead of once per file (a fresh clone builds its tests in a fraction of the time).

mod cli;
mod compare_cli;
mod compare_v1;
mod export_dataset;
mod export_roundtrip;
mod export_support;
mod fuzz_smoke;
mod golden;
mod perf_ground_truth;
mod perfetto_google_schema;
mod progress_line;
mod renderings;
mod replay_cli;
mod repository;
mod support;
mod tui_print;
mod tui_tmux;
