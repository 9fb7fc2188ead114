//! The mapping between Perfetto's `FtraceEvent` messages and our [`EventKind`],
//! both directions, and of `sched_switch.prev_state` (formats.md §3.3, §6.3).

use super::proto::{
    CpuIdle, FtraceEvent, FtraceEventKind as K, PrintFtraceEvent, SchedMigrateTask,
    SchedProcessExit, SchedProcessFork, SchedProcessFree, SchedSwitch, SchedWakeup,
};
use crate::event::{Comm, Event, EventKind, Marks, PrevState, TaskRef};

/// A decoded regular event. `raw_prev_state` is set for switches: their
/// [`PrevState`] is decided once the kernel release is known (it may come later in
/// the file), until then `kind` holds a placeholder.
#[derive(Debug, Clone, Copy)]
pub(super) struct Decoded {
    pub name: &'static str,
    pub current_pid: i32,
    pub kind: EventKind,
    pub raw_prev_state: Option<i64>,
}

fn comm(bytes: &Option<Vec<u8>>) -> Comm {
    bytes.as_deref().map(Comm::from_bytes).unwrap_or_default()
}

fn task(comm_bytes: &Option<Vec<u8>>, pid: Option<i32>, prio: Option<i32>) -> TaskRef {
    TaskRef {
        pid: pid.unwrap_or(-1),
        comm: comm(comm_bytes),
        prio: prio.unwrap_or(-1),
    }
}

/// The name an unknown or unread event is counted under.
pub(super) const UNKNOWN_EVENT: &str = "unknown ftrace event";

/// `FtraceEvent` (without its timestamp) → our event kind; a marker's text goes into `marks`.
pub(super) fn decode(e: &FtraceEvent, marks: &Marks) -> Decoded {
    let current_pid = e.pid.map_or(-1, |p| p as i32);
    let (name, kind, raw_prev_state) = match &e.event {
        Some(K::SchedSwitch(s)) => (
            "sched_switch",
            EventKind::Switch {
                prev: task(&s.prev_comm, s.prev_pid, s.prev_prio),
                prev_state: PrevState::Runnable,
                next: task(&s.next_comm, s.next_pid, s.next_prio),
            },
            Some(s.prev_state.unwrap_or(0)),
        ),
        Some(K::SchedWaking(w)) => (
            "sched_waking",
            EventKind::Waking {
                task: task(&w.comm, w.pid, w.prio),
                target_cpu: w.target_cpu.unwrap_or(-1),
            },
            None,
        ),
        Some(K::SchedWakeup(w)) => (
            "sched_wakeup",
            EventKind::Wakeup {
                task: task(&w.comm, w.pid, w.prio),
                target_cpu: w.target_cpu.unwrap_or(-1),
            },
            None,
        ),
        Some(K::SchedWakeupNew(w)) => (
            "sched_wakeup_new",
            EventKind::WakeupNew {
                task: task(&w.comm, w.pid, w.prio),
                target_cpu: w.target_cpu.unwrap_or(-1),
            },
            None,
        ),
        Some(K::SchedMigrateTask(m)) => (
            "sched_migrate_task",
            EventKind::Migrate {
                task: task(&m.comm, m.pid, m.prio),
                orig_cpu: m.orig_cpu.unwrap_or(-1),
                dest_cpu: m.dest_cpu.unwrap_or(-1),
            },
            None,
        ),
        Some(K::SchedProcessFork(f)) => (
            "sched_process_fork",
            EventKind::Fork {
                parent_pid: f.parent_pid.unwrap_or(-1),
                child_pid: f.child_pid.unwrap_or(-1),
                child_comm: comm(&f.child_comm),
            },
            None,
        ),
        Some(K::SchedProcessExit(x)) => (
            "sched_process_exit",
            EventKind::Exit {
                pid: x.pid.unwrap_or(-1),
            },
            None,
        ),
        Some(K::SchedProcessFree(x)) => (
            "sched_process_free",
            EventKind::Free {
                pid: x.pid.unwrap_or(-1),
            },
            None,
        ),
        Some(K::Print(p)) => (
            "print",
            // An empty print is what `convert` writes for a non-sched event it cannot write
            // (it keeps the window's ends): read back as the event it stood for.
            match p.buf.as_deref() {
                Some(buf) if !buf.is_empty() => EventKind::Print {
                    text: marks.intern(buf),
                },
                _ => EventKind::Other,
            },
            None,
        ),
        Some(K::CpuFrequency(_)) => ("cpu_frequency", EventKind::Other, None),
        Some(K::CpuIdle(c)) => (
            "cpu_idle",
            match (c.state, c.cpu_id) {
                (Some(state), Some(cpu_id)) => EventKind::CpuIdle { state, cpu_id },
                // Without its fields the event says nothing: counted only.
                _ => EventKind::Other,
            },
            None,
        ),
        // Generic events carry their name as data; counting them under one label keeps
        // the name table bounded whatever a file contains.
        Some(K::Generic(_)) => ("generic ftrace event", EventKind::Other, None),
        None => (UNKNOWN_EVENT, EventKind::Other, None),
    };
    Decoded {
        name,
        current_pid,
        kind,
        raw_prev_state,
    }
}

/// `prev_state` values written for each class. They are the kernel ≥ 4.14 report
/// bits (encoding B): R = 0, R+ = 0x100 (TASK_REPORT_MAX), S = 1, D = 2, X = 0x10.
pub(super) fn encode_prev_state(state: PrevState) -> i64 {
    match state {
        PrevState::Runnable => 0,
        PrevState::Preempted => 0x100,
        PrevState::Sleeping => 0x01,
        PrevState::Blocked => 0x02,
        PrevState::Dead => 0x10,
    }
}

fn some_comm(c: Comm) -> Option<Vec<u8>> {
    (!c.is_empty()).then(|| c.as_bytes().to_vec())
}

fn some_prio(prio: i32) -> Option<i32> {
    (prio != -1).then_some(prio)
}

fn wakeup(task: TaskRef, target_cpu: i32) -> SchedWakeup {
    SchedWakeup {
        comm: some_comm(task.comm),
        pid: Some(task.pid),
        prio: some_prio(task.prio),
        success: None,
        target_cpu: Some(target_cpu),
    }
}

/// Our event → a regular `FtraceEvent` (sched events and `print` markers, their texts from
/// `marks`, the table of the read the event comes from); `None` for what Perfetto has no event
/// for here (`Other`, `TaskName`, `Lost`, which the writer handles otherwise).
pub(super) fn encode(e: &Event, marks: &Marks) -> Option<FtraceEvent> {
    let kind = match e.kind {
        EventKind::Switch {
            prev,
            prev_state,
            next,
        } => K::SchedSwitch(SchedSwitch {
            prev_comm: some_comm(prev.comm),
            prev_pid: Some(prev.pid),
            prev_prio: some_prio(prev.prio),
            prev_state: Some(encode_prev_state(prev_state)),
            next_comm: some_comm(next.comm),
            next_pid: Some(next.pid),
            next_prio: some_prio(next.prio),
        }),
        EventKind::Waking { task, target_cpu } => K::SchedWaking(wakeup(task, target_cpu)),
        EventKind::Wakeup { task, target_cpu } => K::SchedWakeup(wakeup(task, target_cpu)),
        EventKind::WakeupNew { task, target_cpu } => K::SchedWakeupNew(wakeup(task, target_cpu)),
        EventKind::Migrate {
            task,
            orig_cpu,
            dest_cpu,
        } => K::SchedMigrateTask(SchedMigrateTask {
            comm: some_comm(task.comm),
            pid: Some(task.pid),
            prio: some_prio(task.prio),
            orig_cpu: Some(orig_cpu),
            dest_cpu: Some(dest_cpu),
        }),
        EventKind::Fork {
            parent_pid,
            child_pid,
            child_comm,
        } => K::SchedProcessFork(SchedProcessFork {
            parent_comm: None,
            parent_pid: Some(parent_pid),
            child_comm: some_comm(child_comm),
            child_pid: Some(child_pid),
        }),
        EventKind::Exit { pid } => K::SchedProcessExit(SchedProcessExit {
            pid: Some(pid),
            ..Default::default()
        }),
        EventKind::Free { pid } => K::SchedProcessFree(SchedProcessFree {
            pid: Some(pid),
            ..Default::default()
        }),
        // The kernel's print buffer ends with the newline that `Mark` does not keep.
        EventKind::Print { text } => K::Print(PrintFtraceEvent {
            ip: None,
            buf: Some([&marks.text(text)[..], b"\n"].concat()),
        }),
        EventKind::CpuIdle { state, cpu_id } => K::CpuIdle(CpuIdle {
            state: Some(state),
            cpu_id: Some(cpu_id),
        }),
        EventKind::TaskName { .. } | EventKind::Lost { .. } | EventKind::Other => return None,
    };
    Some(FtraceEvent {
        timestamp: Some(e.ts),
        // `pid` is a uint32 in the proto: an unknown (-1) common_pid is left out.
        pid: u32::try_from(e.current_pid).ok(),
        common_flags: None,
        event: Some(kind),
    })
}
