//! `schedtrace replay` of a recording: the demand takes each task's allowed CPUs from the
//! sidecar, a mask changed mid-run included, and the models run the tasks only there; and
//! its policy and nice (a SCHED_BATCH task the trace alone shows as a plain nice-5 one).

use crate::support::{perf_script, run, spinner, start};
use replay::demand::{CpusFrom, Demand, Phase, TimedBy, Wake};
use replay::sim::schedule::Record;
use serde_json::Value;
use std::path::Path;

/// A shell that spins `n` loop turns, sleeps 50 ms (its first burst ends, unpinned), spins
/// again, pins itself to CPU 1 with `taskset -p` (no exec: the recorder sees it at its
/// next periodic sample), spins `n` turns more and writes its pid to `out`.
fn self_pinner(n: u32, out: &Path) -> String {
    format!(
        "sh -c 'i=0; while [ $i -lt {n} ]; do i=$((i+1)); done; sleep 0.05; \
         i=0; while [ $i -lt {n} ]; do i=$((i+1)); done; taskset -p -c 1 $$ >/dev/null; \
         i=0; while [ $i -lt {n} ]; do i=$((i+1)); done; echo $$ > {}'",
        out.display()
    )
}

/// The times (ns) `pid` was switched out blocked (every state but runnable), as `perf
/// script` prints the file's events: each ends one of its bursts.
fn blocking_switch_outs(trace: &Path, pid: u64) -> Vec<u64> {
    let prev = format!("prev_pid={pid} ");
    perf_script(trace, &["--ns", "-F", "time,event,trace"])
        .lines()
        .filter(|l| {
            l.contains("sched:sched_switch:") && l.contains(&prev) && !l.contains("prev_state=R")
        })
        .map(|l| {
            let time = l.trim().split(':').next().unwrap().trim();
            let (s, ns) = time.split_once('.').unwrap();
            s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap()
        })
        .collect()
}

/// Worked out from the sidecar and `perf script` alone: the task's last recorded mask took
/// effect at the first sample of its last run of equal samples; the bursts that ended
/// before that sample ended under the earlier mask, and are free (none when the task was
/// sampled with its last mask from the start).
fn expected_free_bursts(rec: &Value, trace: &Path, pid: u64) -> (String, u32) {
    let mut samples: Vec<(u64, String)> = rec["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["pid"].as_u64() == Some(pid))
        .map(|s| {
            (
                s["ts_ns"].as_u64().unwrap(),
                s["cpus"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    samples.sort();
    let last = samples.last().expect("sampled").1.clone();
    let since = samples
        .iter()
        .rposition(|s| s.1 != last)
        .map(|i| samples[i + 1].0);
    let free = since.map_or(0, |t| {
        blocking_switch_outs(trace, pid)
            .iter()
            .filter(|&&end| end < t)
            .count() as u32
    });
    (last, free)
}

/// The CPUs task `id` was switched in on at or after `from` ns, and how many switch-ins.
fn switched_in_on(records: &[Record], id: usize, from: u64) -> (Vec<usize>, usize) {
    let mut cpus = Vec::new();
    let mut n = 0;
    for r in records {
        if let Record::Switch {
            ts,
            cpu,
            next: Some(who),
            ..
        } = *r
        {
            if who.task == id && ts >= from {
                n += 1;
                if !cpus.contains(&cpu) {
                    cpus.push(cpu);
                }
            }
        }
    }
    cpus.sort_unstable();
    (cpus, n)
}

/// When task `t` is held to its CPUs in a simulated schedule, at the latest: its start when
/// no burst is free, else its `free_bursts`-th wakeup after a block (a task whose phases begin
/// with a burst begins each later burst at a wakeup, or without one when its block was
/// already released: then that wakeup comes later, never earlier).
fn held_from(records: &[Record], t: &replay::demand::TaskDemand) -> u64 {
    if t.free_bursts == 0 {
        return 0;
    }
    assert!(matches!(t.phases[0], Phase::Burst { .. }), "pid {}", t.pid);
    records
        .iter()
        .filter_map(|r| match *r {
            Record::Wakeup {
                ts,
                task,
                new: false,
                ..
            } if task.task == t.id => Some(ts),
            _ => None,
        })
        .nth(t.free_bursts as usize - 1)
        .expect("woken after its free bursts")
}

#[test]
fn a_replay_of_a_recording_keeps_each_tasks_recorded_cpus() {
    let Some((_one, dir)) = start(
        "a_replay_of_a_recording_keeps_each_tasks_recorded_cpus",
        "replay",
    ) else {
        return;
    };
    let trace = dir.join("replay.perf.data");
    let (pinned, free, pins) = (dir.join("pinned"), dir.join("free"), dir.join("pins"));
    let batch = dir.join("batch");
    // A spinner pinned by taskset from its exec, one left free, one pinning itself
    // half-way (the three at once on a 2-CPU machine), and one made SCHED_BATCH at nice 5
    // by `nice` and `chrt` before its exec (the events trace it as `120 + 5`, no policy).
    let script = format!(
        "taskset -c 1 {} & {} & {} & nice -n 5 chrt -b 0 {} & wait",
        spinner(300_000, &pinned),
        spinner(300_000, &free),
        self_pinner(100_000, &pins),
        spinner(100_000, &batch)
    );
    let out = run(&[
        "record",
        "-q",
        "--sample-every",
        "10ms",
        "-o",
        trace.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        &script,
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rec: Value = serde_json::from_slice(
        &std::fs::read(dir.join("replay.perf.data.schedtrace.json")).unwrap(),
    )
    .unwrap();

    let (demand_json, rtapp_json) = (dir.join("demand.json"), dir.join("rt-app.json"));
    let predicted = dir.join("cfs.predicted.pftrace");
    let out = run(&[
        "replay",
        trace.to_str().unwrap(),
        "--demand-json",
        demand_json.to_str().unwrap(),
        "--rt-app",
        rtapp_json.to_str().unwrap(),
        "--as",
        "cfs",
        "-o",
        predicted.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let demand: Demand = serde_json::from_slice(&std::fs::read(&demand_json).unwrap()).unwrap();
    let rtapp: Value = serde_json::from_slice(&std::fs::read(&rtapp_json).unwrap()).unwrap();

    // The tick rate is the recording's (`record` read the kernel's CONFIG_HZ).
    if let Some(hz) = rec["host"]["hz"].as_u64() {
        assert_eq!(
            (u64::from(demand.hz.value), demand.hz.source),
            (hz, replay::demand::HzSource::Recorded)
        );
    }
    let pid_of = |file: &Path| {
        std::fs::read_to_string(file)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    let all: Vec<u32> = (0..demand.cpus).collect();
    for (file, cpus) in [(&pinned, vec![1]), (&free, all), (&pins, vec![1])] {
        let pid = pid_of(file);
        let t = demand.tasks.iter().find(|t| t.pid as u64 == pid).unwrap();
        let (last, ended_before) = expected_free_bursts(&rec, &trace, pid);
        assert_eq!(
            (&t.cpus, t.cpus_from),
            (&cpus, CpusFrom::Recorded),
            "pid {pid}, last sample {last}"
        );
        // A burst also ends where the analysis lost the task's state (a context-switch bug
        // of the file: `quality.context_switch_bugs`), at a time the demand does not keep:
        // each such block may or may not fall before the change.
        let lost = t
            .phases
            .iter()
            .filter(|p| {
                matches!(
                    p,
                    Phase::Block {
                        wake: Wake::Timed {
                            source: TimedBy::Lost,
                            ..
                        },
                        ..
                    }
                )
            })
            .count() as u32;
        assert!(
            (ended_before..=ended_before + lost).contains(&t.free_bursts),
            "pid {pid}: {} free bursts, {ended_before} ended blocked before its last mask, \
             {lost} lost blocks",
            t.free_bursts
        );
        assert_eq!(
            rtapp["tasks"][replay::rtapp::thread_name(t)]["cpus"],
            serde_json::json!(cpus),
            "pid {pid}"
        );
    }
    // The batch spinner's policy and nice are the recording's: the trace alone says
    // `normal` at nice 5. The models run it as SCHED_BATCH at nice 5: nothing replayed as
    // another policy.
    let batch_task = demand
        .tasks
        .iter()
        .find(|t| t.pid as u64 == pid_of(&batch))
        .unwrap();
    let recorded = |from| from == replay::demand::SchedFrom::Recorded;
    assert_eq!(
        (
            batch_task.policy,
            batch_task.nice,
            batch_task.prio,
            recorded(batch_task.sched.policy_from),
            recorded(batch_task.sched.nice_from),
            batch_task.sched.replayed_as.as_deref()
        ),
        (
            replay::demand::Policy::Batch,
            Some(5),
            Some(125),
            true,
            true,
            None
        ),
        "pid {}",
        batch_task.pid
    );
    let name = replay::rtapp::thread_name(batch_task);
    assert_eq!(
        (
            &rtapp["tasks"][&name]["policy"],
            &rtapp["tasks"][&name]["priority"]
        ),
        (&serde_json::json!("SCHED_OTHER"), &serde_json::json!(5))
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("policies replayed as another"), "{stderr}");

    // The self-pinner's first burst (before its sleep) ended 50 ms before it pinned itself.
    let pins_task = demand
        .tasks
        .iter()
        .find(|t| t.pid as u64 == pid_of(&pins))
        .unwrap();
    assert!(pins_task.free_bursts >= 1, "{}", pins_task.free_bursts);

    // Every model runs both pinned tasks only on CPU 1 from their first burst after their
    // free ones (the taskset spinner's: the bursts it ran as the forked shell and taskset,
    // if the recorder read its mask only at its second exec).
    let pinned_task = demand
        .tasks
        .iter()
        .find(|t| t.pid as u64 == pid_of(&pinned))
        .unwrap();
    for model in replay::sim::model::ModelName::ALL {
        let p = replay::sim::simulate(&demand, model, Default::default()).unwrap();
        let records = &p.schedule.records;
        for t in [pinned_task, pins_task] {
            let from = held_from(records, t);
            let (cpus, n) = switched_in_on(records, t.id, from);
            assert!(n > 0, "{model:?}: pid {}", t.pid);
            assert_eq!(
                cpus,
                [1],
                "{model:?}: pid {} from {from} ns ({n} switch-ins, {} free bursts)",
                t.pid,
                t.free_bursts
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
