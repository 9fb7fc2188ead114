//! The system-wide summary (JSON `system`) on a hand-built stream, numbers worked out by hand.

mod common;

use common::*;
use ingest::PrevState::{Preempted as RP, Sleeping as S};

#[test]
fn system_merges_every_tasks_samples_and_totals() {
    // cpu0: 10 runs 1000..2000 and is preempted by 20 (woken at 1500: latency 500);
    // 20 runs 2000..2600 and sleeps; 10 waits 2000..2600 (preemption wait 600), runs to
    // 3000 and sleeps. 30 is woken at 1000 on idle cpu1, runs 1100..1400 there, is woken
    // again at 2100 by 20 onto cpu0 and runs 3000..4000 there (a migration).
    let events = vec![
        switch(1000, 0, 0, RP, 10),
        waking(1000, 1, 0, 30, 1),
        switch(1100, 1, 0, RP, 30),
        switch(1400, 1, 30, S, 0),
        waking(1500, 0, 10, 20, 0),
        switch(2000, 0, 10, RP, 20),
        waking(2100, 0, 20, 30, 0),
        switch(2600, 0, 20, S, 10),
        switch(3000, 0, 10, S, 30),
        switch(4000, 0, 30, S, 0),
    ];
    let r = analyze(&events);
    let s = &r.system;
    // Wakeup latencies: 30: 100 (1000->1100) and 900 (2100->3000); 20: 500 (1500->2000).
    assert_eq!(s.wakeup_latency.count, 3);
    assert_eq!(s.wakeup_latency.sum_ns, 100 + 900 + 500);
    assert_eq!(
        (s.wakeup_latency.p50_ns, s.wakeup_latency.max_ns),
        (500, 900)
    );
    assert_eq!(s.wakeup_latency.max_at_ns, 3000);
    // One preemption wait: 10 from 2000 to 2600.
    assert_eq!(
        (s.preemption_wait.count, s.preemption_wait.sum_ns),
        (1, 600)
    );
    assert_eq!((s.sched_delay.count, s.sched_delay.sum_ns), (4, 2100));
    assert_eq!(s.sched_delay.p50_ns, 500);
    // Voluntary: 30 twice, 20 once, 10 once; involuntary: 10 once.
    assert_eq!((s.switches.voluntary, s.switches.involuntary), (4, 1));
    assert_eq!(s.context_switches, 7);
    // Window 1000..4000 = 3 us: 7 switches / 3e-6 s.
    assert!((s.context_switches_per_sec - 7.0 / 3e-6).abs() < 1e-3);
    // 30 ran on cpu1 then on cpu0: one migration.
    assert_eq!(s.migrations, 1);
    assert!((s.migrations_per_sec - 1.0 / 3e-6).abs() < 1e-3);
    assert_eq!(s.wakeups, 3);
    // Busy: cpu0 1000..4000 = 3000, cpu1 300; two CPUs seen, no CPU count in the metadata.
    assert_eq!(s.cpus, 2);
    assert!((s.utilization - 3300.0 / (3000.0 * 2.0)).abs() < 1e-12);
    assert_eq!(r.source.scheduler, "unknown");
}

fn shared(rel: &str) -> std::path::PathBuf {
    fixtures::trace(rel)
}

fn analyze_file(rel: &str) -> analysis::Report {
    analysis::pipeline::analyze(&shared(rel), &analysis::pipeline::Options::default()).unwrap()
}

/// The scheduler family comes from the trace's own kernel release; the system latency
/// statistics hold every task's samples.
#[test]
fn real_traces_scheduler_and_system_totals() {
    for (rel, release, family) in [
        ("cfs-6.1-vm/nice/trace-v6.dat.xz", "6.1.0-57-amd64", "CFS"),
        (
            "eevdf-6.12-vm/nice/trace-v6.dat.xz",
            "6.12.95+deb12-amd64",
            "EEVDF",
        ),
        (
            "pds-6.1-vm/nice/trace-v6.dat.xz",
            "6.1.192-prjc-pds",
            "BFS family",
        ),
        (
            "bmq-6.1-vm/nice/trace-v6.dat.xz",
            "6.1.192-prjc-bmq",
            "BFS family",
        ),
    ] {
        let r = analyze_file(rel);
        assert_eq!(r.source.kernel_release.as_deref(), Some(release), "{rel}");
        assert_eq!(r.source.scheduler, family, "{rel}");
        let s = &r.system;
        let lat: u64 = r.tasks.iter().map(|t| t.wakeup_latency.count).sum();
        let lat_sum: u64 = r.tasks.iter().map(|t| t.wakeup_latency.sum_ns).sum();
        let max = r.tasks.iter().map(|t| t.sched_delay.max_ns).max().unwrap();
        assert_eq!(
            (s.wakeup_latency.count, s.wakeup_latency.sum_ns),
            (lat, lat_sum),
            "{rel}"
        );
        assert_eq!(s.sched_delay.max_ns, max, "{rel}");
        assert_eq!(
            s.context_switches,
            r.cpus.iter().map(|c| c.switches).sum::<u64>()
        );
        assert_eq!(s.cpus, 4, "{rel}: the VM has 4 vCPUs");
    }
}
