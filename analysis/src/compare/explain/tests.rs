//! `explain` on hand-made reports: the parts, their sum, the ranking, occupants matched by
//! role across runs, the noise rule with repeats, and reports without the split.

use super::model::Explain;
use crate::compare::matching::{MatchBy, Matching};
use crate::compare::{compare, Options, Repeat, Run};
use crate::report::PieceKind;
use serde_json::{json, Value};

/// A task row: `wait` = (enqueue, idle, behind [(pid, comm, ns)], unknown); sched delay is
/// their sum; `slice_p50` its median slice.
fn task(pid: i64, comm: &str, wait: (u64, u64, &[(i64, &str, u64)], u64), slice_p50: u64) -> Value {
    let (enqueue, idle, behind, unknown) = wait;
    let behind_ns: u64 = behind.iter().map(|b| b.2).sum();
    let sum = enqueue + idle + behind_ns + unknown;
    let stats = |sum: u64, p50: u64| {
        json!({"count": 1, "sum_ns": sum, "mean_ns": sum, "p50_ns": p50, "p90_ns": p50,
               "p99_ns": p50, "p999_ns": p50, "max_ns": sum, "max_at_ns": 0, "max_start_ns": 0})
    };
    json!({
        "pid": pid, "comm": comm, "runtime_ns": 1000,
        "slices": stats(1000, slice_p50),
        "sched_delay": stats(sum, sum),
        "wait_causes": {
            "enqueue_ns": enqueue, "idle_ns": idle, "behind_ns": behind_ns, "unknown_ns": unknown,
            "behind": behind.iter().map(|b| json!({"pid": b.0, "comm": b.1, "ns": b.2, "count": 1}))
                .collect::<Vec<_>>(),
            "ended_by": {"wakeup_preemption": 0, "occupant_blocked": 0, "occupant_preempted": 0,
                         "occupant_exited": 0, "idle": 0, "pulled": 0, "unknown": 0},
            "longest": {"start_ns": 10, "end_ns": 10 + sum, "segments": behind.iter().scan(10, |t, b| {
                let s = json!({"kind": "behind", "cpu": 1, "pid": b.0, "comm": b.1,
                               "start_ns": *t, "end_ns": *t + b.2});
                *t += b.2;
                Some(s)
            }).collect::<Vec<_>>(), "segments_left_out": 0}
        }
    })
}

fn repeat(tasks: Vec<Value>) -> Repeat {
    Repeat {
        path: "x.json".into(),
        report: json!({"schema_version": 3, "window": {"start_ns": 0, "end_ns": 1_000_000_000},
                       "system": {"wait_causes": {}}, "tasks": tasks}),
        from_json_report: true,
        samples: None,
    }
}

fn explained(runs: Vec<Run>, opts: &Options) -> Explain {
    compare(&runs, opts).unwrap().explain.unwrap()
}

fn nice_matching() -> Options {
    Options {
        matching: Matching {
            by: Matching::regex(r"nice-?n?(\d)").unwrap(),
            aliases: vec![],
        },
        ..Options::default()
    }
}

/// Role 5 waits behind role 0 in both runs, under different names; the change is split
/// into the parts, they add up, and the largest comes first.
#[test]
fn the_change_splits_into_kinds_and_occupant_roles() {
    let base = repeat(vec![
        task(1, "nice-n0", (0, 0, &[], 0), 2800),
        task(2, "nice-n5", (10, 20, &[(1, "nice-n0", 100)], 0), 2800),
    ]);
    let new = repeat(vec![
        task(7, "nice0", (0, 0, &[], 0), 750),
        task(
            8,
            "nice5",
            (10, 27, &[(7, "nice0", 3000), (9, "kworker/1:1", 5)], 0),
            750,
        ),
    ]);
    let runs = vec![
        Run {
            label: "cfs".into(),
            repeats: vec![base],
        },
        Run {
            label: "bmq".into(),
            repeats: vec![new],
        },
    ];
    let e = explained(runs, &nice_matching());
    let five = e.subjects.iter().find(|s| s.subject == "5").unwrap();
    assert_eq!(five.runs[0].wait_ns, Some(130));
    assert_eq!(five.runs[1].wait_ns, Some(3042));
    assert_eq!(five.runs[1].behind_ns, Some(3005));
    let ch = &five.changes[0];
    assert_eq!(
        (ch.base_wait_ns, ch.wait_ns, ch.change_ns),
        (130, 3042, 2912)
    );
    let parts: Vec<(PieceKind, Option<&str>, i64)> = ch
        .components
        .iter()
        .map(|c| {
            (
                c.kind,
                c.occupant.as_ref().map(|o| o.role.as_str()),
                c.change_ns,
            )
        })
        .collect();
    assert_eq!(
        parts,
        [
            (PieceKind::Behind, Some("0"), 2900),
            (PieceKind::Idle, None, 7),
            (PieceKind::Behind, Some("kworker/1:1"), 5),
            (PieceKind::Enqueue, None, 0),
        ]
    );
    assert_eq!(
        ch.components.iter().map(|c| c.change_ns).sum::<i64>(),
        ch.change_ns
    );
    let top = &ch.components[0];
    assert_eq!(top.rank, Some(1));
    let o = top.occupant.as_ref().unwrap();
    assert_eq!(
        (o.base_comms.as_slice(), o.comms.as_slice()),
        (&["nice-n0".to_string()][..], &["nice0".to_string()][..])
    );
    assert!(o.in_task_table);
    assert_eq!(
        (o.base_slice_p50_ns, o.slice_p50_ns),
        (Some(2800.0), Some(750.0))
    );
    assert_eq!(o.cpus, [1]);
    assert!(!ch.components[2].occupant.as_ref().unwrap().in_task_table);
    // The longest wait's mix in each run.
    let longest = five.runs[1].longest.as_ref().unwrap();
    assert_eq!(
        (longest.comm.as_str(), longest.len_ns, longest.behind_ns),
        ("nice5", 3042, 3005)
    );
    assert_eq!(longest.behind[0].role, "0");
}

/// With repeats a side, a part whose per-repeat values overlap the baseline's moved within
/// the noise: it is listed after the ranked ones, without a rank; the means still add up.
#[test]
fn repeats_rank_only_what_moved_beyond_the_noise() {
    let rep =
        |behind: u64, idle: u64| repeat(vec![task(1, "a", (0, idle, &[(2, "b", behind)], 0), 10)]);
    let runs = vec![
        Run {
            label: "old".into(),
            repeats: vec![rep(100, 10), rep(101, 30)],
        },
        Run {
            label: "new".into(),
            repeats: vec![rep(200, 11), rep(203, 28)],
        },
    ];
    let e = explained(runs, &Options::default());
    let ch = &e.subjects[0].changes[0];
    // Means: old 100.5 + 20 = 120.5 -> 121 (120.5 rounds up) and new 201.5 + 19.5 = 221.
    assert_eq!((ch.base_wait_ns, ch.wait_ns), (121, 221));
    assert_eq!(
        ch.components.iter().map(|c| c.change_ns).sum::<i64>(),
        ch.change_ns
    );
    let behind = &ch.components[0];
    assert_eq!(
        (behind.kind, behind.rank, behind.noise),
        (PieceKind::Behind, Some(1), false)
    );
    assert!(behind.p_value.unwrap() < 0.05);
    let idle = &ch.components[1];
    assert_eq!(
        (idle.kind, idle.rank, idle.noise),
        (PieceKind::Idle, None, true)
    );
}

/// A report without the split (schema 2) gives its run no explanation, not zeros.
#[test]
fn reports_without_the_split_are_not_explained() {
    let mut old = repeat(vec![task(1, "a", (0, 5, &[], 0), 10)]);
    old.report["system"] = json!({});
    let runs = vec![
        Run {
            label: "old".into(),
            repeats: vec![old],
        },
        Run {
            label: "new".into(),
            repeats: vec![repeat(vec![task(1, "a", (0, 5, &[], 0), 10)])],
        },
    ];
    let e = explained(
        runs,
        &Options {
            matching: Matching {
                by: MatchBy::Exact,
                aliases: vec![],
            },
            ..Options::default()
        },
    );
    assert_eq!(e.subjects[0].runs[0].wait_ns, None);
    assert_eq!(e.subjects[0].runs[1].wait_ns, Some(5));
    assert!(e.subjects[0].changes.is_empty());
}
