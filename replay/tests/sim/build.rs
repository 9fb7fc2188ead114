//! Hand-built workloads: a demand written out phase by phase, so a test's expected
//! schedule can be worked out by hand.

use replay::demand::{
    Demand, Hz, HzSource, Ledger, Phase, Policy, TaskDemand, TaskEnd, TimedBy, Wake,
};
use replay::sim::schedule::{Record, Schedule};
use replay::sim::SimOptions;

pub const MS: u64 = 1_000_000;

pub fn demand(cpus: u32, window_ns: u64, tasks: Vec<TaskDemand>) -> Demand {
    Demand {
        schema_version: replay::demand::SCHEMA_VERSION,
        source: "hand-built".into(),
        kernel_release: None,
        scheduler: "none".into(),
        cpus,
        llcs: vec![(0..cpus).collect()],
        topology_source: "test".into(),
        hz: Hz {
            value: 250,
            source: HzSource::Given,
        },
        start_ns: 0,
        end_ns: window_ns,
        tasks,
        ledger: Ledger::default(),
        idle_wakeup_ns: 0,
    }
}

/// A task (`id` its index in the demand) with pid 100 + id.
pub fn task(id: usize, comm: &str, nice: i32, cpus: &[u32], phases: Vec<Phase>) -> TaskDemand {
    let runtime_ns = phases
        .iter()
        .map(|p| match p {
            Phase::Burst { ns } => *ns,
            Phase::Block { .. } => 0,
        })
        .sum();
    TaskDemand {
        id,
        pid: 100 + id as i32,
        tgid: Some(100 + id as i32),
        comm: comm.into(),
        prio: Some(120 + nice),
        nice: Some(nice),
        policy: Policy::Normal,
        cpus: cpus.to_vec(),
        fork: None,
        start_ns: 0,
        end: TaskEnd::Running,
        runtime_ns,
        phases,
        last_burst_ran_ns: None,
    }
}

pub fn burst(ns: u64) -> Phase {
    Phase::Burst { ns }
}

pub fn sleep(ns: u64) -> Phase {
    Phase::Block {
        ns,
        wake: Wake::Timed {
            source: TimedBy::Idle,
            waker_pid: None,
        },
    }
}

/// A block woken by task `task` once it has done `after_bursts` bursts and `into_ns` of
/// the next.
pub fn wait_for(task: usize, after_bursts: u32, into_ns: u64) -> Phase {
    Phase::Block {
        ns: 0,
        wake: Wake::Dependency {
            task,
            pid: 100 + task as i32,
            after_bursts,
            into_ns,
        },
    }
}

/// Two spinners on CPU 0 for the whole window: task 0 "a" at nice 0, task 1 "b" at `nice_b`.
pub fn two_spinners(window_ns: u64, nice_b: i32) -> Demand {
    demand(
        1,
        window_ns,
        vec![
            task(0, "a", 0, &[0], vec![burst(100_000 * MS)]),
            task(1, "b", nice_b, &[0], vec![burst(100_000 * MS)]),
        ],
    )
}

/// On CPU 0: task 0 "spin" (nice 0) spins; task 1 "sleeper" (nice 0) sleeps 10 ms and runs
/// 1 ms, 20 times.
pub fn spinner_and_sleeper(window_ns: u64) -> Demand {
    let mut w = Vec::new();
    for _ in 0..20 {
        w.push(sleep(10 * MS));
        w.push(burst(MS));
    }
    demand(
        1,
        window_ns,
        vec![
            task(0, "spin", 0, &[0], vec![burst(10_000 * MS)]),
            task(1, "sleeper", 0, &[0], w),
        ],
    )
}

/// The ticks at 0, one period, two, ... (the seed's phase replaced).
pub fn at_zero() -> SimOptions {
    SimOptions {
        tick_offset_ns: Some(0),
        ..SimOptions::default()
    }
}

/// (time, prev task, next task) of every switch that changes the running task.
pub fn switches(s: &Schedule) -> Vec<(u64, Option<usize>, Option<usize>)> {
    s.records
        .iter()
        .filter_map(|r| match *r {
            Record::Switch { ts, prev, next, .. } => {
                Some((ts, prev.map(|w| w.task), next.map(|w| w.task)))
            }
            _ => None,
        })
        .collect()
}

/// When `task` was woken.
pub fn wakeups_of(s: &Schedule, task: usize) -> Vec<u64> {
    s.records
        .iter()
        .filter_map(|r| match r {
            Record::Wakeup { ts, task: w, .. } if w.task == task => Some(*ts),
            _ => None,
        })
        .collect()
}
