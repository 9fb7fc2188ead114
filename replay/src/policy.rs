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
//! The models have the fair class only. A policy they do not implement is replayed as
//! SCHED_OTHER at the nice [`model_nice`] gives, and the demand says so per task
//! (`replayed_as`): SCHED_BATCH at its nice, though the kernel never lets a waking batch
//! task preempt (CFS 6.1 `check_preempt_wakeup`, EEVDF 6.12 `check_preempt_wakeup_fair`:
//! `p->policy != SCHED_NORMAL` returns before the preemption test); SCHED_IDLE at nice 19
//! (weight 15, where the kernel gives it 3, `WEIGHT_IDLEPRIO`, and lets any other task
//! preempt it); SCHED_FIFO, SCHED_RR and SCHED_DEADLINE at nice -20 (weight 88761: they
//! share the CPU with fair tasks where the kernel runs them first); SCHED_EXT at its nice
//! (no BPF scheduler is modelled).

use crate::demand::{Policy, Sched, SchedFrom};
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
        replayed_as: replayed_as(policy, nice),
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
    let fair = matches!(policy, Policy::Other | Policy::Batch | Policy::Ext);
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

/// The nice the models run a task of `policy` at (the module doc).
pub(crate) fn model_nice(policy: Policy, nice: Option<i32>) -> i32 {
    match policy {
        Policy::Fifo | Policy::Rr | Policy::Deadline | Policy::RealTime => -20,
        Policy::Idle => 19,
        Policy::Other | Policy::Batch | Policy::Ext | Policy::Normal | Policy::Unknown => {
            nice.unwrap_or(0)
        }
    }
}

/// How the models run a policy they do not implement; None for the one they do.
fn replayed_as(policy: Policy, nice: Option<i32>) -> Option<String> {
    match policy {
        Policy::Other | Policy::Normal => None,
        _ => Some(format!("SCHED_OTHER at nice {}", model_nice(policy, nice))),
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
            (
                Policy::Batch,
                Some(5),
                sched(Rec, Rec, None, Some("SCHED_OTHER at nice 5"))
            )
        );
        // FIFO 40 (traced prio 59): no nice, run at nice -20.
        assert_eq!(
            at(600, Some(59)),
            (
                Policy::Fifo,
                None,
                sched(Rec, Neither, Some(40), Some("SCHED_OTHER at nice -20"))
            )
        );
        // A policy number this does not know: the traced priority, a real-time one here.
        assert_eq!(
            at(800, Some(89)),
            (
                Policy::RealTime,
                None,
                sched(Traced, Neither, Some(10), Some("SCHED_OTHER at nice -20"))
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
        assert_eq!(one("SCHED_IDLE", 2), Some((Policy::Idle, None, None)));
        assert_eq!(one("SCHED_RR", 0), Some((Policy::Rr, None, Some(7))));
        assert_eq!(
            one("SCHED_DEADLINE", 0),
            Some((Policy::Deadline, None, None))
        );
        assert_eq!(one("SCHED_OTHER", 25), Some((Policy::Other, None, None)));
        assert_eq!(model_nice(Policy::Idle, None), 19);
        assert_eq!(model_nice(Policy::Deadline, None), -20);
        assert_eq!(model_nice(Policy::Ext, Some(2)), 2);
        assert_eq!(
            replayed_as(Policy::Ext, Some(2)).as_deref(),
            Some("SCHED_OTHER at nice 2")
        );
        assert_eq!(
            replayed_as(Policy::Idle, None).as_deref(),
            Some("SCHED_OTHER at nice 19")
        );
    }
}
