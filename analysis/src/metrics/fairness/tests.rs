//! Weights, entitlement, lag and the short-term windows on small hand-made streams.

use super::*;
use crate::stream::{ev, named, other, switch_named};
use ingest::{EventKind, PrevState, TaskRef};

#[test]
fn weights_follow_each_kernels_prio_scale() {
    assert_eq!(PrioScale::Mainline.weight(120), Some(1024));
    assert_eq!(PrioScale::Mainline.weight(125), Some(335));
    assert_eq!(PrioScale::Mainline.weight(99), None, "real-time");
    assert_eq!(PrioScale::Pds.weight(172), Some(1024));
    assert_eq!(PrioScale::Bmq.weight(127), Some(1024), "boost +7 assumed");
    assert_eq!(
        PrioScale::of_release(Some("6.1.192-prjc-pds")),
        PrioScale::Pds
    );
}

#[test]
fn jain_of_equal_shares_is_one_and_falls_with_spread() {
    assert_eq!(jain(&[1.0, 1.0, 1.0]), Some(1.0));
    // (1 + 3)^2 / (2 × (1 + 9)) = 16 / 20
    assert_eq!(jain(&[1.0, 3.0]), Some(0.8));
    assert_eq!(jain(&[]), None);
}

/// A nice 0 and a nice 5 task share CPU 0 for 20 ms, 10 ms each: the fluid share
/// entitles them to 20 × 1024/1359 and 20 × 335/1359 ms.
#[test]
fn entitlement_follows_the_weights() {
    let t0 = 1_000;
    let ms = 1_000_000;
    let a = named(10, "nice0");
    let b = TaskRef {
        prio: 125,
        ..named(11, "nice5")
    };
    let idle = named(0, "swapper");
    let events = [
        switch_named(t0, 0, idle, PrevState::Runnable, a),
        ev(
            t0,
            0,
            10,
            EventKind::Waking {
                task: b,
                target_cpu: 0,
            },
        ),
        switch_named(t0 + 10 * ms, 0, a, PrevState::Runnable, b),
        other(t0 + 20 * ms, 0, 11),
    ];
    let r = crate::analyze_stream(&events, crate::Config::default());
    let row = |pid| r.tasks.iter().find(|t| t.pid == pid).unwrap();
    let fa = row(10).fairness.unwrap();
    let fb = row(11).fairness.unwrap();
    assert_eq!((fa.weight, fb.weight), (1024, 335));
    assert!((fa.entitlement_ns - 20e6 * 1024.0 / 1359.0).abs() < 1e-3);
    assert!((fb.entitlement_ns - 20e6 * 335.0 / 1359.0).abs() < 1e-3);
    assert!((fa.ratio.unwrap() - 1359.0 / 2048.0).abs() < 1e-12);
    assert!((fb.ratio.unwrap() - 1359.0 / 670.0).abs() < 1e-12);
    // The lag is largest at the end: A is owed 15.07 - 10 ms, B over-served by as much.
    let lag = 20e6 * 1024.0 / 1359.0 - 10e6;
    assert!((fa.max_abs_lag_ns - lag).abs() < 1e-3);
    assert!((r.system.fairness.max_abs_lag_ns - lag).abs() < 1e-3);
    let j = jain(&[1359.0 / 2048.0, 1359.0 / 670.0]).unwrap();
    assert!((r.system.fairness.jain.unwrap() - j).abs() < 1e-12);
}

#[test]
fn a_group_is_its_total_runtime_over_its_total_entitlement() {
    let mut g = None;
    let member = |run: u64, ent: f64, lag: f64, at: u64| TaskFairness {
        weight: 1024,
        entitlement_ns: ent,
        runtime_ns: run,
        ratio: Some(run as f64 / ent),
        max_abs_lag_ns: lag,
        max_abs_lag_at_ns: Some(at),
    };
    merge(&mut g, &member(30, 40.0, 5.0, 7));
    merge(&mut g, &member(50, 40.0, 9.0, 3));
    merge(&mut g, &member(50, 40.0, 2.0, 1));
    let g = g.unwrap();
    // The largest lag, with its time; the ratio over the totals.
    assert_eq!(
        (
            g.runtime_ns,
            g.entitlement_ns,
            g.ratio,
            g.max_abs_lag_ns,
            g.max_abs_lag_at_ns
        ),
        (130, 120.0, Some(130.0 / 120.0), 9.0, Some(3))
    );
}

/// The short-term Jain bug of issue #10 in miniature: task 20 is not competing at the
/// 10 ms boundary (it sleeps 2..12 ms), joins again at 12 ms, and from then on only
/// alternates running <-> runnable with task 10 on cpu0 every ms until 60 ms. Every
/// one of the six 10 ms windows has both tasks competing with some entitlement, so
/// all six count. Before the fix task 20 was never a member again: 1 window.
#[test]
fn a_task_off_the_cpus_at_a_boundary_competes_again_in_later_windows() {
    use crate::stream::{switch, waking};
    use PrevState::{Runnable, Sleeping};
    const MS: u64 = 1_000_000;
    let mut events = vec![
        waking(0, 0, 0, 10, 0),
        waking(0, 0, 0, 20, 0),
        switch(MS, 0, 0, Runnable, 20),
        switch(2 * MS, 0, 20, Sleeping, 10),
        waking(12 * MS, 0, 10, 20, 0),
        switch(13 * MS, 0, 10, Runnable, 20),
    ];
    for i in 14..=60u64 {
        let (prev, next) = if i % 2 == 0 { (20, 10) } else { (10, 20) };
        events.push(switch(i * MS, 0, prev, Runnable, next));
    }
    let report = crate::analyze_stream(&events, crate::Config::default());
    let short = &report.system.fairness.short_term[0];
    assert_eq!(short.window_ns, 10 * MS);
    assert_eq!(short.windows, 6);
    // 0..10 ms: both compete until 20 sleeps at 2 ms (1 ms entitlement each), then 10
    // alone: 10 ran 8 of 9 ms, 20 ran 1 of 1 ms; Jain (8/9, 1) = 289/290. 10..60 ms:
    // every task ran exactly its entitlement (10 alone 10..12 ms, then 1 ms turns): 1.
    let first = 289.0 / 290.0;
    assert!((short.min.unwrap() - first).abs() < 1e-12, "{short:?}");
    assert!((short.mean.unwrap() - (first + 5.0) / 6.0).abs() < 1e-12);
}

/// `--series` records every window of its length, with the members' lags, without
/// adding a window length to the report.
#[test]
fn series_windows_are_recorded_and_not_reported() {
    let mut f = Fairness::new();
    assert_eq!(f.record_windows(10_000_000), 0);
    assert_eq!(f.record_windows(5_000_000), 3);
    assert_eq!(f.short.len(), 4);
    let summary = f.summary(std::iter::empty(), String::new());
    assert_eq!(summary.short_term.len(), 3);
}
