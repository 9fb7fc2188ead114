//! The demand's allowed CPUs from a recording's sidecar and `--affinity` rules, on the CFS
//! `nice` fixture (two spinners the VM pinned to CPU 1, their parent `schedwl` on CPU 2)
//! with a sidecar written beside it in a scratch folder: the recorded masks win, a rule
//! covers a task the recording did not sample, the rest keep the CPUs they ran on; the
//! demand is otherwise the same, rt-app's `cpus` follow, and the simulated schedule runs
//! each task only where its mask allows. The sidecar's HZ is the demand's.

use crate::{build, clean, scratch, sidecar_json, task, NICE0, NICE5, SCHEDWL};
use analysis::affinity::Affinity;
use analysis::recording::TaskSample;
use replay::demand::{CpusFrom, Demand, HzSource};
use replay::sim::model::ModelName;
use replay::sim::schedule::Record;
use std::path::Path;
use std::sync::Arc;

/// Between `nice-n0`'s first burst (80.8281-80.8296 s) and its second (from 80.8587 s).
const PINNED_AT: u64 = 80_840_000_000;

/// A sample of a SCHED_OTHER task at the nice the fixture traced it at.
fn sample(ts_ns: u64, pid: i32, comm: &str, cpus: &str) -> TaskSample {
    TaskSample {
        nice: if pid == NICE5 { 5 } else { 0 },
        ts_ns,
        why: "first".into(),
        pid,
        tgid: pid,
        comm: comm.into(),
        cpus: cpus.into(),
        policy: "SCHED_OTHER".into(),
        ..Default::default()
    }
}

/// `nice-n0` free until [`PINNED_AT`], then pinned to CPU 2; `nice-n5` pinned to CPU 2 from
/// its first sample; `schedwl` not sampled.
fn sidecar() -> Vec<u8> {
    let tasks = vec![
        sample(80_828_000_000, NICE0, "nice-n0", "0-3"),
        sample(80_829_000_000, NICE5, "nice-n5", "2"),
        sample(PINNED_AT, NICE0, "nice-n0", "2"),
    ];
    let host = analysis::recording::Host {
        hz: Some(300),
        hz_source: "CONFIG_HZ in /proc/config.gz".into(),
        ..Default::default()
    };
    sidecar_json(tasks, host)
}

fn extract(trace: &Path, rules: &[&str]) -> Result<Demand, String> {
    let mut options = replay::Options::default();
    if !rules.is_empty() {
        let rules: Vec<String> = rules.iter().map(|r| r.to_string()).collect();
        options.analysis.config.affinity = Some(Arc::new(Affinity::from_rules(&rules).unwrap()));
    }
    replay::extract(trace, &options).map(|e| e.demand)
}

#[test]
fn recorded_masks_then_rules_then_observed_cpus() {
    let plain_trace = scratch("affinity-plain", None);
    let plain = extract(&plain_trace, &[]).unwrap();
    let trace = scratch("affinity-recorded", Some(&sidecar()));
    let d = extract(&trace, &["^schedwl$=3", "^nice-n5$=0"]).unwrap();

    let of = |d: &Demand, pid| {
        let t = task(d, pid);
        (t.cpus.clone(), t.cpus_from, t.free_bursts)
    };
    // Without the sidecar: what the fixture shows (spinners on CPU 1, the parent on 2).
    assert_eq!(of(&plain, NICE0), (vec![1], CpusFrom::Observed, 0));
    assert_eq!(of(&plain, NICE5), (vec![1], CpusFrom::Observed, 0));
    assert_eq!(of(&plain, SCHEDWL), (vec![2], CpusFrom::Observed, 0));
    // With it: nice-n0's first burst ended before it was pinned, so it is free; nice-n5's
    // recording beats the rule that names it; schedwl, not sampled, takes its rule.
    assert_eq!(of(&d, NICE0), (vec![2], CpusFrom::Recorded, 1));
    assert_eq!(of(&d, NICE5), (vec![2], CpusFrom::Recorded, 0));
    assert_eq!(of(&d, SCHEDWL), (vec![3], CpusFrom::Given, 0));

    // The sidecar's HZ (300) beats the one detected from the tick grid (250).
    assert_eq!((plain.hz.value, plain.hz.source), (250, HzSource::Detected));
    assert_eq!((d.hz.value, d.hz.source), (300, HzSource::Recorded));

    // Nothing else changed: every other task, every phase, the run's facts.
    let mut expected = plain.clone();
    expected.source = d.source.clone();
    expected.hz = d.hz;
    for t in &mut expected.tasks {
        let got = task(&d, t.pid);
        if [NICE0, NICE5, SCHEDWL].contains(&t.pid) {
            (t.cpus, t.cpus_from, t.free_bursts) =
                (got.cpus.clone(), got.cpus_from, got.free_bursts);
        }
        // The spinners' policy and nice are recorded too (the same nice as traced).
        if [NICE0, NICE5].contains(&t.pid) {
            (t.policy, t.sched) = (got.policy, got.sched.clone());
        }
    }
    assert_eq!(d, expected);

    // rt-app's cpus are the demand's.
    let rtapp: serde_json::Value =
        serde_json::from_str(&replay::rtapp::write(&d, 4, d.cpus)).unwrap();
    assert_eq!(
        rtapp["tasks"]["nice-n0-272"]["cpus"],
        serde_json::json!([2])
    );
    assert_eq!(
        rtapp["tasks"]["nice-n5-273"]["cpus"],
        serde_json::json!([2])
    );
    assert_eq!(
        rtapp["tasks"]["schedwl-271"]["cpus"],
        serde_json::json!([3])
    );

    // The demand JSON says where each task's CPUs came from.
    let json = serde_json::to_value(&d).unwrap();
    let sources: Vec<&str> = json["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| [NICE0, NICE5, SCHEDWL].contains(&(t["pid"].as_i64().unwrap() as i32)))
        .map(|t| t["cpus_from"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["given", "recorded", "recorded"]);
    clean(&[&trace, &plain_trace]);
}

/// When the task with demand id `id` was first woken from a block (not its fork's wakeup).
fn first_wakeup(records: &[Record], id: usize) -> u64 {
    records
        .iter()
        .find_map(|r| match *r {
            Record::Wakeup {
                ts,
                task,
                new: false,
                ..
            } if task.task == id => Some(ts),
            _ => None,
        })
        .unwrap()
}

/// The CPUs each switch-in of the task with demand id `id` ran on, with its time.
fn switch_ins(records: &[Record], id: usize) -> Vec<(u64, usize)> {
    records
        .iter()
        .filter_map(|r| match *r {
            Record::Switch {
                ts,
                cpu,
                next: Some(who),
                ..
            } if who.task == id => Some((ts, cpu)),
            _ => None,
        })
        .collect()
}

#[test]
fn every_model_runs_each_task_only_where_its_mask_allows() {
    let trace = scratch("affinity-simulated", Some(&sidecar()));
    let d = extract(&trace, &["^schedwl$=3"]).unwrap();
    let id = |pid| task(&d, pid).id;
    for model in ModelName::ALL {
        let p = replay::sim::simulate(&d, model, Default::default()).unwrap();
        let records = &p.schedule.records;
        let cpus = |ins: &[(u64, usize)]| {
            let mut c: Vec<usize> = ins.iter().map(|&(_, cpu)| cpu).collect();
            c.dedup();
            c.sort_unstable();
            c.dedup();
            c
        };
        assert_eq!(cpus(&switch_ins(records, id(NICE5))), [2], "{model:?}");
        assert_eq!(cpus(&switch_ins(records, id(SCHEDWL))), [3], "{model:?}");
        // nice-n0 is held to CPU 2 from its second burst, which begins at its first wakeup
        // after a block (its first wakeup is its fork's).
        let woken = first_wakeup(records, id(NICE0));
        let after: Vec<(u64, usize)> = switch_ins(records, id(NICE0))
            .into_iter()
            .filter(|&(ts, _)| ts >= woken)
            .collect();
        assert_eq!(cpus(&after), [2], "{model:?}");
    }
    clean(&[&trace]);
}

#[test]
fn a_broken_sidecar_is_an_error_naming_it() {
    let trace = scratch(
        "broken",
        Some(b"{\"schedtrace_recording\": 1, \"tasks\": ["),
    );
    let err = extract(&trace, &[]).unwrap_err();
    let sidecar = trace.with_file_name("trace-v6.dat.schedtrace.json");
    assert!(err.contains(&sidecar.display().to_string()), "{err}");
    assert!(err.contains("not JSON"), "{err}");
    clean(&[&trace]);
}

/// Two CPUs, each kept busy by a pinned spinner (0 on CPU 0, 1 on CPU 1); task 2, forked by
/// task 0, runs 2 ms bursts between 3 ms sleeps, its first burst free and the rest pinned
/// to CPU 1: its first burst runs beside its parent on CPU 0 (both CPUs busy: the
/// previous CPU), the later ones only on CPU 1. Under EEVDF it blocks ineligible after its
/// first burst, so DELAY_DEQUEUE keeps it queued on CPU 0: its wakeup must still move it,
/// as the kernel's `set_cpus_allowed` moves a queued task off a CPU it may no longer use.
#[test]
fn a_task_pinned_after_its_free_bursts_leaves_its_old_cpu() {
    use build::{burst, demand, sleep, task, MS};
    let mut phases = vec![burst(2 * MS)];
    for _ in 0..10 {
        phases.extend([sleep(MS / 2), burst(2 * MS)]);
    }
    let mut pinner = task(2, "pinner", 0, &[1], phases);
    pinner.free_bursts = 1;
    pinner.start_ns = MS;
    pinner.fork = Some(replay::demand::Fork {
        parent: Some(0),
        parent_pid: 100,
        at_ns: MS,
    });
    let d = demand(
        2,
        100 * MS,
        vec![
            task(0, "spin0", 0, &[0], vec![burst(1_000 * MS)]),
            task(1, "spin1", 0, &[1], vec![burst(1_000 * MS)]),
            pinner,
        ],
    );
    for model in ModelName::ALL {
        let p = replay::sim::simulate(&d, model, Default::default()).unwrap();
        let ins = switch_ins(&p.schedule.records, 2);
        let first_free: Vec<usize> = ins.iter().take(1).map(|&(_, c)| c).collect();
        assert_eq!(
            first_free,
            [0],
            "{model:?}: the free burst beside its parent"
        );
        let woken = first_wakeup(&p.schedule.records, 2);
        let later: Vec<(u64, usize)> = ins.into_iter().filter(|&(ts, _)| ts >= woken).collect();
        assert!(later.len() >= 10, "{model:?}: {later:?}");
        assert!(later.iter().all(|&(_, c)| c == 1), "{model:?}: {later:?}");
    }
}
