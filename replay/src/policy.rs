//! A task's scheduling policy and nice in the demand, from the most trusted source that
//! knows them, and what the models make of the policy.
//!
//! 1. **recorded**: the trace's sidecar (`schedtrace record` read each task's policy, nice
//!    and real-time priority from /proc at its fork and exec and at every sample,
//!    time-stamped in the trace's clock);
//! 2. **traced**: the task's last traced kernel priority. The events carry only that, so
//!    they cannot tell SCHED_BATCH or SCHED_IDLE from SCHED_OTHER (`120 + nice` for all
//!    three) nor SCHED_FIFO from SCHED_RR, and on BMQ the priority holds an untraced boost.
//!
//! Both are taken at the task's last traced moment, where the traced priority always was:
//! the models give a task one static nice, and the last one is the one its steady state ran
//! at (`nice -n 5 cmd` forks at the parent's nice and sets 5 before the exec).
//!
//! What the simulator makes of them ([`sim_class`]): SCHED_OTHER, SCHED_BATCH and
//! SCHED_IDLE are the models' fair class, each with its rules (`sim/cfs.rs`,
//! `sim/eevdf.rs`, `sim/bmq.rs`: a batch or idle wakee does not preempt in CFS and EEVDF, an
//! idle-policy task weighs 3 there and any other wakee preempts it; Project C runs both at
//! their nice and BMQ boosts them only to 0); SCHED_FIFO and SCHED_RR are the real-time
//! class above every model (`sim/rt.rs`). What is replayed as another policy, the demand
//! says per task (`replayed_as`): SCHED_DEADLINE as SCHED_FIFO 99 (Project C's own
//! squash; mainline's deadline class is approximated), a traced real-time task as
//! SCHED_FIFO at its priority (the trace does not tell RR), SCHED_EXT and an unknown policy
//! as SCHED_OTHER at their nice (no BPF scheduler is modelled).

use crate::demand::{Policy, Sched, SchedFrom};
use crate::sim::model::FairPolicy;
use analysis::recording::{Recording, TaskSample};
use analysis::PrioScale;
use std::collections::HashMap;

/// The recording's samples of each pid, in time order.
#[derive(Debug, Default)]
pub(crate) struct Recorded<'a>(HashMap<i32, Vec<&'a TaskSample>>);

impl<'a> Recorded<'a> {
    pub(crate) fn new(recording: Option<&'a Recording>) -> Recorded<'a> {
        let mut by_pid: HashMap<i32, Vec<&TaskSample>> = HashMap::new();
        for s in recording.map_or(&[][..], |r| &r.tasks[..]) {
            by_pid.entry(s.pid).or_default().push(s);
        }
        for samples in by_pid.values_mut() {
            samples.sort_by_key(|s| s.ts_ns);
        }
        Recorded(by_pid)
    }

    /// The sample of `pid` in force at `at_ns`: the last at or before it, else its first
    /// (policy and nice are inherited at fork, as the allowed CPUs are).
    fn at(&self, pid: i32, at_ns: u64) -> Option<&'a TaskSample> {
        let samples = self.0.get(&pid)?;
        let before = samples.partition_point(|s| s.ts_ns <= at_ns);
        samples.get(before.saturating_sub(1)).copied()
    }
}

/// The policy, nice and their sources of task `pid`, whose last traced priority is `prio`
/// (on `scale`), at `at_ns` (its last traced moment).
pub(crate) fn of(
    recorded: &Recorded,
    scale: PrioScale,
    pid: i32,
    prio: Option<i32>,
    at_ns: u64,
) -> (Policy, Option<i32>, Sched) {
    let (policy, nice, rt_priority, policy_from) =
        match recorded.at(pid, at_ns).and_then(from_sample) {
            Some((policy, nice, rt)) => (policy, nice, rt, SchedFrom::Recorded),
            None => {
                let (policy, nice) = traced(scale, prio);
                let rt = prio
                    .filter(|_| policy == Policy::RealTime)
                    .map(|p| 99 - p as u32);
                let from = if policy == Policy::Unknown {
                    SchedFrom::None
                } else {
                    SchedFrom::Traced
                };
                (policy, nice, rt, from)
            }
        };
    let sched = Sched {
        policy_from,
        nice_from: if nice.is_some() {
            policy_from
        } else {
            SchedFrom::None
        },
        rt_priority,
        replayed_as: replayed_as(policy, nice, rt_priority),
    };
    (policy, nice, sched)
}

/// A sample's policy, nice (where it applies) and real-time priority; None for a policy
/// this does not know (a number), which leaves the task to its traced priority.
fn from_sample(s: &TaskSample) -> Option<(Policy, Option<i32>, Option<u32>)> {
    let policy = match s.policy.as_str() {
        "SCHED_OTHER" => Policy::Other,
        "SCHED_BATCH" => Policy::Batch,
        "SCHED_IDLE" => Policy::Idle,
        "SCHED_FIFO" => Policy::Fifo,
        "SCHED_RR" => Policy::Rr,
        "SCHED_DEADLINE" => Policy::Deadline,
        "SCHED_EXT" => Policy::Ext,
        _ => return None,
    };
    // SCHED_IDLE keeps its nice: mainline weighs it 3 whatever the nice, but traces
    // `120 + nice`, and Project C runs it at its nice.
    let fair = matches!(
        policy,
        Policy::Other | Policy::Batch | Policy::Idle | Policy::Ext
    );
    let nice = Some(s.nice).filter(|n| fair && (-20..=19).contains(n));
    let rt = matches!(policy, Policy::Fifo | Policy::Rr).then_some(s.rt_priority);
    Some((policy, nice, rt))
}

/// Policy and nice of a traced priority on `scale`.
fn traced(scale: PrioScale, prio: Option<i32>) -> (Policy, Option<i32>) {
    match prio {
        Some(p) if (0..100).contains(&p) => (Policy::RealTime, None),
        Some(p) => match scale.nice(p) {
            Some(n) => (Policy::Normal, Some(n)),
            None => (Policy::Unknown, None),
        },
        None => (Policy::Unknown, None),
    }
}

/// How the simulator runs a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SimClass {
    /// In the model, at a nice and with a fair policy.
    Fair { nice: i32, policy: FairPolicy },
    /// In the real-time class, at `rt_priority` (1-99); RR or FIFO.
    RealTime { rt_priority: u32, rr: bool },
}

/// The class a task of `policy`, `nice` and `rt_priority` runs in (the module doc).
pub(crate) fn sim_class(policy: Policy, nice: Option<i32>, rt_priority: Option<u32>) -> SimClass {
    let fair = |policy| SimClass::Fair {
        nice: nice.unwrap_or(0),
        policy,
    };
    let rt = |rt_priority, rr| SimClass::RealTime { rt_priority, rr };
    match policy {
        Policy::Other | Policy::Normal | Policy::Ext | Policy::Unknown => fair(FairPolicy::Normal),
        Policy::Batch => fair(FairPolicy::Batch),
        Policy::Idle => fair(FairPolicy::Idle),
        Policy::Fifo | Policy::RealTime => rt(rt_priority.unwrap_or(1), false),
        Policy::Rr => rt(rt_priority.unwrap_or(1), true),
        Policy::Deadline => rt(99, false),
    }
}

/// The policy a task is replayed as when the simulator does not run its own; None when it
/// does.
fn replayed_as(policy: Policy, nice: Option<i32>, rt_priority: Option<u32>) -> Option<String> {
    match (policy, sim_class(policy, nice, rt_priority)) {
        (Policy::Ext | Policy::Unknown, SimClass::Fair { nice, .. }) => {
            Some(format!("SCHED_OTHER at nice {nice}"))
        }
        (Policy::Deadline | Policy::RealTime, SimClass::RealTime { rt_priority, .. }) => {
            Some(format!("SCHED_FIFO {rt_priority}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_to_policy() {
        assert_eq!(
            traced(PrioScale::Mainline, Some(125)),
            (Policy::Normal, Some(5))
        );
        assert_eq!(
            traced(PrioScale::Mainline, Some(49)),
            (Policy::RealTime, None)
        );
        assert_eq!(traced(PrioScale::Pds, Some(172)), (Policy::Normal, Some(0)));
        assert_eq!(
            traced(PrioScale::Mainline, Some(172)),
            (Policy::Unknown, None)
        );
        assert_eq!(traced(PrioScale::Mainline, None), (Policy::Unknown, None));
    }

    fn sample(ts_ns: u64, policy: &str, nice: i32, rt_priority: u32) -> TaskSample {
        TaskSample {
            ts_ns,
            pid: 7,
            policy: policy.into(),
            nice,
            rt_priority,
            ..Default::default()
        }
    }

    fn sched(from: SchedFrom, nice_from: SchedFrom, rt: Option<u32>, as_: Option<&str>) -> Sched {
        Sched {
            policy_from: from,
            nice_from,
            rt_priority: rt,
            replayed_as: as_.map(str::to_string),
        }
    }

    #[test]
    fn the_recording_wins_at_the_tasks_end() {
        let rec = Recording {
            tasks: vec![
                sample(300, "SCHED_BATCH", 5, 0),
                sample(100, "SCHED_OTHER", 0, 0),
                sample(500, "SCHED_FIFO", 0, 40),
                sample(700, "9", 0, 0),
            ],
            ..Default::default()
        };
        let r = Recorded::new(Some(&rec));
        use SchedFrom::{None as Neither, Recorded as Rec, Traced};
        let at = |ts, prio| of(&r, PrioScale::Mainline, 7, prio, ts);
        // Before its first sample: the first (inherited at fork); the trace says nice 3.
        assert_eq!(
            at(50, Some(123)),
            (Policy::Other, Some(0), sched(Rec, Rec, None, None))
        );
        assert_eq!(
            at(300, Some(120)),
            (Policy::Batch, Some(5), sched(Rec, Rec, None, None))
        );
        // FIFO 40 (traced prio 59): no nice, run as itself.
        assert_eq!(
            at(600, Some(59)),
            (Policy::Fifo, None, sched(Rec, Neither, Some(40), None))
        );
        // A policy number this does not know: the traced priority, a real-time one here.
        assert_eq!(
            at(800, Some(89)),
            (
                Policy::RealTime,
                None,
                sched(Traced, Neither, Some(10), Some("SCHED_FIFO 10"))
            )
        );
        // Another pid: traced.
        assert_eq!(
            of(&r, PrioScale::Mainline, 8, Some(125), 800),
            (Policy::Normal, Some(5), sched(Traced, Traced, None, None))
        );
        assert_eq!(
            of(&r, PrioScale::Mainline, 8, None, 800),
            (
                Policy::Unknown,
                None,
                sched(Neither, Neither, None, Some("SCHED_OTHER at nice 0"))
            )
        );
    }

    #[test]
    fn every_recorded_policy() {
        let one = |policy: &str, nice| from_sample(&sample(0, policy, nice, 7));
        assert_eq!(
            one("SCHED_OTHER", -3),
            Some((Policy::Other, Some(-3), None))
        );
        assert_eq!(one("SCHED_EXT", 2), Some((Policy::Ext, Some(2), None)));
        assert_eq!(one("SCHED_IDLE", 2), Some((Policy::Idle, Some(2), None)));
        assert_eq!(one("SCHED_RR", 0), Some((Policy::Rr, None, Some(7))));
        assert_eq!(
            one("SCHED_DEADLINE", 0),
            Some((Policy::Deadline, None, None))
        );
        assert_eq!(one("SCHED_OTHER", 25), Some((Policy::Other, None, None)));
        let fair = |nice, policy| SimClass::Fair { nice, policy };
        let rt = |rt_priority, rr| SimClass::RealTime { rt_priority, rr };
        assert_eq!(
            sim_class(Policy::Idle, Some(2), None),
            fair(2, FairPolicy::Idle)
        );
        assert_eq!(
            sim_class(Policy::Batch, Some(5), None),
            fair(5, FairPolicy::Batch)
        );
        assert_eq!(
            sim_class(Policy::Ext, Some(2), None),
            fair(2, FairPolicy::Normal)
        );
        assert_eq!(
            sim_class(Policy::Unknown, None, None),
            fair(0, FairPolicy::Normal)
        );
        assert_eq!(sim_class(Policy::Rr, None, Some(7)), rt(7, true));
        assert_eq!(sim_class(Policy::Fifo, None, Some(7)), rt(7, false));
        assert_eq!(sim_class(Policy::RealTime, None, Some(7)), rt(7, false));
        assert_eq!(sim_class(Policy::Deadline, None, None), rt(99, false));
        // What is run as itself says nothing; what is run as another says which.
        for (policy, nice, rt_priority, as_) in [
            (Policy::Other, Some(1), None, None),
            (Policy::Batch, Some(5), None, None),
            (Policy::Idle, Some(0), None, None),
            (Policy::Fifo, None, Some(7), None),
            (Policy::Rr, None, Some(7), None),
            (Policy::Ext, Some(2), None, Some("SCHED_OTHER at nice 2")),
            (Policy::Unknown, None, None, Some("SCHED_OTHER at nice 0")),
            (Policy::RealTime, None, Some(7), Some("SCHED_FIFO 7")),
            (Policy::Deadline, None, None, Some("SCHED_FIFO 99")),
        ] {
            assert_eq!(
                replayed_as(policy, nice, rt_priority).as_deref(),
                as_,
                "{policy:?}"
            );
        }
    }
}
