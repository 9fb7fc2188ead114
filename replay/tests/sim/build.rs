//! Hand-built workloads: a demand written out phase by phase, so a test's expected
//! schedule can be worked out by hand.

use replay::demand::{
    Demand, Hz, HzSource, Ledger, Phase, Policy, TaskDemand, TaskEnd, TimedBy, Wake,
};

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
