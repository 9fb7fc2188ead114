//! ftrace `trace` / `trace_pipe` text recorded on this project's 6.18 machine by
//! fixtures/capture-ftrace-text.sh (pipe ping-pong, five sched events): default columns,
//! record-tgid, latency-format, no irq-info, and a trace_pipe read with lost events.

use crate::text_common::*;
use ingest::{Comm, EventKind, PrevState};
use std::collections::BTreeMap;

/// Independent count for the latency format: the word after the `<µs>us<mark>:` column.
fn count_latency(text: &[u8]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for line in String::from_utf8_lossy(text).lines() {
        if line.starts_with('#') {
            continue;
        }
        // The first `us` right after a digit (comms like `rustc` contain `us` too).
        let Some((at, _)) = line
            .match_indices("us")
            .find(|(i, _)| *i > 0 && line.as_bytes()[i - 1].is_ascii_digit())
        else {
            continue;
        };
        let rest = line[at + 2..].get(1..).unwrap_or("");
        if let Some(after) = rest.strip_prefix(": ") {
            let name = after.split(':').next().unwrap();
            *counts.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

#[test]
fn default_columns_pingpong() {
    let bytes = load(&fixture("ftrace-6.18-pingpong.trace.xz"));
    let (got, events) = read_text(&bytes);
    assert_eq!(got.meta.format_version, "ftrace");
    assert_eq!(got.meta.cpus, Some(2), "#P:2");
    assert!(
        got.stats.rejected.is_empty(),
        "{:?}",
        got.stats.reject_examples
    );
    assert_eq!(got.stats.events, count_by_name(&bytes));
    assert_eq!(events.len(), 78_219, "entries-in-buffer of the header");
    // Only the five enabled events, each decoded into its own kind.
    let k = kinds(&events);
    assert_eq!(
        k.keys().copied().collect::<Vec<_>>(),
        [
            "sched_migrate_task",
            "sched_switch",
            "sched_wakeup",
            "sched_wakeup_new",
            "sched_waking"
        ]
    );
    // Sanity: a ping-pong is mostly switches and wakeups, the two perl tasks run most.
    assert!(
        k["sched_switch"] > 30_000 && k["sched_waking"] > 15_000,
        "{k:?}"
    );
    let mut ins: std::collections::HashMap<(i32, Comm), u64> = Default::default();
    for e in &events {
        if let EventKind::Switch { next, .. } = e.kind {
            *ins.entry((next.pid, next.comm)).or_insert(0) += 1;
        }
    }
    let mut top: Vec<_> = ins.into_iter().collect();
    top.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    assert_eq!(
        (top[0].0 .1, top[1].0 .1),
        (Comm::from("perl"), Comm::from("perl"))
    );
    assert!(events.windows(2).all(|w| w[0].ts <= w[1].ts));

    // capture-ftrace--32364 [000] dN.2. 1544.773941: sched_wakeup_new: comm=capture-ftrace- pid=32367 prio=120 target_cpu=000
    let e = events[0];
    assert_eq!((e.ts, e.cpu, e.current_pid), (1_544_773_941_000, 0, 32364));
    let task = ingest::TaskRef {
        pid: 32367,
        comm: Comm::from("capture-ftrace-"),
        prio: 120,
    };
    assert_eq!(
        e.kind,
        EventKind::WakeupNew {
            task,
            target_cpu: 0
        }
    );
    // ... d..2. 1544.773946: sched_switch: prev_comm=capture-ftrace- prev_pid=32364 ... prev_state=D ==> next_comm=capture-ftrace- next_pid=32367
    let EventKind::Switch {
        prev,
        prev_state,
        next,
    } = events[1].kind
    else {
        panic!("{:?}", events[1])
    };
    assert_eq!(
        (prev.pid, prev_state, next.pid, next.comm),
        (
            32364,
            PrevState::Blocked,
            32367,
            Comm::from("capture-ftrace-")
        )
    );
    // lto cgu.09-32369 [000] dNs1. 1544.852001: sched_migrate_task: comm=lto 8a9l6xpnc4q pid=32343 prio=120 orig_cpu=1 dest_cpu=0
    let e = events
        .iter()
        .find(|e| e.ts == 1_544_852_001_000 && matches!(e.kind, EventKind::Migrate { .. }))
        .unwrap();
    assert_eq!(e.current_pid, 32369);
    let task = ingest::TaskRef {
        pid: 32343,
        comm: Comm::from("lto 8a9l6xpnc4q"),
        prio: 120,
    };
    assert_eq!(
        e.kind,
        EventKind::Migrate {
            task,
            orig_cpu: 1,
            dest_cpu: 0
        }
    );
}

#[test]
fn tgid_latency_and_no_irq_info_variants() {
    for (file, flavour) in [
        ("ftrace-6.18-tgid.trace.xz", "ftrace"),
        ("ftrace-6.18-noirqinfo.trace.xz", "ftrace"),
        ("ftrace-6.18-latency.trace.xz", "ftrace (latency format)"),
    ] {
        let bytes = load(&fixture(file));
        let (got, events) = read_text(&bytes);
        assert_eq!(got.meta.format_version, flavour, "{file}");
        assert_eq!(got.meta.cpus, Some(2), "{file}");
        assert!(
            got.stats.rejected.is_empty(),
            "{file}: {:?}",
            got.stats.reject_examples
        );
        let expected = if flavour.contains("latency") {
            count_latency(&bytes)
        } else {
            count_by_name(&bytes)
        };
        assert_eq!(got.stats.events, expected, "{file}");
        // Every non-comment line of these 3000-line cuts is an event.
        let comments = String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| l.starts_with('#'))
            .count();
        assert_eq!(events.len(), 3000 - comments, "{file}");
    }
    // opt cgu.2-18550 (  18518) style: rustc-32403 (  32401) [001] d..2. 1547.651989: sched_switch: prev_comm=rustc ... prev_state=R ==> next_comm=lto 0qc8vrtkjew next_pid=32409
    let (_, ev) = read_text(&load(&fixture("ftrace-6.18-tgid.trace.xz")));
    assert_eq!(
        (ev[0].ts, ev[0].cpu, ev[0].current_pid),
        (1_547_651_989_000, 1, 32403)
    );
    let EventKind::Switch {
        prev_state, next, ..
    } = ev[0].kind
    else {
        panic!()
    };
    assert_eq!(
        (prev_state, next.pid, next.comm),
        (PrevState::Runnable, 32409, Comm::from("lto 0qc8vrtkjew"))
    );
    // lto 0qc8-32409     1d.h3. 1548256043us : sched_waking: comm=migration/1 pid=21 prio=0 target_cpu=001
    let (got, ev) = read_text(&load(&fixture("ftrace-6.18-latency.trace.xz")));
    assert_eq!(got.meta.kernel_release.as_deref(), Some("6.18.44-fc-v769"));
    assert_eq!(
        (ev[0].ts, ev[0].cpu, ev[0].current_pid),
        (1_548_256_043_000, 1, 32409)
    );
    let task = ingest::TaskRef {
        pid: 21,
        comm: Comm::from("migration/1"),
        prio: 0,
    };
    assert_eq!(
        ev[0].kind,
        EventKind::Waking {
            task,
            target_cpu: 1
        }
    );
    // capture-ftrace--32442 [001]   1548.841922: sched_wakeup_new: comm=capture-ftrace- pid=32445 ...
    let (_, ev) = read_text(&load(&fixture("ftrace-6.18-noirqinfo.trace.xz")));
    assert_eq!(
        (ev[0].ts, ev[0].cpu, ev[0].current_pid),
        (1_548_841_922_000, 1, 32442)
    );
}

#[test]
fn trace_pipe_with_lost_events() {
    let bytes = load(&fixture("ftrace-6.18-lost.trace_pipe.xz"));
    let (got, events) = read_text(&bytes);
    assert_eq!(got.meta.format_version, "ftrace");
    assert_eq!(got.meta.cpus, Some(2), "no header: max CPU seen + 1");
    assert!(
        got.stats.rejected.is_empty(),
        "{:?}",
        got.stats.reject_examples
    );
    assert_eq!(got.stats.events, count_by_name(&bytes));
    // Line 769: `CPU:1 [LOST 367433 EVENTS]`, before
    // `perl-32460 [001] d..2. 1549.684131: sched_switch: ...`: the marker takes that time.
    let lost: Vec<_> = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Lost { .. }))
        .collect();
    assert_eq!(lost.len(), 1);
    assert_eq!((lost[0].ts, lost[0].cpu), (1_549_684_131_000, 1));
    assert_eq!(
        lost[0].kind,
        EventKind::Lost {
            count: Some(367_433)
        }
    );
    assert_eq!(
        events.len() as u64,
        1 + got.stats.events.values().sum::<u64>()
    );
}
