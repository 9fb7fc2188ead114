//! The demand's policy and nice from a recording's sidecar, on the CFS `nice` fixture (two
//! spinners at nice 0 and 5 and their parent `schedwl`, all traced at `120 + nice`) with a
//! hand-built sidecar beside it in a scratch folder: each task's sample in force at its
//! last traced moment wins over its traced priority and the demand says so; an unsampled
//! task keeps its traced priority; rt-app's policy and priority follow; the simulator runs
//! batch and FIFO tasks as themselves and says `replayed_as` only for a policy it runs as
//! another (a traced real-time task: SCHED_FIFO at its priority).

use crate::{clean, scratch, sidecar_json, task, NICE0, NICE5, SCHEDWL};
use analysis::recording::TaskSample;
use replay::demand::{Demand, Policy, Sched, SchedFrom};
use replay::sim::model::ModelName;
use replay::sim::schedule::Record;
use std::path::Path;

/// Inside the fixture's window, after both spinners' first bursts (80.8281-80.8296 s).
const CHANGED_AT: u64 = 80_840_000_000;
/// Long after the fixture's window (it ends before 84 s).
const AFTER_THE_END: u64 = 900_000_000_000;

fn sample(ts_ns: u64, pid: i32, policy: &str, nice: i32, rt_priority: u32) -> TaskSample {
    TaskSample {
        ts_ns,
        why: "first".into(),
        pid,
        tgid: pid,
        cpus: "0-3".into(),
        policy: policy.into(),
        nice,
        rt_priority,
        ..Default::default()
    }
}

/// `nice-n0` SCHED_OTHER at its fork, SCHED_BATCH from [`CHANGED_AT`]; `nice-n5`
/// SCHED_OTHER at nice 3 (the trace says 5: a recording is trusted over the priority,
/// which BMQ boosts), renice'd to 7 only after the window; `schedwl` SCHED_FIFO 30 from its
/// first sample on (traced at 120: a hand-built contradiction the recording wins); no
/// kernel thread sampled.
fn sidecar() -> Vec<u8> {
    let tasks = vec![
        sample(80_828_000_000, NICE0, "SCHED_OTHER", 0, 0),
        sample(80_829_000_000, NICE5, "SCHED_OTHER", 3, 0),
        sample(80_829_000_000, SCHEDWL, "SCHED_FIFO", 0, 30),
        sample(CHANGED_AT, NICE0, "SCHED_BATCH", 0, 0),
        sample(AFTER_THE_END, NICE5, "SCHED_OTHER", 7, 0),
    ];
    sidecar_json(tasks, Default::default())
}

fn extract(trace: &Path) -> Demand {
    replay::extract(trace, &replay::Options::default())
        .unwrap()
        .demand
}

fn sched(from: SchedFrom, nice_from: SchedFrom, rt: Option<u32>, as_: Option<&str>) -> Sched {
    Sched {
        policy_from: from,
        nice_from,
        rt_priority: rt,
        replayed_as: as_.map(str::to_string),
    }
}

type Class = (Policy, Option<i32>, Option<i32>, Sched);

fn class(d: &Demand, pid: i32) -> Class {
    let t = task(d, pid);
    (t.policy, t.nice, t.prio, t.sched.clone())
}

#[test]
fn the_recorded_policy_and_nice_win_over_the_traced_priority() {
    use SchedFrom::{None as Neither, Recorded, Traced};
    let plain_trace = scratch("policy-plain", None);
    let plain = extract(&plain_trace);
    let trace = scratch("policy-recorded", Some(&sidecar()));
    let d = extract(&trace);

    // Without the sidecar: the traced priorities (the fixture runs nice 0 and 5).
    let normal = |nice| {
        (
            Policy::Normal,
            Some(nice),
            Some(120 + nice),
            sched(Traced, Traced, None, None),
        )
    };
    assert_eq!(class(&plain, NICE0), normal(0));
    assert_eq!(class(&plain, NICE5), normal(5));
    assert_eq!(class(&plain, SCHEDWL), normal(0));

    // With it: what the recording said at each task's last traced moment.
    assert_eq!(
        class(&d, NICE0),
        (
            Policy::Batch,
            Some(0),
            Some(120),
            sched(Recorded, Recorded, None, None)
        )
    );
    assert_eq!(
        class(&d, NICE5),
        (
            Policy::Other,
            Some(3),
            Some(125),
            sched(Recorded, Recorded, None, None)
        )
    );
    assert_eq!(
        class(&d, SCHEDWL),
        (
            Policy::Fifo,
            None,
            Some(120),
            sched(Recorded, Neither, Some(30), None)
        )
    );

    // Nothing else changed: every other task (the kernel threads' traced classes), every
    // phase, the run's facts.
    let mut expected = plain.clone();
    expected.source = d.source.clone();
    for t in &mut expected.tasks {
        if [NICE0, NICE5, SCHEDWL].contains(&t.pid) {
            let got = task(&d, t.pid);
            (t.policy, t.nice, t.sched) = (got.policy, got.nice, got.sched.clone());
            // Their samples' masks (every CPU) are recorded too.
            assert_eq!((&got.cpus, got.free_bursts), (&vec![0, 1, 2, 3], 0));
            (t.cpus, t.cpus_from) = (got.cpus.clone(), got.cpus_from);
        }
    }
    assert_eq!(d, expected);
    // The fixture's `migration/N` threads are traced real-time: FIFO 99 for rt-app and the
    // simulator (the trace does not tell FIFO from RR, nor the stop class).
    let migration = d
        .tasks
        .iter()
        .find(|t| t.comm.starts_with("migration/"))
        .unwrap();
    assert_eq!(
        (migration.policy, migration.prio, migration.sched.clone()),
        (
            Policy::RealTime,
            Some(0),
            sched(Traced, Neither, Some(99), Some("SCHED_FIFO 99"))
        )
    );

    // The demand JSON says it plainly, and reads back the same.
    let json = serde_json::to_value(&d).unwrap();
    let t = json["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["pid"] == SCHEDWL)
        .unwrap();
    assert_eq!(t["policy"], "fifo");
    assert_eq!(t["policy_from"], "recorded");
    assert_eq!(t["nice_from"], "none");
    assert_eq!(t["rt_priority"], 30);
    assert_eq!(t.get("replayed_as"), None);
    assert_eq!(json["schema_version"], 3);
    let back: Demand = serde_json::from_value(json).unwrap();
    assert_eq!(back, d);

    // rt-app's policy and priority.
    let rtapp: serde_json::Value =
        serde_json::from_str(&replay::rtapp::write(&d, 4, d.cpus)).unwrap();
    let of = |name: &str| {
        let t = &rtapp["tasks"][name];
        (
            t["policy"].as_str().unwrap(),
            t["priority"].as_i64().unwrap(),
        )
    };
    assert_eq!(of("nice-n0-272"), ("SCHED_OTHER", 0));
    assert_eq!(of("nice-n5-273"), ("SCHED_OTHER", 3));
    assert_eq!(of("schedwl-271"), ("SCHED_FIFO", 30));

    // Every model runs schedwl as FIFO 30 (kernel priority 99 - 30 = 69 on every scale)
    // and nice-n5 at 3: the priority its predicted events carry is its scale's for that
    // nice (mainline 120 + nice, PDS 172 + nice, BMQ 127 + nice: `static_prio +
    // MAX_PRIORITY_ADJ`).
    for model in ModelName::ALL {
        let p = replay::sim::simulate(&d, model, Default::default()).unwrap();
        let base = match model {
            ModelName::Cfs | ModelName::Eevdf => 120,
            ModelName::Pds => 172,
            ModelName::Bmq => 127,
        };
        for (pid, prio) in [(SCHEDWL, 69), (NICE5, base + 3)] {
            let prios = switched_in_prios(&p.schedule.records, task(&d, pid).id);
            assert!(!prios.is_empty(), "{model:?}: pid {pid}");
            assert!(
                prios.iter().all(|&q| q == prio),
                "{model:?}: pid {pid}: {prios:?}"
            );
        }
        // A real-time task is never preempted by a fair one: every switch away from
        // schedwl while it still had work is to a real-time task (none here) or it blocked.
        let schedwl = task(&d, SCHEDWL).id;
        assert!(
            p.schedule.records.iter().all(|r| !matches!(
                *r,
                Record::Switch { prev: Some(w), left: replay::sim::schedule::Left::Preempted, next: Some(n), .. }
                    if w.task == schedwl && n.prio >= 100
            )),
            "{model:?}"
        );
    }
    clean(&[&trace, &plain_trace]);
}

/// The priorities the task with demand id `id` carries at each switch-in.
fn switched_in_prios(records: &[Record], id: usize) -> Vec<i32> {
    records
        .iter()
        .filter_map(|r| match *r {
            Record::Switch {
                next: Some(who), ..
            } if who.task == id => Some(who.prio),
            _ => None,
        })
        .collect()
}
