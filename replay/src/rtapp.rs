//! The demand as rt-app JSON (rt-app 1.0, Debian's `rt-app`), so the workload can run
//! again on a real kernel: a burst is `run` (calibrated loops: CPU work, which a preemption
//! delays but does not use up), a timed block `sleep`, nice is `priority`, the allowed CPUs
//! `cpus`, a task's start its `delay`; every task runs its sequence once (`loop` 1).
//!
//! Dependencies. rt-app's `resume` is a condition broadcast and `suspend` a condition wait,
//! so a resume sent before its peer suspends is lost, and a ping-pong pair on one CPU
//! loses one at once (the woken peer preempts the waker before it suspends). Two tasks that
//! only ever wake each other are therefore written as a pair on one condition and mutex:
//! a burst that wakes the peer and then waits for it is `sync` (signal and wait with the
//! mutex held across both, so no wakeup is lost), a wake alone is `lock`/`signal`/`unlock`,
//! a wait alone `lock`/`wait`/`unlock`; the pair's first runner starts [`PAIR_HEAD_START_US`]
//! late so that its peer is waiting. Other dependencies use `resume`/`suspend`, with that
//! race. A wake is sent at the end of the waker's burst, not `into_ns` into it.
//!
//! Which tasks: user tasks that ran (kernel threads and the tracer itself are the traced
//! machine's, not the workload's). rt-app names threads by these keys, `comm-pid`.
//!
//! rt-app reads events in the order written and keys them by name prefix (`run3`,
//! `sleep4`), so the text is written here in order (serde_json's map sorts its keys).

use crate::demand::{Demand, Phase, Policy, TaskDemand, Wake};
use crate::kthread::is_kernel_thread;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// The delay of a pair's first runner, so that its peer waits before the first signal.
pub const PAIR_HEAD_START_US: u64 = 10_000;

/// Recorders whose own threads are in the trace.
const TRACERS: [&str; 3] = ["trace-cmd", "perf", "rt-app"];

/// Whether `task` is part of the workload rt-app re-runs.
pub fn in_workload(task: &TaskDemand) -> bool {
    task.runtime_ns > 0 && !is_kernel_thread(&task.comm) && !TRACERS.contains(&task.comm.as_str())
}

/// The name rt-app gives `task`'s thread.
pub fn thread_name(task: &TaskDemand) -> String {
    format!("{}-{}", task.comm, task.pid)
}

/// rt-app JSON of the workload in `demand`, running at most `duration_s` seconds.
pub fn write(demand: &Demand, duration_s: u32) -> String {
    let tasks: Vec<&TaskDemand> = demand.tasks.iter().filter(|t| in_workload(t)).collect();
    let kept: BTreeSet<usize> = tasks.iter().map(|t| t.id).collect();
    let wakes = wakes_by_waker(demand, &kept);
    let pairs = pairs(demand, &kept);
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\n  \"global\": {{\n    \"duration\": {duration_s},\n    \"calibration\": \"CPU0\",\n    \
         \"default_policy\": \"SCHED_OTHER\",\n    \"log_size\": \"disable\",\n    \"logdir\": \"/tmp\"\n  }},\n  \"tasks\": {{"
    );
    for (n, task) in tasks.iter().enumerate() {
        let sep = if n == 0 { "" } else { "," };
        let _ = write!(out, "{sep}\n    {}: {{", quoted(&thread_name(task)));
        let mut fields = vec![("loop".to_string(), "1".to_string())];
        if let Some(nice) = task.nice.filter(|_| task.policy == Policy::Normal) {
            fields.push(("priority".into(), nice.to_string()));
        }
        let cpus: Vec<String> = task.cpus.iter().map(u32::to_string).collect();
        fields.push(("cpus".into(), format!("[{}]", cpus.join(", "))));
        let mut delay_us = task.start_ns.saturating_sub(demand.start_ns) / 1000;
        let pair = pairs.get(&task.id).copied();
        if let Some(peer) = pair {
            if first_runner(task, &demand.tasks[peer]) {
                delay_us += PAIR_HEAD_START_US;
            }
        }
        if delay_us > 0 {
            fields.push(("delay".into(), delay_us.to_string()));
        }
        let events = events(task, &wakes, pair, demand);
        for (i, (name, value)) in fields.into_iter().chain(events).enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let _ = write!(out, "{sep}\n      {}: {value}", quoted(&name));
        }
        out.push_str("\n    }");
    }
    out.push_str("\n  }\n}\n");
    out
}

/// Per waker task and burst index, the tasks it wakes then (kept tasks only).
fn wakes_by_waker(demand: &Demand, kept: &BTreeSet<usize>) -> BTreeMap<(usize, u32), Vec<usize>> {
    let mut wakes: BTreeMap<(usize, u32), Vec<usize>> = BTreeMap::new();
    for task in demand.tasks.iter().filter(|t| kept.contains(&t.id)) {
        for phase in &task.phases {
            if let Phase::Block {
                wake:
                    Wake::Dependency {
                        task: waker,
                        after_bursts,
                        ..
                    },
                ..
            } = phase
            {
                if kept.contains(waker) {
                    wakes
                        .entry((*waker, *after_bursts))
                        .or_default()
                        .push(task.id);
                }
            }
        }
    }
    wakes
}

/// Tasks whose every dependency is on one peer, whose every dependency is on them.
fn pairs(demand: &Demand, kept: &BTreeSet<usize>) -> BTreeMap<usize, usize> {
    let wakers = |t: &TaskDemand| -> BTreeSet<usize> {
        t.phases
            .iter()
            .filter_map(|p| match p {
                Phase::Block {
                    wake: Wake::Dependency { task, .. },
                    ..
                } if kept.contains(task) => Some(*task),
                _ => None,
            })
            .collect()
    };
    let sets: BTreeMap<usize, BTreeSet<usize>> = kept
        .iter()
        .map(|&id| (id, wakers(&demand.tasks[id])))
        .collect();
    let mut woken_by: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (&id, set) in &sets {
        for &w in set {
            woken_by.entry(w).or_default().insert(id);
        }
    }
    let only =
        |s: Option<&BTreeSet<usize>>| s.filter(|s| s.len() == 1).and_then(|s| s.first().copied());
    sets.keys()
        .filter_map(|&a| {
            let b = only(sets.get(&a))?;
            let mutual = only(sets.get(&b)) == Some(a)
                && only(woken_by.get(&a)) == Some(b)
                && only(woken_by.get(&b)) == Some(a);
            mutual.then_some((a, b))
        })
        .collect()
}

/// Of a pair, the task whose first burst comes before its first wait.
fn first_runner(task: &TaskDemand, peer: &TaskDemand) -> bool {
    let starts_running = |t: &TaskDemand| matches!(t.phases.first(), Some(Phase::Burst { .. }));
    starts_running(task) && (!starts_running(peer) || task.id < peer.id)
}

fn pair_names(a: usize, b: usize) -> (String, String) {
    let (lo, hi) = (a.min(b), a.max(b));
    (format!("pair{lo}-{hi}"), format!("pair{lo}-{hi}-mutex"))
}

/// The events of `task`, keyed `kindN`.
fn events(
    task: &TaskDemand,
    wakes: &BTreeMap<(usize, u32), Vec<usize>>,
    pair: Option<usize>,
    demand: &Demand,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut push = |kind: &str, value: String| {
        let key = format!("{kind}{}", out.len());
        out.push((key, value));
    };
    let mut burst = 0u32;
    let mut phases = task.phases.iter().peekable();
    while let Some(phase) = phases.next() {
        match *phase {
            Phase::Burst { ns } => {
                push("run", (ns / 1000).max(1).to_string());
                let woken = wakes.get(&(task.id, burst)).map_or(&[][..], |v| &v[..]);
                burst += 1;
                let waits_on_peer = matches!(
                    phases.peek(),
                    Some(Phase::Block { wake: Wake::Dependency { task: w, .. }, .. }) if Some(*w) == pair
                );
                for &other in woken {
                    if Some(other) == pair {
                        let (cond, mutex) = pair_names(task.id, other);
                        if waits_on_peer {
                            push(
                                "sync",
                                format!(
                                    "{{\"ref\": {}, \"mutex\": {}}}",
                                    quoted(&cond),
                                    quoted(&mutex)
                                ),
                            );
                            phases.next();
                        } else {
                            push("lock", quoted(&mutex));
                            push("signal", quoted(&cond));
                            push("unlock", quoted(&mutex));
                        }
                    } else {
                        push("resume", quoted(&thread_name(&demand.tasks[other])));
                    }
                }
            }
            Phase::Block { ns, wake } => match wake {
                Wake::Dependency { task: w, .. } if Some(w) == pair => {
                    let (cond, mutex) = pair_names(task.id, w);
                    push("lock", quoted(&mutex));
                    push(
                        "wait",
                        format!(
                            "{{\"ref\": {}, \"mutex\": {}}}",
                            quoted(&cond),
                            quoted(&mutex)
                        ),
                    );
                    push("unlock", quoted(&mutex));
                }
                Wake::Dependency { task: w, .. } if in_workload(&demand.tasks[w]) => {
                    push("suspend", quoted(&thread_name(task)));
                }
                _ => push("sleep", (ns / 1000).max(1).to_string()),
            },
        }
    }
    out
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demand::{Hz, HzSource, Ledger, TaskEnd, TimedBy};

    fn task(id: usize, comm: &str, phases: Vec<Phase>) -> TaskDemand {
        TaskDemand {
            id,
            pid: 100 + id as i32,
            tgid: None,
            comm: comm.into(),
            prio: Some(120),
            nice: Some(id as i32),
            policy: Policy::Normal,
            cpus: vec![1],
            fork: None,
            start_ns: 1_000_000,
            end: TaskEnd::Running,
            runtime_ns: phases
                .iter()
                .map(|p| if let Phase::Burst { ns } = p { *ns } else { 0 })
                .sum(),
            phases,
        }
    }

    fn dep(task: usize, after_bursts: u32) -> Phase {
        Phase::Block {
            ns: 5_000,
            wake: Wake::Dependency {
                task,
                pid: 100 + task as i32,
                after_bursts,
                into_ns: 0,
            },
        }
    }

    fn demand(tasks: Vec<TaskDemand>) -> Demand {
        Demand {
            schema_version: 1,
            source: "t".into(),
            kernel_release: None,
            scheduler: "CFS".into(),
            cpus: 2,
            llcs: vec![vec![0, 1]],
            topology_source: "assumed".into(),
            hz: Hz {
                value: 250,
                source: HzSource::Assumed,
            },
            start_ns: 1_000_000,
            end_ns: 9_000_000,
            tasks,
            ledger: Ledger::default(),
        }
    }

    #[test]
    fn a_ping_pong_pair_syncs_and_its_first_runner_starts_late() {
        let b = |ns| Phase::Burst { ns };
        let a = task(
            0,
            "ping",
            vec![b(3_000), dep(1, 0), b(4_000), dep(1, 1), b(2_000)],
        );
        let p = task(1, "pong", vec![dep(0, 0), b(6_000), dep(0, 1), b(7_000)]);
        let json: serde_json::Value = serde_json::from_str(&write(&demand(vec![a, p]), 2)).unwrap();
        let ping = &json["tasks"]["ping-100"];
        assert_eq!(ping["delay"], 10_000);
        assert_eq!(ping["priority"], 0);
        assert_eq!(ping["cpus"], serde_json::json!([1]));
        assert_eq!(ping["run0"], 3);
        assert_eq!(ping["sync1"]["ref"], "pair0-1");
        assert_eq!(ping["run2"], 4);
        assert_eq!(ping["sync3"]["mutex"], "pair0-1-mutex");
        assert_eq!(ping["run4"], 2);
        let pong = &json["tasks"]["pong-101"];
        assert!(pong.get("delay").is_none());
        assert_eq!(pong["lock0"], "pair0-1-mutex");
        assert_eq!(pong["wait1"]["ref"], "pair0-1");
        assert_eq!(pong["unlock2"], "pair0-1-mutex");
        assert_eq!(pong["run3"], 6);
        assert_eq!(pong["sync4"]["ref"], "pair0-1");
        assert_eq!(pong["run5"], 7);
        // Its last burst wakes ping, which then waits no more: a signal alone.
        assert_eq!(pong["lock6"], "pair0-1-mutex");
        assert_eq!(pong["signal7"], "pair0-1");
        assert_eq!(pong["unlock8"], "pair0-1-mutex");
        // The text keeps the events in order (rt-app runs them as written).
        let text = write(
            &demand(vec![task(
                0,
                "x",
                vec![
                    b(2_000),
                    Phase::Block {
                        ns: 9_000,
                        wake: Wake::Timed {
                            source: TimedBy::Idle,
                            waker_pid: Some(0),
                        },
                    },
                    b(1_000),
                ],
            )]),
            1,
        );
        let order: Vec<usize> = ["\"run0\"", "\"sleep1\"", "\"run2\""]
            .iter()
            .map(|k| text.find(k).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    }

    #[test]
    fn kernel_threads_and_tracers_stay_out() {
        let b = Phase::Burst { ns: 1_000 };
        let d = demand(vec![
            task(0, "kworker/0:1", vec![b]),
            task(1, "trace-cmd", vec![b]),
            task(2, "spin", vec![b]),
        ]);
        let json: serde_json::Value = serde_json::from_str(&write(&d, 1)).unwrap();
        let names: Vec<&String> = json["tasks"].as_object().unwrap().keys().collect();
        assert_eq!(names, vec!["spin-102"]);
    }
}
