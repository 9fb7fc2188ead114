//! One hand-built event stream per rule of docs/metrics.md §2–4 and §9, with the
//! expected numbers worked out by hand next to each stream.

use crate::common::*;
use analysis::Config;
use ingest::PrevState::{Blocked as D, Dead as X, Preempted as RP, Runnable as R, Sleeping as S};

/// A runs 1000..2000 on cpu0, sleeps, is woken at 5000 (wakeup from cpu1), runs
/// 5300..6000 and sleeps again.
fn simple_stream() -> Vec<ingest::Event> {
    vec![
        switch(1000, 0, 0, R, 10),
        switch(2000, 0, 10, S, 0),
        wakeup(5000, 1, 0, 10, 0),
        switch(5300, 0, 0, R, 10),
        switch(6000, 0, 10, S, 0),
    ]
}

#[test]
fn wakeup_then_switch_in_is_one_latency() {
    let r = analyze(&simple_stream());
    let a = row(&r, 10);
    assert_eq!(a.wakeup_latency.count, 1);
    assert_eq!(a.wakeup_latency.sum_ns, 5300 - 5000);
    assert_eq!(
        (a.wakeup_latency.max_ns, a.wakeup_latency.max_at_ns),
        (300, 5300)
    );
    assert_eq!(a.wakeup_latency.p50_ns, 300);
    assert_eq!(a.preemption_wait.count, 0);
    assert_eq!(a.sched_delay.count, 1);
    assert_eq!(a.sched_delay.sum_ns, 300);
    assert_eq!(a.wakeups, 1);
    assert_eq!(a.runtime_ns, (2000 - 1000) + (6000 - 5300));
    // Two complete slices: 1000 (ended 2000) and 700.
    assert_eq!((a.slices.count, a.slices.sum_ns), (2, 1700));
    assert_eq!((a.slices.max_ns, a.slices.max_at_ns), (1000, 2000));
    assert_eq!((a.switches.voluntary, a.switches.involuntary), (2, 0));
    assert_eq!(a.switch_out.block, 2);
    // Asleep from the switch-out at 2000 to the wakeup at 5000.
    assert_eq!(a.sleep_ns, 3000);
    assert_eq!(a.unknown_ns, 0);
    assert_eq!(a.migrations, 0);
    assert_eq!(r.quality.wakeup_event, "sched_wakeup");
    assert_eq!(r.quality.wakeup_latency_started_by["sched_wakeup"], 1);
    assert!(r.tasks.iter().all(|t| t.pid != 0), "pid 0 is never a task");
}

#[test]
fn per_cpu_busy_idle_utilization_and_switches() {
    let r = analyze(&simple_stream());
    assert_eq!((r.window.start_ns, r.window.end_ns), (1000, 6000));
    let c0 = cpu(&r, 0);
    assert_eq!(c0.busy_ns, 1000 + 700);
    assert_eq!(c0.idle_ns, 5300 - 2000);
    assert_eq!(c0.unknown_ns, 0);
    assert_eq!(c0.switches, 4);
    assert!((c0.utilization - 1700.0 / 5000.0).abs() < 1e-12);
    assert!((c0.switches_per_sec - 4.0 / 5000e-9).abs() < 1e-3);
    // cpu1 has one event and no switch: what it ran from then on is unknown.
    let c1 = cpu(&r, 1);
    assert_eq!(
        (c1.busy_ns, c1.idle_ns, c1.unknown_ns, c1.switches),
        (0, 0, 1000, 0)
    );
}

#[test]
fn time_window_clips_intervals_and_counts() {
    let config = Config {
        time_window: Some((1500, 5500)),
        cpus: None,
        ..Default::default()
    };
    let r = analyze_with(&simple_stream(), config);
    assert_eq!((r.window.start_ns, r.window.end_ns), (1500, 5500));
    let a = row(&r, 10);
    // [1000,2000) clipped to [1500,2000) and [5300,6000) to [5300,5500).
    assert_eq!(a.runtime_ns, 500 + 200);
    // Only the slice ending at 2000 ends inside the window; it keeps its full length.
    assert_eq!((a.slices.count, a.slices.sum_ns), (1, 1000));
    assert_eq!(a.switches.voluntary, 1);
    assert_eq!(a.wakeup_latency.count, 1);
    assert_eq!(a.sleep_ns, 3000);
    let c0 = cpu(&r, 0);
    assert_eq!((c0.busy_ns, c0.idle_ns), (700, 3300));
    // switches at 2000 and 5300 are inside [1500, 5500).
    assert_eq!(c0.switches, 2);
    assert!((c0.utilization - 700.0 / 4000.0).abs() < 1e-12);
}

#[test]
fn cpu_selection_keeps_only_time_on_those_cpus() {
    let events = vec![
        switch(1000, 0, 0, R, 10),
        switch(2000, 0, 10, S, 0),
        waking(2500, 0, 0, 10, 1),
        switch(2600, 1, 0, R, 10),
        switch(3000, 1, 10, S, 0),
    ];
    let config = Config {
        time_window: None,
        cpus: Some(vec![1]),
        ..Default::default()
    };
    let r = analyze_with(&events, config);
    assert_eq!(r.cpus.len(), 1);
    assert_eq!(r.cpus[0].cpu, 1);
    let a = row(&r, 10);
    assert_eq!(a.runtime_ns, 400);
    assert_eq!(a.switches.voluntary, 1);
    assert_eq!(a.migrations, 1);
    assert_eq!((a.wakeup_latency.count, a.wakeup_latency.sum_ns), (1, 100));
}

#[test]
fn preemption_then_switch_in_is_one_preemption_wait() {
    let events = vec![
        switch(1000, 0, 0, R, 10),
        waking(1500, 0, 10, 20, 0),
        // 10 is preempted by 20 (R+), waits 1800..2500.
        switch(1800, 0, 10, RP, 20),
        switch(2500, 0, 20, S, 10),
        switch(3000, 0, 10, S, 0),
    ];
    let r = analyze(&events);
    let a = row(&r, 10);
    assert_eq!(
        (a.preemption_wait.count, a.preemption_wait.sum_ns),
        (1, 700)
    );
    assert_eq!(a.preemption_wait.max_at_ns, 2500);
    assert_eq!(a.wakeup_latency.count, 0);
    assert_eq!((a.switches.voluntary, a.switches.involuntary), (1, 1));
    // 20 was woken onto cpu0 at 1500 while 10 ran there since 1000: a wakeup preemption (§5).
    assert_eq!(
        (
            a.switch_out.wakeup_preempt,
            a.switch_out.preempt,
            a.switch_out.block
        ),
        (1, 0, 1)
    );
    assert_eq!(a.runtime_ns, 800 + 500);
    let b = row(&r, 20);
    assert_eq!((b.wakeup_latency.count, b.wakeup_latency.sum_ns), (1, 300));
    assert_eq!(b.runtime_ns, 700);
    assert_eq!(r.quality.wakeup_event, "sched_waking");
}

#[test]
fn sched_delay_is_the_union_of_both_waits() {
    let events = vec![
        switch(1000, 0, 0, R, 10),
        switch(1100, 0, 10, S, 0),
        waking(2000, 1, 0, 10, 0),
        switch(2300, 0, 0, R, 10),  // wakeup latency 300
        switch(2400, 0, 10, R, 30), // plain R: preemption (yield)
        switch(2900, 0, 30, D, 10), // preemption wait 500
        switch(3000, 0, 10, S, 0),
    ];
    let r = analyze(&events);
    let a = row(&r, 10);
    assert_eq!((a.wakeup_latency.count, a.wakeup_latency.sum_ns), (1, 300));
    assert_eq!(
        (a.preemption_wait.count, a.preemption_wait.sum_ns),
        (1, 500)
    );
    let d = a.sched_delay;
    assert_eq!((d.count, d.sum_ns, d.mean_ns), (2, 800, 400));
    // nearest rank over {300, 500}: p50 = 1st value, p90 = 2nd.
    assert_eq!(
        (d.p50_ns, d.p90_ns, d.max_ns, d.max_at_ns),
        (300, 500, 500, 2900)
    );
    assert_eq!((a.switches.voluntary, a.switches.involuntary), (2, 1));
    // 30 first appears switching in: its earlier life is unseen, its D switch is voluntary.
    let c = row(&r, 30);
    assert_eq!(
        (c.runtime_ns, c.switches.voluntary, c.unknown_ns),
        (500, 1, 0)
    );
}

#[test]
fn first_event_switch_out_leaves_earlier_time_uncounted() {
    let events = vec![
        switch(1000, 0, 10, S, 0),
        waking(2000, 1, 0, 10, 0),
        switch(2500, 0, 0, R, 10),
        other(4000, 0, 10),
    ];
    let r = analyze(&events);
    let a = row(&r, 10);
    // Running before 1000 since an unknown time: neither runtime nor unknown nor a slice.
    assert_eq!(a.runtime_ns, 4000 - 2500);
    assert_eq!(a.unknown_ns, 0);
    assert_eq!(a.slices.count, 0);
    assert_eq!(a.switches.voluntary, 1);
    assert_eq!(a.sleep_ns, 1000);
    assert_eq!((a.wakeup_latency.count, a.wakeup_latency.sum_ns), (1, 500));
    // cpu0: unknown occupant until its first switch (which is its first event), then idle.
    let c0 = cpu(&r, 0);
    assert_eq!((c0.unknown_ns, c0.idle_ns, c0.busy_ns), (0, 1500, 1500));
}

#[test]
fn lost_events_stop_latency_and_mark_unknown_until_next_switch() {
    let events = vec![
        switch(1000, 0, 0, R, 10),
        switch(1200, 1, 0, R, 30),
        switch(1500, 1, 30, S, 0),
        waking(2000, 0, 10, 20, 0), // 20's wait starts on cpu0...
        lost(3000, 0, Some(5)),     // ...whose events after 2000 may be lost
        waking(3500, 1, 0, 30, 1),  // 30's transitions are on cpu1: unaffected
        switch(3600, 1, 0, R, 30),
        switch(4000, 0, 10, S, 20),
        other(5000, 1, 30),
    ];
    let r = analyze(&events);
    assert_eq!(r.quality.lost_events.len(), 1);
    assert_eq!(
        r.quality.lost_events[0],
        analysis::report::LostRow {
            cpu: 0,
            ts_ns: 3000,
            count: Some(5)
        }
    );
    let a = row(&r, 10);
    // Known running 1000..2000 (the cpu's last event before the loss), unknown 2000..4000.
    assert_eq!((a.runtime_ns, a.unknown_ns), (1000, 2000));
    assert_eq!(a.slices.count, 0, "the slice spans the loss");
    assert_eq!(a.switches.voluntary, 1);
    let b = row(&r, 20);
    assert_eq!(b.wakeup_latency.count, 0, "no latency across lost events");
    assert_eq!(b.wakeups, 1);
    assert_eq!((b.unknown_ns, b.runtime_ns), (2000, 1000));
    let c = row(&r, 30);
    assert_eq!((c.wakeup_latency.count, c.wakeup_latency.sum_ns), (1, 100));
    assert_eq!(c.unknown_ns, 0);
    assert_eq!(r.quality.unknown_ns, 4000);
    let c0 = cpu(&r, 0);
    assert_eq!(
        (c0.busy_ns, c0.unknown_ns, c0.lost_events),
        (1000 + 1000, 2000, 1)
    );
    assert!(
        r.quality.context_switch_bugs.is_empty(),
        "a switch after a loss is not a bug"
    );
}

#[test]
fn context_switch_bug_prev_is_not_what_the_cpu_ran() {
    let events = vec![
        switch(500, 1, 0, R, 20),
        switch(800, 1, 20, S, 0),
        switch(1000, 0, 0, R, 10),
        other(1500, 0, 10), // 10 still on cpu0 at 1500
        // missing: 10 -> 20 on cpu0 somewhere in (1500, 3000)
        switch(3000, 0, 20, S, 0),
        other(4000, 1, 0),
    ];
    let r = analyze(&events);
    assert_eq!(
        r.quality.context_switch_bugs,
        vec![analysis::report::CpuCount { cpu: 0, count: 1 }]
    );
    assert_eq!(cpu(&r, 0).context_switch_bugs, 1);
    let a = row(&r, 10);
    // Ran 1000..1500 for sure, then its state is unknown to the end of the trace.
    assert_eq!((a.runtime_ns, a.unknown_ns), (500, 2500));
    let b = row(&r, 20);
    // Slept 800..1500, unknown 1500..3000, asleep again 3000..4000.
    assert_eq!(
        (b.sleep_ns, b.unknown_ns, b.runtime_ns),
        (700 + 1000, 1500, 300)
    );
    assert_eq!(b.switches.voluntary, 2);
    assert_eq!(b.slices.count, 1);
    assert_eq!(r.quality.unknown_ns, 2500 + 1500);
    let c0 = cpu(&r, 0);
    assert_eq!((c0.busy_ns, c0.unknown_ns, c0.idle_ns), (500, 1500, 1000));
}

#[test]
fn context_switch_bug_next_believed_running_elsewhere() {
    let events = vec![
        switch(1000, 0, 0, R, 10),
        // missing: 10 leaves cpu0
        switch(2000, 1, 0, R, 10),
        other(3000, 0, 0),
    ];
    let r = analyze(&events);
    assert_eq!(
        r.quality.context_switch_bugs,
        vec![analysis::report::CpuCount { cpu: 1, count: 1 }]
    );
    let a = row(&r, 10);
    assert_eq!((a.runtime_ns, a.unknown_ns, a.migrations), (1000, 1000, 1));
    let c0 = cpu(&r, 0);
    assert_eq!((c0.busy_ns, c0.unknown_ns), (0, 2000));
}

#[test]
fn waking_is_preferred_when_the_trace_has_it() {
    let events = vec![
        switch(1000, 0, 10, S, 0),
        switch(1100, 0, 20, S, 0),
        waking(2000, 1, 0, 10, 0),
        wakeup(2200, 0, 0, 10, 0),
        switch(2500, 0, 0, R, 10),
        // 20's waking was not recorded: runnable, but its wait is not timed.
        wakeup(3000, 0, 10, 20, 0),
        switch(3100, 0, 10, S, 20),
    ];
    let r = analyze(&events);
    assert_eq!(r.quality.wakeup_event, "sched_waking");
    let a = row(&r, 10);
    assert_eq!((a.wakeup_latency.count, a.wakeup_latency.sum_ns), (1, 500));
    assert_eq!(a.wakeups, 1);
    let b = row(&r, 20);
    assert_eq!((b.wakeup_latency.count, b.wakeups), (0, 1));
    let by = &r.quality.wakeup_latency_started_by;
    assert_eq!(
        (by["sched_waking"], by["sched_wakeup"], by["untimed"]),
        (1, 0, 1)
    );

    // Without sched_waking, sched_wakeup starts the wait; wakeup_new starts a new task's.
    let events = vec![
        switch(1000, 0, 10, S, 0),
        wakeup(2200, 1, 0, 10, 0),
        wakeup_new(2300, 1, 0, 40, 0),
        switch(2500, 0, 0, R, 10),
        switch(2600, 0, 10, S, 40),
    ];
    let r = analyze(&events);
    assert_eq!(r.quality.wakeup_event, "sched_wakeup");
    assert_eq!(row(&r, 10).wakeup_latency.sum_ns, 300);
    assert_eq!(row(&r, 40).wakeup_latency.sum_ns, 300);
    let by = &r.quality.wakeup_latency_started_by;
    assert_eq!((by["sched_wakeup"], by["sched_wakeup_new"]), (1, 1));
}

#[test]
fn waking_while_still_on_cpu_times_the_wait_from_the_switch_out() {
    let events = vec![
        switch(1000, 0, 0, R, 10),
        waking(1400, 1, 0, 10, 0), // 10 is still finishing its way to sleep
        switch(1500, 0, 10, S, 0),
        wakeup(1550, 0, 0, 10, 0),
        switch(1800, 0, 0, R, 10),
    ];
    let r = analyze(&events);
    let a = row(&r, 10);
    assert_eq!((a.wakeups, a.switches.voluntary), (1, 1));
    assert_eq!((a.wakeup_latency.count, a.wakeup_latency.sum_ns), (1, 300));
    assert_eq!(a.sleep_ns, 0);
}

#[test]
fn migrations_are_switch_ins_on_another_cpu() {
    let events = vec![
        switch(1000, 0, 0, R, 10),
        switch(1100, 0, 10, S, 0),
        switch(1200, 1, 0, R, 10), // 0 -> 1
        switch(1300, 1, 10, S, 0),
        switch(1400, 1, 0, R, 10), // stays on 1
        switch(1500, 1, 10, RP, 0),
        switch(1600, 0, 0, R, 10), // 1 -> 0
        switch(1700, 0, 10, X, 0),
    ];
    let r = analyze(&events);
    let a = row(&r, 10);
    assert_eq!(a.migrations, 2);
    assert_eq!(a.switch_out.exit, 1);
    assert_eq!((a.switches.voluntary, a.switches.involuntary), (2, 1));
    assert_eq!(a.runtime_ns, 400);
    // Asleep 1100..1200 and 1300..1400 but switched in without a recorded wakeup: when
    // it woke is not known, so that time is unknown, not sleep. Dead after 1700.
    assert_eq!((a.sleep_ns, a.unknown_ns), (0, 200));
}

#[test]
fn renames_and_pid_reuse() {
    use ingest::{Comm, EventKind};
    let events = vec![
        switch_named(1000, 0, named(0, "swapper/0"), R, named(10, "bash")),
        switch_named(1100, 0, named(10, "worker"), X, named(0, "swapper/0")),
        ev(
            1200,
            1,
            5,
            EventKind::Fork {
                parent_pid: 5,
                child_pid: 10,
                child_comm: Comm::from("again"),
            },
        ),
        wakeup_new(1300, 1, 5, 10, 1),
        switch_named(1400, 1, named(0, "swapper/1"), R, named(10, "again")),
        other(1500, 1, 10),
    ];
    let r = analyze(&events);
    let rows: Vec<_> = r.tasks.iter().filter(|t| t.pid == 10).collect();
    assert_eq!(rows.len(), 2, "a reused pid is a new task");
    let old = rows.iter().find(|t| t.comm == "worker").unwrap();
    assert_eq!(old.comms, vec!["bash", "worker"]);
    assert_eq!(old.runtime_ns, 100);
    let new = rows.iter().find(|t| t.comm == "again").unwrap();
    assert_eq!((new.runtime_ns, new.wakeup_latency.sum_ns), (100, 100));
}
