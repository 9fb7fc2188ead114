//! One module per concern of `docs/metrics.md`, each owning its hot-path state, the report
//! fields it produces and their merge rule for grouped rows:
//!
//! | module | computes |
//! |---|---|
//! | [`crate::timeline`] (the task state machine) | runtime, slices, sleep, unknown time, switch-out reasons, wakeups, migrations (§2–3) |
//! | [`latency`] | wakeup latency, preemption wait, sched delay statistics (§3) |
//! | [`wait_causes`] | every wait split by what its CPU ran: enqueue, idle, behind whom, unknown (§3a) |
//! | [`idle_states`] | time in each idle state per CPU; the idle pieces of the waits by the state left (§3b) |
//! | [`runqueue`] | runqueue depth per CPU, idle-while-runnable (§4) |
//! | [`preemption`] | wakeup preemptions, caused / suffered, triples (§5) |
//! | [`placement`] | cache affinity, placement classes, local / remote wakeups (§6) |
//! | [`fairness`] | entitlement, fairness ratio, lag, Jain's index, short-term windows (§7) |
//! | [`quality`] | the data-quality ledger (§9) |
//! | [`records`] | per-event waits and wakeup preemptions, for the export (opt-in) |
//!
//! The engine ([`crate::engine`]) dispatches every event to them with static calls, and
//! its `assemble` module asks each for its part of the report.

pub(crate) mod fairness;
pub(crate) mod idle_states;
pub(crate) mod latency;
pub(crate) mod placement;
pub(crate) mod preemption;
pub(crate) mod quality;
pub mod records;
pub(crate) mod runqueue;
pub(crate) mod wait_causes;
