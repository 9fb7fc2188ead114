//! What-if replay: take the workload out of one kernel's trace and run it again, on a real
//! kernel (as rt-app JSON) or through a model of another scheduler.
//!
//! Stage one, here: the demand ([`demand`]): per task its CPU bursts and blocks, nice and
//! policy, allowed CPUs, fork and exit, and the run's CPUs, LLCs and HZ. It is taken from
//! the analysis' own timeline (`analysis::timeline_store`), so a task's bursts sum to the
//! runtime `analyze` reports for it, by construction and checked by the tests.
//!
//! Modules, one concept each: [`demand`] (the model and its JSON), `extract` (trace to
//! demand), `segment` (one task's intervals to bursts and blocks), `observe` (forks, exits,
//! priorities from the events), `policy` (policy and nice, recorded or traced), `hz` (the
//! tick rate), `preempt_cost` (the traced wakeup preemption's delay), `waking_lag` (its
//! `sched_waking` to `sched_wakeup`), `affinity` (allowed CPUs), `wall_budget` (tasks busy
//! for a wall-clock time per burst), `kthread` (kernel threads by name), [`rtapp`] (rt-app
//! JSON).
//!
//! Stage two: [`sim`], the discrete-event simulator and the scheduler models, whose
//! schedule [`predicted`] writes as a Perfetto trace the readers take. Stage three, the
//! validation against the kernels' own captures, is a test (`tests/validation/`).

#![warn(unreachable_pub)]

mod affinity;
pub mod demand;
mod extract;
mod hz;
mod kthread;
mod observe;
mod policy;
pub mod predicted;
mod preempt_cost;
pub mod rtapp;
mod segment;
pub mod sim;
mod waking_lag;
mod wall_budget;

pub use extract::{extract, Extracted, Options};
