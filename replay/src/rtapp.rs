//! The demand as rt-app JSON (rt-app 1.0, Debian's `rt-app`), so the workload can run
//! again on a real kernel: a burst is `run` (calibrated loops: CPU work, which a preemption
//! delays but does not use up), a timed block `sleep`, the policy is `policy` and nice (or
//! the real-time priority) `priority`, the allowed CPUs
//! `cpus`, a task's start its `delay`; every task runs its sequence once (one phase,
//! `loop` 1 on the thread and on the phase).
//!
//! A burst the demand bounds by wall-clock time is `runtime` instead (rt-app loops until
//! that much time has passed since the event began, whatever CPU the thread got): each
//! burst of a task with a `wall_budget` is `runtime` of the budget, and a wall-bounded last
//! burst (`sim/wall_clock.rs`) `runtime` from its first run to the task's exit (or to the
//! trace's end). As `run`, such a burst would replay the traced kernel's answer, the CPU
//! it let the task have, not the task's demand.
//!
//! Dependencies are rendezvous. rt-app's `resume` is a condition broadcast and `suspend` a
//! condition wait, so a resume sent before its peer suspends is lost, and a ping-pong pair
//! on one CPU loses one at once (the woken peer preempts the waker before it suspends) and
//! stops for good. Its `barrier` counts arrivals, so nothing is lost: each dependency is a
//! barrier of its own name (`dep<task>-<phase>`) that the blocked task reaches at its block
//! and the waker at its point in the burst that woke it (`into_ns`). Every rendezvous
//! happened in the traced run in one time order that agrees with each task's own order, so
//! the re-run cannot deadlock. What differs: a waker that arrives first waits for the
//! wakee to reach its block (in the traced run the wakee was already blocked there).
//! A dependency on a task that is not re-run (a kernel thread) is slept for its length.
//!
//! Which tasks: user tasks that ran (kernel threads and the tracer itself are the traced
//! machine's, not the workload's). rt-app names threads by these keys, `comm-pid`.
//!
//! rt-app reads events in the order written and keys them by name prefix (`run3`,
//! `sleep4`), so the text is written here in order (serde_json's map sorts its keys).

use crate::demand::{Demand, Phase, Policy, TaskDemand, Wake};
use crate::kthread::is_kernel_thread;
use crate::sim::wall_clock::{wall_bound, WallBound};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

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

/// rt-app JSON of the workload in `demand`, running at most `duration_s` seconds, on a
/// machine of `cpus` CPUs: a traced CPU beyond them is folded onto CPU `cpu % cpus`, which
/// keeps tasks pinned to one CPU pinned to one, and tasks that shared a CPU together.
pub fn write(demand: &Demand, duration_s: u32, cpus: u32) -> String {
    let tasks: Vec<&TaskDemand> = demand.tasks.iter().filter(|t| in_workload(t)).collect();
    let kept: BTreeSet<usize> = tasks.iter().map(|t| t.id).collect();
    let wakes = wakes_by_waker(demand, &kept);
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
        let (policy, priority) = policy(task);
        fields.push(("policy".into(), quoted(policy)));
        if let Some(priority) = priority {
            fields.push(("priority".into(), priority.to_string()));
        }
        let folded: BTreeSet<u32> = task.cpus.iter().map(|c| c % cpus.max(1)).collect();
        let folded: Vec<String> = folded.iter().map(u32::to_string).collect();
        fields.push(("cpus".into(), format!("[{}]", folded.join(", "))));
        let delay_us = task.start_ns.saturating_sub(demand.start_ns) / 1000;
        if delay_us > 0 {
            fields.push(("delay".into(), delay_us.to_string()));
        }
        for (name, value) in fields {
            let _ = write!(out, "\n      {}: {value},", quoted(&name));
        }
        // The events in a phase of their own, run once: rt-app 1.0 takes events written
        // on the thread itself as a phase that the thread repeats until `duration`
        // whatever its `loop` says (a spinner re-run from the `nice` fixture spun, slept
        // at its barrier for the parent's second round, and spun again).
        out.push_str("\n      \"phases\": {\n        \"p0\": {\n          \"loop\": 1");
        for (name, value) in events(task, &wakes, &kept, demand.end_ns) {
            let _ = write!(out, ",\n          {}: {value}", quoted(&name));
        }
        out.push_str("\n        }\n      }\n    }");
    }
    out.push_str("\n  }\n}\n");
    out
}

/// rt-app's policy and priority of `task`. rt-app 1.0 takes `SCHED_OTHER` (priority =
/// nice), `SCHED_FIFO` and `SCHED_RR` (priority = the real-time one) and `SCHED_DEADLINE`
/// (with a runtime and period the trace does not have): a batch, idle or sched_ext task is
/// written as SCHED_OTHER at its nice (rt-app 1.0 has no batch or idle policy), a traced
/// real-time one (FIFO or RR, the trace does not say) as SCHED_FIFO, a deadline one as
/// SCHED_FIFO 99, as the simulator runs it.
fn policy(task: &TaskDemand) -> (&'static str, Option<i32>) {
    let rt = task.sched.rt_priority.map(|p| p as i32);
    match task.policy {
        Policy::Fifo | Policy::RealTime => ("SCHED_FIFO", rt),
        Policy::Rr => ("SCHED_RR", rt),
        Policy::Deadline => ("SCHED_FIFO", Some(99)),
        Policy::Other | Policy::Normal => ("SCHED_OTHER", task.nice),
        Policy::Batch | Policy::Idle | Policy::Ext | Policy::Unknown => {
            ("SCHED_OTHER", Some(task.model_nice()))
        }
    }
}

/// Per waker task and burst index, the rendezvous it reaches in that burst: how far into
/// the burst, and the barrier's name (kept tasks only), in burst order.
type Wakes = BTreeMap<(usize, u32), Vec<(u64, String)>>;

fn wakes_by_waker(demand: &Demand, kept: &BTreeSet<usize>) -> Wakes {
    let mut wakes = Wakes::new();
    for task in demand.tasks.iter().filter(|t| kept.contains(&t.id)) {
        for (phase_index, phase) in task.phases.iter().enumerate() {
            if let Phase::Block {
                wake:
                    Wake::Dependency {
                        task: waker,
                        after_bursts,
                        into_ns,
                        ..
                    },
                ..
            } = phase
            {
                if kept.contains(waker) {
                    wakes
                        .entry((*waker, *after_bursts))
                        .or_default()
                        .push((*into_ns, barrier(task.id, phase_index)));
                }
            }
        }
    }
    for list in wakes.values_mut() {
        list.sort_unstable();
    }
    wakes
}

/// The barrier of task `task`'s block at `phase`.
fn barrier(task: usize, phase: usize) -> String {
    format!("dep{task}-{phase}")
}

/// How rt-app replays burst number `phase` (`ns` of CPU in the trace) of `task`: its event
/// and its length in ns, wall-clock (`runtime`) or CPU (`run`). `end_ns`: the trace's end.
fn burst_event(task: &TaskDemand, phase: usize, ns: u64, end_ns: u64) -> (&'static str, u64) {
    let ran = task.last_burst_ran_ns;
    match (wall_bound(task, phase, ns), ran) {
        (Some(WallBound::After(wall)), _) => ("runtime", wall),
        (Some(WallBound::Never), Some(ran)) => ("runtime", end_ns.saturating_sub(ran)),
        // A wall-bounded burst whose first run is not known: its CPU, as the trace has it.
        (Some(_), _) => ("run", ns),
        (None, _) => match task.wall_budget {
            Some(budget) => ("runtime", budget.budget_ns),
            None => ("run", ns),
        },
    }
}

/// The events of `task`, keyed `kindN`; `end_ns`: the trace's end.
fn events(
    task: &TaskDemand,
    wakes: &Wakes,
    kept: &BTreeSet<usize>,
    end_ns: u64,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut push = |kind: &str, value: String| {
        let key = format!("{kind}{}", out.len());
        out.push((key, value));
    };
    let mut burst = 0u32;
    for (phase_index, phase) in task.phases.iter().enumerate() {
        match *phase {
            Phase::Burst { ns: cpu_ns } => {
                let woken = wakes.get(&(task.id, burst)).map_or(&[][..], |v| &v[..]);
                burst += 1;
                let (kind, ns) = burst_event(task, phase_index, cpu_ns, end_ns);
                // The burst cut at each rendezvous it reaches (to the µs rt-app counts in;
                // a wall-clock burst where its CPU reached it, within the budget).
                let mut ran = 0;
                for (into_ns, name) in woken {
                    let at = (*into_ns).min(ns);
                    if at >= ran + 1000 {
                        push(kind, ((at - ran) / 1000).to_string());
                        ran = at;
                    }
                    push("barrier", quoted(name));
                }
                if ns > ran && (ns - ran >= 1000 || ran == 0) {
                    push(kind, ((ns - ran) / 1000).max(1).to_string());
                }
            }
            Phase::Block { ns, wake } => match wake {
                Wake::Dependency { task: waker, .. } if kept.contains(&waker) => {
                    push("barrier", quoted(&barrier(task.id, phase_index)));
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
            sched: Default::default(),
            cpus: vec![1],
            cpus_from: Default::default(),
            free_bursts: 0,
            fork: None,
            start_ns: 1_000_000,
            end: TaskEnd::Running,
            runtime_ns: phases
                .iter()
                .map(|p| if let Phase::Burst { ns } = p { *ns } else { 0 })
                .sum(),
            phases,
            last_burst_ran_ns: None,
            wall_budget: None,
        }
    }

    fn dep(task: usize, after_bursts: u32, into_ns: u64) -> Phase {
        Phase::Block {
            ns: 5_000,
            wake: Wake::Dependency {
                task,
                pid: 100 + task as i32,
                after_bursts,
                into_ns,
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
            idle_wakeup_ns: 0,
            preempt_wakeup_ns: 0,
            waking_wakeup_ns: 0,
        }
    }

    #[test]
    fn a_ping_pong_meets_at_one_barrier_per_dependency() {
        let b = |ns| Phase::Burst { ns };
        // ping wakes pong 2.5 µs into its first burst; pong wakes ping at the end of its
        // first (6 µs) and 1 µs into its second.
        let a = task(
            0,
            "ping",
            vec![
                b(3_000),
                dep(1, 0, 6_000),
                b(4_000),
                dep(1, 1, 1_000),
                b(2_000),
            ],
        );
        let p = task(
            1,
            "pong",
            vec![dep(0, 0, 2_500), b(6_000), dep(0, 1, 4_000), b(7_000)],
        );
        let json: serde_json::Value =
            serde_json::from_str(&write(&demand(vec![a, p]), 2, 2)).unwrap();
        let ping = &json["tasks"]["ping-100"];
        assert!(ping.get("delay").is_none());
        assert_eq!(ping["loop"], 1);
        assert_eq!(ping["policy"], "SCHED_OTHER");
        assert_eq!(ping["priority"], 0);
        assert_eq!(ping["cpus"], serde_json::json!([1]));
        // One phase, run once (rt-app 1.0 repeats events written on the thread).
        assert_eq!(ping["phases"].as_object().unwrap().len(), 1);
        let ping = &ping["phases"]["p0"];
        assert_eq!(ping["loop"], 1);
        // 2.5 µs of run (to the µs), meet pong at its first block, block itself.
        assert_eq!(ping["run0"], 2);
        assert_eq!(ping["barrier1"], "dep1-0");
        assert_eq!(ping["barrier2"], "dep0-1");
        assert_eq!(ping["run3"], 4);
        assert_eq!(
            ping["barrier4"], "dep1-2",
            "pong's second wait ends at this burst's end"
        );
        assert_eq!(ping["barrier5"], "dep0-3");
        assert_eq!(ping["run6"], 2);
        assert_eq!(ping.as_object().unwrap().len(), 1 + 7);
        let pong = &json["tasks"]["pong-101"];
        assert_eq!(pong["priority"], 1);
        let pong = &pong["phases"]["p0"];
        assert_eq!(pong["barrier0"], "dep1-0");
        assert_eq!(pong["run1"], 6);
        assert_eq!(pong["barrier2"], "dep0-1");
        assert_eq!(pong["barrier3"], "dep1-2");
        assert_eq!(pong["run4"], 1);
        assert_eq!(pong["barrier5"], "dep0-3");
        assert_eq!(pong["run6"], 6);
        // Each barrier is named by exactly two threads (rt-app counts its users so).
        let text = write(
            &demand(vec![
                task(0, "ping", vec![b(3_000), dep(1, 0, 6_000)]),
                task(1, "pong", vec![dep(0, 0, 2_500), b(6_000)]),
            ]),
            1,
            2,
        );
        assert_eq!(text.matches("\"dep1-0\"").count(), 2);
        assert_eq!(text.matches("\"dep0-1\"").count(), 2);
        // CPU 3 of a 4-CPU trace on a 2-CPU machine is CPU 1.
        let mut wide = task(0, "w", vec![b(5_000)]);
        wide.cpus = vec![1, 3];
        let json: serde_json::Value =
            serde_json::from_str(&write(&demand(vec![wide]), 1, 2)).unwrap();
        assert_eq!(json["tasks"]["w-100"]["cpus"], serde_json::json!([1]));
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
            2,
        );
        let order: Vec<usize> = ["\"run0\"", "\"sleep1\"", "\"run2\""]
            .iter()
            .map(|k| text.find(k).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
    }

    #[test]
    fn wall_clock_bursts_are_runtime_and_the_rest_run() {
        let b = |ns| Phase::Burst { ns };
        let sleep = Phase::Block {
            ns: 1_000_000,
            wake: Wake::Timed {
                source: TimedBy::Idle,
                waker_pid: Some(0),
            },
        };
        let exit = |at_ns| TaskEnd::Exit { at_ns };
        // A worker with a wall budget: every burst is `runtime` of the budget, whatever its
        // traced CPU (2, 9 and 7.5 ms here), the last one too (it is short: not wall-bounded).
        let mut worker = task(0, "w", vec![b(2_000_000), sleep, b(9_000_000), sleep]);
        worker.phases.push(b(7_500_000));
        worker.wall_budget = Some(crate::demand::WallBudget {
            budget_ns: 8_129_834,
            tail_ns: 228_807,
            preempted_bursts: 86,
            fitted: 75,
        });
        worker.end = exit(2_000_000_000);
        // A spinner that exited: its long last burst spins from its first run (1.2 s) to
        // the exit (3.5 s) by the wall clock; its first burst is CPU.
        let mut spin = task(1, "s", vec![b(1_500_000), sleep, b(700_000_000)]);
        spin.end = exit(3_500_000_000);
        spin.last_burst_ran_ns = Some(1_200_000_000);
        // Still spinning at the trace's end (4 s): from its first run (2.5 s) to there.
        let mut running = task(2, "r", vec![b(300_000_000)]);
        running.last_burst_ran_ns = Some(2_500_000_000);
        // Wall-bounded, but when the last burst first ran is not known: its CPU.
        let mut unknown = task(3, "u", vec![b(150_000_000)]);
        unknown.end = exit(3_000_000_000);
        // A last burst under 100 ms is work, not a spin; one of a task asleep at the end
        // is not bounded by its end.
        let mut short = task(4, "x", vec![b(90_000_000)]);
        short.end = exit(3_000_000_000);
        short.last_burst_ran_ns = Some(2_000_000_000);
        let mut asleep = task(5, "z", vec![b(400_000_000), sleep]);
        asleep.end = TaskEnd::Asleep;
        asleep.last_burst_ran_ns = Some(1_000_000_000);
        let mut d = demand(vec![worker, spin, running, unknown, short, asleep]);
        d.end_ns = 4_000_000_000;
        let json: serde_json::Value = serde_json::from_str(&write(&d, 5, 2)).unwrap();
        let events = |name: &str| -> Vec<(String, i64)> {
            let p0 = json["tasks"][name]["phases"]["p0"].as_object().unwrap();
            let mut keyed: Vec<(usize, String, i64)> = p0
                .iter()
                .filter(|(k, _)| *k != "loop")
                .map(|(k, v)| {
                    let at = k.find(|c: char| c.is_ascii_digit()).unwrap();
                    (
                        k[at..].parse().unwrap(),
                        k[..at].to_string(),
                        v.as_i64().unwrap(),
                    )
                })
                .collect();
            keyed.sort();
            keyed.into_iter().map(|(_, k, v)| (k, v)).collect()
        };
        let ev = |k: &str, v: i64| (k.to_string(), v);
        assert_eq!(
            events("w-100"),
            [
                ev("runtime", 8129),
                ev("sleep", 1000),
                ev("runtime", 8129),
                ev("sleep", 1000),
                ev("runtime", 8129)
            ]
        );
        assert_eq!(
            events("s-101"),
            [ev("run", 1500), ev("sleep", 1000), ev("runtime", 2_300_000)]
        );
        assert_eq!(events("r-102"), [ev("runtime", 1_500_000)]);
        assert_eq!(events("u-103"), [ev("run", 150_000)]);
        assert_eq!(events("x-104"), [ev("run", 90_000)]);
        assert_eq!(events("z-105"), [ev("run", 400_000), ev("sleep", 1000)]);
        // A rendezvous in a wall-clock burst cuts its time, not its CPU, at the waker's
        // point: 3 ms into a budget of 8.1 ms.
        let mut waker = task(0, "w", vec![b(9_000_000), sleep, b(9_000_000)]);
        waker.wall_budget = d.tasks[0].wall_budget;
        let wakee = task(1, "p", vec![dep(0, 1, 3_000_000), b(1_000_000)]);
        let json: serde_json::Value =
            serde_json::from_str(&write(&demand(vec![waker, wakee]), 5, 2)).unwrap();
        let p0 = &json["tasks"]["w-100"]["phases"]["p0"];
        assert_eq!(p0["runtime0"], 8129);
        assert_eq!(p0["runtime2"], 3000);
        assert_eq!(p0["barrier3"], "dep1-0");
        assert_eq!(p0["runtime4"], 5129);
        assert_eq!(p0.as_object().unwrap().len(), 1 + 5);
    }

    #[test]
    fn each_policy_as_rt_app_takes_it() {
        let b = Phase::Burst { ns: 1_000 };
        let with = |id, policy, nice: Option<i32>, rt: Option<u32>| {
            let mut t = task(id, "t", vec![b]);
            t.policy = policy;
            t.nice = nice;
            t.sched.rt_priority = rt;
            t
        };
        let d = demand(vec![
            with(0, Policy::Other, Some(-2), None),
            with(1, Policy::Batch, Some(5), None),
            with(2, Policy::Idle, Some(3), None),
            with(3, Policy::Fifo, None, Some(40)),
            with(4, Policy::Rr, None, Some(7)),
            with(5, Policy::RealTime, None, Some(10)),
            with(6, Policy::Deadline, None, None),
            with(7, Policy::Unknown, None, None),
        ]);
        let json: serde_json::Value = serde_json::from_str(&write(&d, 1, 2)).unwrap();
        let got: Vec<(String, i64)> = (0..8)
            .map(|i| {
                let t = &json["tasks"][format!("t-{}", 100 + i)];
                (
                    t["policy"].as_str().unwrap().into(),
                    t["priority"].as_i64().unwrap(),
                )
            })
            .collect();
        let want = [
            ("SCHED_OTHER", -2),
            ("SCHED_OTHER", 5),
            ("SCHED_OTHER", 3),
            ("SCHED_FIFO", 40),
            ("SCHED_RR", 7),
            ("SCHED_FIFO", 10),
            ("SCHED_FIFO", 99),
            ("SCHED_OTHER", 0),
        ];
        let want: Vec<(String, i64)> = want.iter().map(|&(p, n)| (p.into(), n)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn kernel_threads_and_tracers_stay_out() {
        let b = Phase::Burst { ns: 1_000 };
        let d = demand(vec![
            task(0, "kworker/0:1", vec![b]),
            task(1, "trace-cmd", vec![b]),
            task(2, "spin", vec![b]),
        ]);
        let json: serde_json::Value = serde_json::from_str(&write(&d, 1, 2)).unwrap();
        let names: Vec<&String> = json["tasks"].as_object().unwrap().keys().collect();
        assert_eq!(names, vec!["spin-102"]);
    }
}
