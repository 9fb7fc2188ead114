//! BMQ of Project C v6.1-r4 (`kernel/sched/bmq.h`): strict priority levels from
//! `(120 + nice + boost) / 2`, the boost moving within ±7 (`MAX_PRIORITY_ADJ`): an expired
//! slice deboosts by one (a CPU hog sinks to +7); a wakeup after more than a slice since it
//! last ran boosts by one, and so does blocking after a run shorter than
//! `sched_timeslice_ns >> (8 − boost)`; a fork starts at +7. With strict levels, a nice-0
//! hog at +7 (level 113) runs before a nice-5 one at +7 (level 116) for as long as it runs.
//! A SCHED_BATCH or SCHED_IDLE task is boosted only down to 0.

use super::model::{FairPolicy, ModelInfo, ModelName};
use super::projectc::{Policy, Task, RESCHED_NS, TIMESLICE_NS};

/// `MAX_PRIORITY_ADJ`.
const MAX_BOOST: i32 = 7;

pub(crate) struct Bmq;

/// `boost_task`: one level up, to -7 for SCHED_OTHER, only to 0 for SCHED_BATCH and
/// SCHED_IDLE.
fn boost(t: &mut Task) {
    let limit = match t.policy {
        FairPolicy::Normal => -MAX_BOOST,
        FairPolicy::Batch | FairPolicy::Idle => 0,
    };
    if t.boost > limit {
        t.boost -= 1;
    }
}

impl Policy for Bmq {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: ModelName::Bmq,
            follows: "BMQ of Project C v6.1-r4",
            version: 2,
            release: "6.1.0-prjc-bmq-predicted",
            parameters: vec![
                ("sched_timeslice_ns", TIMESLICE_NS as i64),
                ("RESCHED_NS", RESCHED_NS as i64),
                ("MAX_PRIORITY_ADJ", i64::from(MAX_BOOST)),
                ("HRTICK", 1),
            ],
        }
    }

    /// `task_sched_prio`: `MAX_RT_PRIO / 2 + (prio + boost) / 2` with `prio = 120 + nice`.
    fn level(&self, t: &Task, _now: u64) -> i64 {
        50 + i64::from(120 + t.nice + t.boost) / 2
    }

    fn expired(&self, t: &mut Task, _now: u64, queued: bool) {
        if queued {
            t.boost = (t.boost + 1).min(MAX_BOOST);
        }
    }

    fn forked(&self, t: &mut Task, _now: u64) {
        t.boost = MAX_BOOST;
    }

    fn woken(&self, t: &mut Task, now: u64) {
        if now.saturating_sub(t.last_ran) > TIMESLICE_NS {
            boost(t);
        }
    }

    fn blocks(&self, t: &mut Task, now: u64) {
        let threshold = TIMESLICE_NS >> (15 - MAX_BOOST - t.boost) as u32;
        if now.saturating_sub(t.switched_in) < threshold {
            boost(t);
        }
    }

    /// `p->prio` = `static_prio + MAX_PRIORITY_ADJ` (the boost is not in it): 127 + nice,
    /// the scale the analysis reads BMQ traces in.
    fn prio(&self, t: &Task) -> i32 {
        127 + t.nice
    }
}
