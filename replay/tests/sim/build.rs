//! Hand-built workloads: a demand written out phase by phase, so a test's expected
//! schedule can be worked out by hand.

use replay::demand::{
    Demand, Hz, HzSource, Ledger, Phase, Policy, TaskDemand, TaskEnd, TimedBy, Wake,
};
use replay::sim::model::ModelName;
use replay::sim::schedule::{Record, Schedule};
use replay::sim::{simulate, SimOptions};

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
        preempt_wakeup_ns: 0,
        waking_wakeup_ns: 0,
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
        sched: Default::default(),
        cpus: cpus.to_vec(),
        cpus_from: Default::default(),
        free_bursts: 0,
        fork: None,
        start_ns: 0,
        end: TaskEnd::Running,
        runtime_ns,
        phases,
        last_burst_ran_ns: None,
        wall_budget: None,
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

/// (time, prev task, next task) of a switch.
pub type Switch = (u64, Option<usize>, Option<usize>);

/// `two_spinners(2 s, 5)` under `model`: the schedule starts with `first`, nice 0 gets
/// the weights' 75.35 % within a point, and every switch is on the 4 ms tick grid.
pub fn check_nice_0_and_5(model: ModelName, first: &[Switch]) {
    let d = two_spinners(2000 * MS, 5);
    let p = simulate(&d, model, at_zero()).unwrap();
    let sw = switches(&p.schedule);
    assert_eq!(sw[..first.len()], *first, "{model}");
    let ran = p.schedule.runtimes(2);
    let share = ran[0] as f64 / (ran[0] + ran[1]) as f64;
    assert!((share - 0.7535).abs() < 0.01, "{model}: A's share {share}");
    assert!(sw.iter().all(|&(t, _, _)| t % (4 * MS) == 0), "{model}");
}

/// `spinner_and_sleeper(200 ms)` under `model`: the sleeper preempts the spinner at each
/// of its 18 wakeups (10, 21, ..., 197 ms) in the same nanosecond, and runs its 1 ms.
pub fn check_sleeper_preempts_at_once(model: ModelName) {
    let d = spinner_and_sleeper(200 * MS);
    let p = simulate(&d, model, at_zero()).unwrap();
    let sw = switches(&p.schedule);
    assert_eq!(sw[1], (10 * MS, Some(0), Some(1)), "{model}");
    assert_eq!(sw[2], (11 * MS, Some(1), Some(0)), "{model}");
    assert_eq!(sw[3], (21 * MS, Some(0), Some(1)), "{model}");
    let wakeups = wakeups_of(&p.schedule, 1);
    assert_eq!(wakeups.len(), 18, "{model}");
    for t in wakeups {
        assert!(
            sw.contains(&(t, Some(0), Some(1))),
            "{model}: no preemption at {t}"
        );
    }
}

/// `two_spinners(400 ms, 0)` under `model` at `hz`: a switch every `slice_ns` from 0.
pub fn check_equal_spinners(model: ModelName, hz: u32, slice_ns: u64) {
    let d = two_spinners(400 * MS, 0);
    let opts = SimOptions {
        hz: Some(hz),
        ..at_zero()
    };
    let p = simulate(&d, model, opts).unwrap();
    let times: Vec<u64> = switches(&p.schedule).iter().map(|s| s.0).collect();
    let expected: Vec<u64> = (0..=400 * MS / slice_ns).map(|k| k * slice_ns).collect();
    assert_eq!(times, expected, "{model} at HZ {hz}");
}
