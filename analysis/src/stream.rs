//! Builders for hand-made event streams: the unit tests beside each concern
//! (`metrics/*`) and the integration tests (`tests/common`, which includes this file)
//! describe their scenarios with them. Only `ingest` types, so the file compiles in both.
#![allow(dead_code)]

use ingest::{Comm, Event, EventKind, PrevState, TaskRef};

pub fn task(pid: i32) -> TaskRef {
    let name = match pid {
        0 => "swapper".to_string(),
        _ => format!("t{pid}"),
    };
    TaskRef {
        pid,
        comm: Comm::from(name.as_str()),
        prio: 120,
    }
}

pub fn named(pid: i32, comm: &str) -> TaskRef {
    TaskRef {
        pid,
        comm: Comm::from(comm),
        prio: 120,
    }
}

pub fn ev(ts: u64, cpu: u32, current_pid: i32, kind: EventKind) -> Event {
    Event {
        ts,
        cpu,
        current_pid,
        kind,
    }
}

/// `cpu` switches from `prev` (leaving in `state`) to `next` at `ts`.
pub fn switch(ts: u64, cpu: u32, prev: i32, state: PrevState, next: i32) -> Event {
    switch_named(ts, cpu, task(prev), state, task(next))
}

pub fn switch_named(ts: u64, cpu: u32, prev: TaskRef, state: PrevState, next: TaskRef) -> Event {
    ev(
        ts,
        cpu,
        prev.pid,
        EventKind::Switch {
            prev,
            prev_state: state,
            next,
        },
    )
}

pub fn waking(ts: u64, cpu: u32, waker: i32, pid: i32, target: i32) -> Event {
    ev(
        ts,
        cpu,
        waker,
        EventKind::Waking {
            task: task(pid),
            target_cpu: target,
        },
    )
}

pub fn wakeup(ts: u64, cpu: u32, waker: i32, pid: i32, target: i32) -> Event {
    ev(
        ts,
        cpu,
        waker,
        EventKind::Wakeup {
            task: task(pid),
            target_cpu: target,
        },
    )
}

pub fn wakeup_new(ts: u64, cpu: u32, waker: i32, pid: i32, target: i32) -> Event {
    ev(
        ts,
        cpu,
        waker,
        EventKind::WakeupNew {
            task: task(pid),
            target_cpu: target,
        },
    )
}

pub fn lost(ts: u64, cpu: u32, count: Option<u64>) -> Event {
    ev(ts, cpu, -1, EventKind::Lost { count })
}

pub fn other(ts: u64, cpu: u32, current_pid: i32) -> Event {
    ev(ts, cpu, current_pid, EventKind::Other)
}
