//! The analysis against kernel ground truth, rules, invariants, shaping and compare.
//!
//! One test binary for the crate (each file was a binary of its own): the files are modules
//! here, so the dependencies are linked once instead of once per file.

mod common;
mod compare_mixed;
mod compare_repeats;
mod compare_schema;
mod compare_support;
mod compare_vm;
mod ground_truth;
mod invariants;
mod metrics_rules;
mod metrics_traces;
mod rules;
mod shaping;
mod system;
