//! PDS of Project C v6.1-r4 (`kernel/sched/pds.h`): a task's level is its virtual deadline
//! against the run queue's time edge. The deadline is set, in units of 2^22 ns (4.19 ms),
//! to `now / 2^22 + nice + 20` when the slice expires or the task forks, and kept across
//! sleeps; the level is `deadline − edge + 24` (clamped to 0..63, `edge = now / 2^22`), so a
//! waiting task's level falls as time passes until it is the first. Nice 0 renews 20
//! units ahead, nice 5 25: at equal levels first-in first-out.

use super::model::{ModelInfo, ModelName};
use super::projectc::{Policy, Task, RESCHED_NS, TIMESLICE_NS};

/// `sched_timeslice_shift`: deadlines count 2^22 ns units.
const SHIFT: u32 = 22;
/// `NORMAL_PRIO_NUM` (64) − `NICE_WIDTH` (40): the level of a deadline at the edge.
const EDGE_LEVEL: i64 = 24;
/// The highest normal level (`NORMAL_PRIO_NUM` − 1).
const MAX_LEVEL: i64 = 63;

pub(crate) struct Pds;

impl Pds {
    fn renew(t: &mut Task, now: u64) {
        t.deadline = ((now >> SHIFT) as i64 + i64::from(t.nice) + 20).max(0) as u64;
    }
}

impl Policy for Pds {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            name: ModelName::Pds,
            follows: "PDS of Project C v6.1-r4",
            version: 2,
            release: "6.1.0-prjc-pds-predicted",
            parameters: vec![
                ("sched_timeslice_ns", TIMESLICE_NS as i64),
                ("RESCHED_NS", RESCHED_NS as i64),
                ("sched_timeslice_shift", i64::from(SHIFT)),
                ("NORMAL_PRIO_NUM", MAX_LEVEL + 1),
                ("HRTICK", 1),
            ],
        }
    }

    fn level(&self, t: &Task, now: u64) -> i64 {
        let edge = (now >> SHIFT) as i64;
        (t.deadline as i64 - edge + EDGE_LEVEL).clamp(0, MAX_LEVEL)
    }

    fn expired(&self, t: &mut Task, now: u64, _queued: bool) {
        Pds::renew(t, now);
    }

    fn forked(&self, t: &mut Task, now: u64) {
        Pds::renew(t, now);
    }

    /// Normal prios 152..191 (`MIN_NORMAL_PRIO` 128 + 24 + nice + 20 at renewal): the scale
    /// the analysis reads PDS traces in.
    fn prio(&self, t: &Task) -> i32 {
        172 + t.nice
    }
}
