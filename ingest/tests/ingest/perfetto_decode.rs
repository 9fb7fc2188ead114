//! A small Perfetto trace built here with our prost structs, with every value
//! written out, decodes to exactly the expected events: two CPUs, regular and
//! compact_sched switches and wakings, a process tree, utsname, a loss mark, a
//! bundle out of time order, and ftrace overrun stats.

use ingest::perfetto::proto::*;
use ingest::{Comm, Event, EventKind, PrevState, TaskRef};
use prost::Message;

fn task(pid: i32, comm: &str, prio: i32) -> TaskRef {
    TaskRef {
        pid,
        comm: comm.into(),
        prio,
    }
}

fn b(s: &str) -> Option<Vec<u8>> {
    Some(s.as_bytes().to_vec())
}

fn ev(ts: u64, pid: u32, kind: FtraceEventKind) -> FtraceEvent {
    FtraceEvent {
        timestamp: Some(ts),
        pid: Some(pid),
        common_flags: None,
        event: Some(kind),
    }
}

fn switch(prev: (i32, &str, i64), next: (i32, &str)) -> FtraceEventKind {
    FtraceEventKind::SchedSwitch(SchedSwitch {
        prev_comm: b(prev.1),
        prev_pid: Some(prev.0),
        prev_prio: Some(120),
        prev_state: Some(prev.2),
        next_comm: b(next.1),
        next_pid: Some(next.0),
        next_prio: Some(120),
    })
}

fn bundle(cpu: u32, events: Vec<FtraceEvent>) -> TracePacket {
    TracePacket {
        ftrace_events: Some(FtraceEventBundle {
            cpu: Some(cpu),
            event: events,
            ..Default::default()
        }),
        trusted_packet_sequence_id: Some(7),
        ..Default::default()
    }
}

fn stats(phase: i32, overrun: u64) -> TracePacket {
    TracePacket {
        ftrace_stats: Some(FtraceStats {
            phase: Some(phase),
            cpu_stats: vec![FtraceCpuStats {
                cpu: Some(1),
                overrun: Some(overrun),
                ..Default::default()
            }],
        }),
        ..Default::default()
    }
}

fn two_cpu_trace(release: &str, state_a: i64, state_b: i64) -> Vec<u8> {
    let mut packets = vec![
        stats(FTRACE_STATS_START, 3),
        TracePacket {
            timestamp: Some(1000),
            process_tree: Some(ProcessTree {
                processes: vec![Process {
                    pid: Some(100),
                    ppid: Some(1),
                    cmdline: vec![b"/usr/bin/app".to_vec(), b"--fast".to_vec()],
                }],
                threads: vec![Thread {
                    tid: Some(101),
                    name: b("worker"),
                    tgid: Some(100),
                }],
            }),
            ..Default::default()
        },
        bundle(
            1,
            vec![
                ev(
                    2000,
                    0,
                    FtraceEventKind::SchedWaking(SchedWakeup {
                        comm: b("worker"),
                        pid: Some(101),
                        prio: Some(120),
                        success: None,
                        target_cpu: Some(1),
                    }),
                ),
                ev(2100, 0, switch((0, "swapper/1", 0), (101, "worker"))),
            ],
        ),
    ];
    // CPU 0: one regular switch, then compact ones whose previous task it implies.
    let mut cpu0 = bundle(
        0,
        vec![ev(1500, 100, switch((100, "app", 1), (0, "swapper/0")))],
    );
    cpu0.ftrace_events.as_mut().unwrap().compact_sched = Some(CompactSched {
        intern_table: vec![b"app".to_vec(), b"swapper/0".to_vec(), b"worker".to_vec()],
        switch_timestamp: vec![3000, 500],
        switch_prev_state: vec![state_a, state_b],
        switch_next_pid: vec![100, 0],
        switch_next_prio: vec![120, 120],
        switch_next_comm_index: vec![0, 1],
        waking_timestamp: vec![3200],
        waking_pid: vec![101],
        waking_target_cpu: vec![1],
        waking_prio: vec![120],
        waking_comm_index: vec![2],
        waking_common_flags: vec![],
    });
    packets.push(cpu0);
    // CPU 1 again, earlier than its first bundle, after lost events.
    let mut late = bundle(
        1,
        vec![ev(
            1800,
            0,
            FtraceEventKind::SchedMigrateTask(SchedMigrateTask {
                comm: b("worker"),
                pid: Some(101),
                prio: Some(120),
                orig_cpu: Some(0),
                dest_cpu: Some(1),
            }),
        )],
    );
    late.ftrace_events.as_mut().unwrap().lost_events = Some(true);
    packets.push(late);
    packets.push(stats(FTRACE_STATS_END, 10));
    packets.push(TracePacket {
        system_info: Some(SystemInfo {
            utsname: Some(Utsname {
                sysname: b("Linux"),
                release: b(release),
                machine: b("x86_64"),
                ..Default::default()
            }),
            num_cpus: Some(2),
        }),
        ..Default::default()
    });
    Trace { packet: packets }.encode_to_vec()
}

fn at(ts: u64, cpu: u32, current_pid: i32, kind: EventKind) -> Event {
    Event {
        ts,
        cpu,
        current_pid,
        kind,
    }
}

fn sw(prev: TaskRef, prev_state: PrevState, next: TaskRef) -> EventKind {
    EventKind::Switch {
        prev,
        prev_state,
        next,
    }
}

#[test]
fn hand_encoded_trace_decodes_to_known_events() {
    let bytes = two_cpu_trace("6.6.0-test", 0x100, 0x02);
    assert_eq!(
        ingest::Format::detect(&bytes).unwrap(),
        ingest::Format::Perfetto
    );
    let mut events = Vec::new();
    let got = ingest::read_bytes(&bytes, &mut |e: &Event| events.push(*e)).unwrap();
    let (app, worker) = (task(100, "app", 120), task(101, "worker", 120));
    let (idle0, idle1) = (task(0, "swapper/0", 120), task(0, "swapper/1", 120));
    let name = |pid, tgid, comm: &str| EventKind::TaskName {
        pid,
        tgid,
        comm: Comm::from(comm),
    };
    let expected = vec![
        at(1000, 0, -1, name(100, 100, "app")),
        at(1000, 0, -1, name(101, 100, "worker")),
        at(1500, 0, 100, sw(app, PrevState::Sleeping, idle0)),
        at(1800, 1, -1, EventKind::Lost { count: None }),
        at(
            1800,
            1,
            0,
            EventKind::Migrate {
                task: worker,
                orig_cpu: 0,
                dest_cpu: 1,
            },
        ),
        at(
            2000,
            1,
            0,
            EventKind::Waking {
                task: worker,
                target_cpu: 1,
            },
        ),
        at(2100, 1, 0, sw(idle1, PrevState::Runnable, worker)),
        // Compact: prev = next of the switch before on CPU 0; timestamps are deltas.
        at(3000, 0, 0, sw(idle0, PrevState::Preempted, app)),
        // Compact waking: the waker is the task running on CPU 0.
        at(
            3200,
            0,
            100,
            EventKind::Waking {
                task: worker,
                target_cpu: 1,
            },
        ),
        at(3500, 0, 100, sw(app, PrevState::Blocked, idle0)),
    ];
    assert_eq!(events, expected);

    let m = &got.meta;
    assert_eq!(m.format, Some(ingest::Format::Perfetto));
    assert_eq!(m.format_version, "protobuf (compact_sched)");
    assert_eq!(m.kernel_release.as_deref(), Some("6.6.0-test"));
    assert_eq!(m.cpus, Some(2));
    assert_eq!(m.clock.as_deref(), Some("boot"));
    assert_eq!(m.extra.get("machine").map(String::as_str), Some("x86_64"));
    assert_eq!(
        m.extra.get("ftrace_overrun_cpu1").map(String::as_str),
        Some("7")
    );
    assert_eq!(
        m.extra.get("lost_event_marks").map(String::as_str),
        Some("1")
    );
    let s = &got.stats;
    assert_eq!(s.events.get("sched_switch"), Some(&4));
    assert_eq!(s.events.get("sched_waking"), Some(&2));
    assert_eq!(s.events.get("sched_migrate_task"), Some(&1));
    assert_eq!(s.events.len(), 3);
    // The late CPU 1 bundle (loss mark + migrate at 1800) came after 2000 and 2100.
    assert_eq!(s.out_of_order, 2);
}

/// Kernels before 4.14 store the raw task state: 2048 is "R+" (TASK_STATE_MAX) and
/// 64 is "x" (dead); read with the 4.14+ encoding they would be R and P (blocked).
#[test]
fn prev_state_follows_the_kernel_release() {
    let classes = |release: &str| {
        let bytes = two_cpu_trace(release, 2048, 64);
        let mut states = Vec::new();
        ingest::read_bytes(&bytes, &mut |e: &Event| {
            if let EventKind::Switch { prev_state, .. } = e.kind {
                states.push(prev_state)
            }
        })
        .unwrap();
        states
    };
    use PrevState::*;
    assert_eq!(
        classes("4.9.0-android"),
        vec![Sleeping, Runnable, Preempted, Dead]
    );
    assert_eq!(
        classes("6.1.0"),
        vec![Sleeping, Runnable, Runnable, Blocked]
    );
    // No usable release: the current encoding.
    assert_eq!(classes(""), classes("6.1.0"));
}
