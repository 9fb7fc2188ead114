//! Report shaping (filter, group, sort, top), JSON round trip and text output on a
//! hand-built stream whose numbers are worked out by hand.

use crate::common::*;
use analysis::{CommFilter, GroupBy, Report, Selection, SortKey};
use ingest::EventKind;
use ingest::PrevState::{Runnable as R, Sleeping as S};
use render::TextOptions;

/// Three workers on cpu0, two of one process: worker1 (pid 11, tgid 11), worker2 (12,
/// tgid 11) and other3 (13, tgid 13). Each is woken once and waits 100, 200, 300 ns.
fn report() -> Report {
    let mut events = vec![];
    for (pid, tgid, comm) in [(11, 11, "worker1"), (12, 11, "worker2"), (13, 13, "other3")] {
        events.push(ev(
            0,
            0,
            -1,
            EventKind::TaskName {
                pid,
                tgid,
                comm: ingest::Comm::from(comm),
            },
        ));
    }
    let names = |pid: i32| match pid {
        11 => named(11, "worker1"),
        12 => named(12, "worker2"),
        13 => named(13, "other3"),
        _ => named(0, "swapper/0"),
    };
    let mut t = 1000;
    for (pid, wait, run) in [(11, 100, 1000), (12, 200, 3000), (13, 300, 2000)] {
        events.push(waking(t, 1, 0, pid, 0));
        events.push(switch_named(t + wait, 0, names(0), R, names(pid)));
        events.push(switch_named(t + wait + run, 0, names(pid), S, names(0)));
        t += 10_000;
    }
    analyze(&events)
}

#[test]
fn sort_top_and_filters() {
    let r = report();
    let pids = |r: &Report| r.tasks.iter().map(|t| t.pid).collect::<Vec<_>>();
    assert_eq!(pids(&r), vec![12, 13, 11], "default order: runtime");
    let by = |sort| {
        r.select(&Selection {
            sort,
            ..Default::default()
        })
    };
    assert_eq!(pids(&by(SortKey::WakeupMax)), vec![13, 12, 11]);
    assert_eq!(pids(&by(SortKey::Pid)), vec![11, 12, 13]);
    assert_eq!(pids(&by(SortKey::Comm)), vec![13, 11, 12]);
    let top = r.select(&Selection {
        sort: SortKey::WakeupMax,
        top: Some(1),
        ..Default::default()
    });
    assert_eq!(pids(&top), vec![13]);
    let only = r.select(&Selection {
        pids: vec![11, 13],
        ..Default::default()
    });
    assert_eq!(pids(&only), vec![13, 11]);
    let comm = r.select(&Selection {
        comm: Some(CommFilter::parse("^work").unwrap()),
        ..Default::default()
    });
    assert_eq!(pids(&comm), vec![12, 11]);
    assert!("wakeup-p99".parse::<SortKey>().is_ok());
    assert!("nonsense".parse::<SortKey>().is_err());
}

#[test]
fn grouping_merges_samples_exactly() {
    let r = report();
    let by_name = r.select(&Selection {
        group: GroupBy::Name,
        sort: SortKey::Comm,
        ..Default::default()
    });
    let w = by_name.tasks.iter().find(|t| t.comm == "worker").unwrap();
    assert_eq!(w.members, vec![11, 12]);
    assert_eq!(w.runtime_ns, 4000);
    let lat = w.wakeup_latency;
    assert_eq!((lat.count, lat.sum_ns, lat.mean_ns), (2, 300, 150));
    assert_eq!(
        (lat.p50_ns, lat.p90_ns, lat.max_ns, lat.max_at_ns),
        (100, 200, 200, 11_200)
    );
    assert!(w.percentiles_exact);

    let by_process = r.select(&Selection {
        group: GroupBy::Process,
        ..Default::default()
    });
    let p = by_process.tasks.iter().find(|t| t.pid == 11).unwrap();
    assert_eq!(
        (p.comm.as_str(), p.members.len(), p.tgid),
        ("worker1", 2, Some(11))
    );
    assert_eq!(by_process.tasks.len(), 2);

    // Read back from JSON the samples are gone: grouped percentiles become upper bounds.
    let json = serde_json::to_string(&r).unwrap();
    let back: Report = serde_json::from_str(&json).unwrap();
    assert_eq!(
        serde_json::to_string(&back).unwrap(),
        json,
        "JSON round trip"
    );
    let g = back.select(&Selection {
        group: GroupBy::Name,
        ..Default::default()
    });
    let w = g.tasks.iter().find(|t| t.comm == "worker").unwrap();
    assert!(!w.percentiles_exact);
    assert_eq!((w.wakeup_latency.count, w.wakeup_latency.p50_ns), (2, 200));
}

#[test]
fn text_output_has_header_task_and_cpu_tables() {
    let r = report();
    let text = render::report(&r, &TextOptions::default());
    assert!(text.contains("file:     hand-made"), "{text}");
    assert!(
        text.contains("wakeup latency timed from sched_waking"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("worker2:12"))
        .unwrap();
    let cells: Vec<&str> = line.split_whitespace().collect();
    // task, runtime ms, vol, invol, wakeups, lat avg/p99/max us, max at s, dly avg/max us, migr
    assert_eq!(
        cells,
        vec![
            "worker2:12",
            "0.003",
            "1",
            "0",
            "1",
            "0.200",
            "0.200",
            "0.200",
            "0.000011",
            "0.200",
            "0.200",
            "0"
        ]
    );
    let header = text.lines().find(|l| l.contains("task:pid")).unwrap();
    assert_eq!(
        header.find("runtime ms").map(|i| i + 10),
        line.find("0.003").map(|i| i + 5),
        "columns align"
    );
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().next() == Some("0")),
        "cpu row"
    );
    assert!(!text.contains("WARNING"));
}
