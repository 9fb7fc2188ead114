//! The analysis against kernel ground truth, rules, invariants, shaping, series, timelines and compare.
//!
//! One test binary for the crate, each file a module, so that the dependencies are linked
//! once instead of once per file (a fresh clone builds its tests in a fraction of the time).

mod affinity_traces;
mod common;
mod compare_explain;
mod compare_mixed;
mod compare_repeats;
mod compare_roles;
mod compare_schema;
mod compare_support;
mod compare_typed;
mod compare_vm;
mod decode_threads;
mod drain_traces;
mod ground_truth;
mod idle_states;
mod invariants;
mod metrics_rules;
mod metrics_traces;
mod recording_traces;
mod report_additions;
mod rules;
mod series_traces;
mod shaping;
mod short_term_windows;
mod system;
mod timeline_traces;
mod wait_causes;
