//! The engine: one pass over the events that keeps every task's state machine
//! ([`crate::timeline`]), every CPU's occupant ([`crate::cpu`]) and every concern's
//! accumulators (`crate::metrics`) in step, then assembles the [`crate::Report`].
//!
//! - `analyzer`: the [`Analyzer`], its task table, and the dispatch of each event to the
//!   task and CPU state changes it makes (context-switch bugs, lost events).
//! - `concerns`: after each state change, the calls that keep the §4–7 accumulators
//!   (runqueue depth, work conservation, fairness, wakeup preemption), the per-event
//!   records and the timeline store's per-task logs in step with it; each O(1).
//! - `series_pass`: the `--series` durations summed from the store's logs as they close
//!   intervals, when the store is kept.
//! - `streaming`: a drain's side of the pass (`Analyzer::drain_into`, for the export).
//! - `assemble`: the final state turned into a [`crate::Report`] (each concern asked for
//!   its part), with the timeline store and the `--series` when asked for.

mod analyzer;
mod assemble;
mod concerns;
mod series_pass;
mod streaming;
mod task_table;

pub use analyzer::Analyzer;
