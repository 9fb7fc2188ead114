//! Hand-built event streams for the rules of docs/metrics.md §4–7 (wakeup preemption,
//! fairness, cache affinity, work conservation, runqueue depth), each expected number
//! worked out by hand next to its stream.

use crate::common::*;
use analysis::Config;
use ingest::PrevState::{Preempted as RP, Sleeping as S};
use ingest::{Comm, Event, EventKind, TaskRef};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn with_topology(llcs: &str) -> Config {
    let t = analysis::topology_load::from_json(llcs).unwrap();
    Config {
        topology: Some((t, "test".into())),
        ..Default::default()
    }
}

fn prio_task(pid: i32, prio: i32) -> TaskRef {
    TaskRef {
        pid,
        comm: Comm::from(format!("t{pid}").as_str()),
        prio,
    }
}

fn waking_prio(ts: u64, cpu: u32, waker: i32, task: TaskRef, target: i32) -> Event {
    ev(
        ts,
        cpu,
        waker,
        EventKind::Waking {
            task,
            target_cpu: target,
        },
    )
}

/// Two equal tasks, both runnable on cpu0 from 0, take turns: A (10) 100..1100 and
/// 2100..3100, B (20) 1100..2100 and 3100..4100. Window 0..4100.
#[test]
fn two_tasks_round_robin() {
    let events = vec![
        waking(0, 1, 0, 10, 0),
        waking(0, 1, 0, 20, 0),
        switch(100, 0, 0, RP, 10),
        switch(1100, 0, 10, RP, 20),
        switch(2100, 0, 20, RP, 10),
        switch(3100, 0, 10, RP, 20),
        switch(4100, 0, 20, RP, 10),
    ];
    let r = analyze(&events);
    let (a, b) = (row(&r, 10), row(&r, 20));
    // Both compete on cpu0 for the whole 4100 ns with equal weights: 2050 each.
    let fa = a.fairness.unwrap();
    let fb = b.fairness.unwrap();
    assert_eq!((fa.weight, fb.weight), (1024, 1024));
    assert!(close(fa.entitlement_ns, 2050.0) && close(fb.entitlement_ns, 2050.0));
    assert_eq!((fa.runtime_ns, fb.runtime_ns), (2000, 2000));
    assert!(close(fa.ratio.unwrap(), 2000.0 / 2050.0));
    // Lag of A: +50 at 100, -450 at 1100 and 3100; of B: +550 at 1100 and 3100.
    assert!(close(fa.max_abs_lag_ns, 450.0), "{}", fa.max_abs_lag_ns);
    assert!(close(fb.max_abs_lag_ns, 550.0), "{}", fb.max_abs_lag_ns);
    assert!(close(r.system.fairness.jain.unwrap(), 1.0));
    assert!(close(r.system.fairness.max_abs_lag_ns, 550.0));
    assert!(close(r.cpus[0].fairness_jain.unwrap(), 1.0));
    // Both woke at 0, before A ran: no switch is a wakeup preemption.
    assert_eq!(r.system.wakeup_preemption.count, 0);
    assert_eq!((a.switch_out.preempt, b.switch_out.preempt), (2, 2));
    // Runqueue of cpu0: 2 waiting over 0..100, then 1 until 4100.
    let rq = r.cpus.iter().find(|c| c.cpu == 0).unwrap().runqueue;
    assert!(close(rq.mean_depth, (2.0 * 100.0 + 4000.0) / 4100.0));
    assert_eq!(rq.max_depth, 2);
    // Shorter than the shortest window (10 ms): no short-term value.
    assert!(r
        .system
        .fairness
        .short_term
        .iter()
        .all(|s| s.windows == 0 && s.mean.is_none()));
}

/// cpu1 runs C (30). A (10) runs on cpu0 from 0.
/// - B (20) is woken by C at 500 (wakeup onto cpu0 at 510) and takes cpu0 from A at 1000:
///   a wakeup preemption (A ran there since 0).
/// - D (40) is woken by B at 1200 onto cpu0; B blocks at 1500 and D runs: not a preemption.
/// - E (50) is woken by D at 1600 onto cpu0; D is preempted at 1700 by A (A's wait was a
///   preemption: plain preempt); A is preempted at 1800 by E, but E woke at 1600, before
///   A got the CPU at 1700: plain preempt (rule 3).
#[test]
fn wakeup_preemption_rules() {
    let events = vec![
        switch(0, 0, 0, RP, 10),
        switch(0, 1, 0, RP, 30),
        waking(500, 1, 30, 20, 0),
        wakeup(510, 1, 30, 20, 0),
        switch(1000, 0, 10, RP, 20),
        waking(1200, 0, 20, 40, 0),
        wakeup(1200, 0, 20, 40, 0),
        switch(1500, 0, 20, S, 40),
        waking(1600, 0, 40, 50, 0),
        wakeup(1600, 0, 40, 50, 0),
        switch(1700, 0, 40, RP, 10),
        switch(1800, 0, 10, RP, 50),
        switch(2000, 0, 50, S, 0),
    ];
    let r = analyze(&events);
    let p = &r.system.wakeup_preemption;
    assert_eq!(p.count, 1);
    // B, D and E each found cpu0 running another task: 1 of 3.
    assert_eq!(p.busy_target_wakeups, 3);
    assert!(close(p.ratio_busy_target.unwrap(), 1.0 / 3.0));
    assert!(close(p.per_sec, 1.0 / 2000e-9));
    assert_eq!(p.top_triples.len(), 1);
    let t = &p.top_triples[0];
    assert_eq!(
        (
            t.waker.as_str(),
            t.wakee.as_str(),
            t.victim.as_str(),
            t.count
        ),
        ("t30", "t20", "t10", 1)
    );
    let a = row(&r, 10);
    assert_eq!((a.preemption.caused, a.preemption.suffered), (0, 1));
    assert_eq!((a.switch_out.wakeup_preempt, a.switch_out.preempt), (1, 1));
    assert_eq!(a.switches.involuntary, 2);
    let b = row(&r, 20);
    assert_eq!((b.preemption.caused, b.switch_out.block), (1, 1));
    let d = row(&r, 40);
    assert_eq!((d.switch_out.wakeup_preempt, d.switch_out.preempt), (0, 1));
    assert_eq!(row(&r, 50).preemption.caused, 0);
    assert_eq!(cpu(&r, 0).wakeup_preemptions, 1);
    // B was woken from cpu1 and ran on cpu0 (remote); D and E were woken on cpu0 (local).
    assert_eq!(
        (b.affinity.wakeups_local, b.affinity.wakeups_remote),
        (0, 1)
    );
    assert_eq!(b.affinity.wakeup_latency_remote.sum_ns, 1000 - 500);
    assert_eq!(
        (
            d.affinity.wakeups_local,
            d.affinity.wakeup_latency_local.sum_ns
        ),
        (1, 300)
    );
    assert_eq!(
        (
            r.system.affinity.wakeups_local,
            r.system.affinity.wakeups_remote
        ),
        (2, 1)
    );
}

/// nice 0 (A, prio 120, weight 1024) and nice 5 (B, prio 125, weight 335) both runnable
/// on cpu0 from 0; A runs 100..3100, B 3100..4100.
#[test]
fn nice0_vs_nice5_entitlement() {
    let (a, b) = (prio_task(10, 120), prio_task(20, 125));
    let events = vec![
        waking_prio(0, 1, 0, a, 0),
        waking_prio(0, 1, 0, b, 0),
        switch_named(100, 0, task(0), RP, a),
        switch_named(3100, 0, a, RP, b),
        switch_named(4100, 0, b, RP, a),
    ];
    let r = analyze(&events);
    let (fa, fb) = (row(&r, 10).fairness.unwrap(), row(&r, 20).fairness.unwrap());
    assert_eq!((fa.weight, fb.weight), (1024, 335));
    let ent_a = 4100.0 * 1024.0 / 1359.0;
    let ent_b = 4100.0 * 335.0 / 1359.0;
    assert!(close(fa.entitlement_ns, ent_a) && close(fb.entitlement_ns, ent_b));
    assert!(close(fa.ratio.unwrap(), 3000.0 / ent_a) && close(fb.ratio.unwrap(), 1000.0 / ent_b));
    // A's lag is lowest at 3100 (3100*1024/1359 - 3000); B's highest at 3100 (not run yet).
    assert!(close(fa.max_abs_lag_ns, 3000.0 - 3100.0 * 1024.0 / 1359.0));
    assert!(close(fb.max_abs_lag_ns, 3100.0 * 335.0 / 1359.0));
    let (x, y) = (fa.ratio.unwrap(), fb.ratio.unwrap());
    assert!(close(
        r.system.fairness.jain.unwrap(),
        (x + y).powi(2) / (2.0 * (x * x + y * y))
    ));
    // A real-time task (prio 50) is left out of fairness.
    let rt = prio_task(30, 50);
    let r = analyze(&[
        waking_prio(0, 1, 0, rt, 0),
        switch_named(100, 0, task(0), RP, rt),
        switch_named(200, 0, rt, S, task(0)),
    ]);
    assert!(row(&r, 30).fairness.is_none());
    assert_eq!(r.system.fairness.tasks, 0);
}

/// LLCs {0,1} and {2,3}. A (10) runs on cpu0 (100), is woken on cpu1 by B (20) and runs
/// there (200: same-LLC move), then is woken from cpu3 and runs on cpu2 (400: cross-LLC).
#[test]
fn cross_llc_migration_and_placement() {
    let events = vec![
        switch(0, 0, 0, RP, 10),
        switch(0, 1, 0, RP, 20),
        switch(0, 3, 0, RP, 30),
        switch(100, 0, 10, S, 0),
        waking(150, 1, 20, 10, 1),
        switch(200, 1, 20, S, 10),
        switch(400, 1, 10, S, 0),
        waking(450, 3, 30, 10, 2),
        switch(500, 2, 0, RP, 10),
        switch(900, 2, 10, S, 0),
    ];
    let r = analyze_with(&events, with_topology(r#"{"llcs": ["0-1", "2-3"]}"#));
    let a = row(&r, 10);
    assert_eq!(a.migrations, 2);
    let p = &a.affinity.placement;
    assert_eq!(
        (p.same_cpu, p.same_llc, p.same_node, p.remote_node),
        (0, 1, 1, 0)
    );
    // First wakeup fired on cpu1 where A ran next; the second on cpu3, A ran on cpu2.
    assert_eq!((p.waker_cpu, p.waker_llc, p.other), (1, 1, 0));
    assert_eq!(
        (a.affinity.wakeups_local, a.affinity.wakeups_remote),
        (1, 1)
    );
    assert_eq!(a.affinity.warm_restart_share, Some(0.0));
    // Runtime: cpu0 100, cpu1 200, cpu2 400 -> top CPU 400/700, top LLC {2,3} 400/700.
    assert!(close(a.affinity.top_cpu_share.unwrap(), 400.0 / 700.0));
    assert!(close(a.affinity.top_llc_share.unwrap(), 400.0 / 700.0));
    let s = &r.system.affinity;
    assert!(s.topology);
    let m = &s.migrations_by_class;
    assert_eq!(
        (
            m.same_core,
            m.same_llc,
            m.same_node,
            m.remote_node,
            m.unknown
        ),
        (0, 1, 1, 0, 0)
    );
    assert_eq!(s.cross_llc_share, Some(0.5));
    assert_eq!(r.source.topology.as_ref().unwrap().llcs, vec!["0-1", "2-3"]);
    // Without topology only the same-CPU class is known.
    let r = analyze(&events);
    let s = &r.system.affinity;
    assert!(!s.topology && s.cross_llc_share.is_none());
    assert_eq!(s.migrations_by_class.unknown, 2);
}

/// LLCs {0,1} and {2,3}. A (10) runs on cpu0 0..1000; B (20) is woken onto cpu0 at 100
/// and waits until 1000. cpu1 and cpu2 are idle from 0; cpu3 has no events (unknown).
#[test]
fn idle_cpu_next_to_a_queued_task() {
    let events = vec![
        switch(0, 0, 0, RP, 10),
        switch(0, 1, 30, S, 0),
        switch(0, 2, 40, S, 0),
        waking(100, 0, 10, 20, 0),
        switch(1000, 0, 10, S, 20),
    ];
    let r = analyze_with(&events, with_topology(r#"{"llcs": ["0-1", "2-3"]}"#));
    let w = &r.system.work_conservation;
    // B waits 900 ns; cpu1 and cpu2 are idle meanwhile; only cpu1 shares cpu0's LLC.
    assert_eq!(w.idle_while_runnable_ns, 2 * 900);
    assert_eq!(w.idle_while_runnable_llc_ns, Some(900));
    assert_eq!(r.system.cpus, 3);
    assert!(close(w.idle_while_runnable_share, 1800.0 / (1000.0 * 3.0)));
    assert_eq!(w.by_llc.len(), 2);
    assert_eq!(
        (
            w.by_llc[0].cpus.as_str(),
            w.by_llc[0].idle_while_runnable_ns
        ),
        ("0-1", 900)
    );
    assert_eq!(w.by_llc[1].idle_while_runnable_ns, 0);
    let rq = cpu(&r, 0).runqueue;
    assert!(close(rq.mean_depth, 900.0 / 1000.0));
    assert_eq!(rq.max_depth, 1);
    // Without topology: anywhere only.
    let r = analyze(&events);
    assert_eq!(r.system.work_conservation.idle_while_runnable_ns, 1800);
    assert_eq!(r.system.work_conservation.idle_while_runnable_llc_ns, None);
}
