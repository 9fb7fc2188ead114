//! The simulator and its models on hand-built workloads (outcomes worked out in the
//! comments), its determinism, and its predicted trace read back by the analysis.

mod answer;
mod build;
mod cfs;
mod eevdf;
mod every_model;
mod output;
mod policies;
mod projectc;
mod wall_budget;
