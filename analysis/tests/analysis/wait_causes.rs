//! Wait causes (docs/metrics.md §3a): hand-built streams with the pieces worked out by
//! hand, then every capture in fixtures/: the pieces add up to the sched delay exactly, and
//! the time behind each occupant is recomputed from the timeline store.

use crate::common::*;
use analysis::{Config, Report, TimelineOptions};
use ingest::EventKind;
use ingest::PrevState::{Runnable as R, Sleeping as S};
use std::collections::HashMap;

fn causes(r: &Report, pid: i32) -> &analysis::WaitCauses {
    &row(r, pid).wait_causes
}

fn kinds(c: &analysis::WaitCauses) -> (u64, u64, u64, u64) {
    (c.enqueue_ns, c.idle_ns, c.behind_ns, c.unknown_ns)
}

fn behind(c: &analysis::WaitCauses, pid: i32) -> u64 {
    c.behind
        .iter()
        .find(|b| b.pid == Some(pid))
        .map_or(0, |b| b.ns)
}

/// Task 10 sleeps on CPU 0; task 20 runs on CPU 1 until 3000. Woken (waking) at 1000 onto
/// CPU 1 by an interrupt, enqueued (wakeup) at 1100; 20 runs until 2000, then 30 until 2500,
/// then CPU 1 idles until 10 runs at 2600: enqueue 100, behind 20 900, behind 30 500, idle 100.
#[test]
fn a_wakeup_wait_is_enqueue_behind_each_occupant_then_idle() {
    let r = analyze(&[
        switch(100, 0, 10, S, 0),
        switch(200, 1, 0, R, 20),
        waking(1000, 0, 0, 10, 1),
        wakeup(1100, 0, 0, 10, 1),
        switch(2000, 1, 20, S, 30),
        switch(2500, 1, 30, S, 0),
        switch(2600, 1, 0, R, 10),
        switch(3000, 1, 10, S, 0),
    ]);
    let c = causes(&r, 10);
    assert_eq!(kinds(c), (100, 100, 1400, 0));
    assert_eq!((behind(c, 20), behind(c, 30)), (900, 500));
    assert_eq!(c.total_ns(), row(&r, 10).sched_delay.sum_ns);
    assert_eq!(c.ended_by.idle, 1);
    let longest = c.longest.as_ref().unwrap();
    let pieces: Vec<_> = longest
        .segments
        .iter()
        .map(|s| (s.kind, s.pid, s.end_ns - s.start_ns))
        .collect();
    use analysis::PieceKind::*;
    assert_eq!(
        pieces,
        [
            (Enqueue, None, 100),
            (Behind, Some(20), 900),
            (Behind, Some(30), 500),
            (Idle, None, 100)
        ]
    );
    assert_eq!(r.system.wait_causes.behind_ns, 1400);
}

/// Every way a wait ends. CPU 0: 20 runs; 10 is preempted by 20's wakeup preemption... each
/// waiter below ends differently: 11 after 20 blocks, 12 after 11 is switched out runnable
/// (a tick), 13 by preempting 12 (woken onto CPU 0 while 12 ran), 14 after 13 exits.
#[test]
fn every_way_a_wait_ends_is_counted() {
    use ingest::PrevState::Dead as X;
    let r = analyze(&[
        switch(100, 0, 0, R, 20),
        wakeup(150, 1, 0, 11, 0),
        wakeup(160, 1, 0, 12, 0),
        switch(200, 0, 20, S, 11),
        switch(300, 0, 11, R, 12),
        wakeup(350, 1, 0, 13, 0),
        switch(400, 0, 12, R, 13),
        wakeup(420, 1, 0, 14, 0),
        switch(500, 0, 13, X, 14),
        switch(600, 0, 14, S, 0),
    ]);
    let e = |pid| causes(&r, pid).ended_by;
    assert_eq!(e(11).occupant_blocked, 1);
    assert_eq!(e(12).occupant_preempted, 1);
    assert_eq!(e(13).wakeup_preemption, 1);
    assert_eq!(e(14).occupant_exited, 1);
    // 12 waited 160..400 behind 20 (to 200) and 11 (to 300), then behind itself? No: it
    // ran from 300; its wait ended there.
    assert_eq!(kinds(causes(&r, 12)), (0, 0, 140, 0));
    assert_eq!(
        (behind(causes(&r, 12), 20), behind(causes(&r, 12), 11)),
        (40, 100)
    );
    // 11 was preempted at 300 and waited behind 12 and 13 until... never ran again: not counted.
    for pid in [11, 12, 13, 14] {
        assert_eq!(
            causes(&r, pid).total_ns(),
            row(&r, pid).sched_delay.sum_ns,
            "pid {pid}"
        );
    }
}

/// Woken onto CPU 0 (busy with 20) at 1000, moved to CPU 1 (idle) at 1300 by
/// `sched_migrate_task`, runs there at 1400: behind 20 300, idle 100, pulled.
#[test]
fn a_wait_that_migrates_follows_the_task() {
    let migrate = ingest::Event {
        ts: 1300,
        cpu: 1,
        current_pid: 0,
        kind: EventKind::Migrate {
            task: task(10),
            orig_cpu: 0,
            dest_cpu: 1,
        },
    };
    let r = analyze(&[
        switch(100, 0, 0, R, 20),
        switch(100, 1, 10, S, 0),
        wakeup(1000, 2, 0, 10, 0),
        migrate,
        switch(1400, 1, 0, R, 10),
        switch(2000, 0, 20, S, 0),
    ]);
    let c = causes(&r, 10);
    assert_eq!(kinds(c), (0, 100, 300, 0));
    assert_eq!(behind(c, 20), 300);
    assert_eq!(c.ended_by.pulled, 1);
}

/// CPU 0 loses events after its event at 1200 (reported at 1500): from 1200 the wait's
/// CPU is unknown until its next switch at 1800.
#[test]
fn lost_events_inside_a_wait_are_unknown() {
    let r = analyze(&[
        switch(100, 0, 0, R, 20),
        switch(100, 1, 10, S, 0),
        wakeup(1000, 1, 0, 10, 0),
        other(1200, 0, 20),
        lost(1500, 0, Some(3)),
        switch(1800, 0, 20, S, 0),
        switch(1900, 0, 0, R, 10),
        switch(2000, 0, 10, S, 0),
    ]);
    let c = causes(&r, 10);
    // Behind 20 1000..1200, unknown 1200..1800, idle 1800..1900.
    assert_eq!(kinds(c), (0, 100, 200, 600));
    assert_eq!(c.total_ns(), 900);
    assert_eq!(row(&r, 10).sched_delay.sum_ns, 900);
}

/// Every capture of every kernel in fixtures/traces.
fn fixtures() -> Vec<String> {
    let root = fixtures::file("traces");
    let mut out = Vec::new();
    for kernel in std::fs::read_dir(&root).unwrap() {
        let kernel = kernel.unwrap().path();
        if !kernel.is_dir() {
            continue;
        }
        for workload in std::fs::read_dir(&kernel).unwrap() {
            let dir = workload.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                let name = f.file_name().unwrap().to_string_lossy().to_string();
                if name.starts_with("trace") && name.contains(".dat")
                    || name.starts_with("perf") && name.contains(".data")
                {
                    out.push(f.strip_prefix(&root).unwrap().display().to_string());
                }
            }
        }
    }
    out.sort();
    assert!(out.len() >= 15, "fixtures found: {out:?}");
    out
}

fn with_store(rel: &str) -> (Report, analysis::Timeline) {
    let (r, t) = analysis::pipeline::analyze_with_timeline(
        &fixtures::trace(rel),
        &analysis::pipeline::Options {
            config: Config {
                timeline: Some(TimelineOptions::default()),
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .unwrap();
    (r, t.unwrap().unwrap())
}

/// Per task of every capture: the pieces sum to the sched delay exactly, and so do the
/// system's; the time behind occupant X never exceeds what X ran during the task's counted
/// waits (plus X's unknown time), recomputed from the stored intervals (exactly equal where no wait moved CPU and
/// none had an enqueue piece).
#[test]
fn on_every_capture_the_pieces_add_up_to_the_sched_delay() {
    let mut exact = 0;
    for rel in fixtures() {
        let (r, store) = with_store(&rel);
        let mut total = 0u64;
        for t in &r.tasks {
            assert_eq!(
                t.wait_causes.total_ns(),
                t.sched_delay.sum_ns,
                "{rel}: pid {}",
                t.pid
            );
            assert_eq!(
                t.wait_causes.behind.iter().map(|b| b.ns).sum::<u64>(),
                t.wait_causes.behind_ns,
                "{rel}: pid {}",
                t.pid
            );
            total += t.sched_delay.sum_ns;
        }
        assert_eq!(r.system.wait_causes.total_ns(), total, "{rel}");
        assert_eq!(r.system.sched_delay.sum_ns, total, "{rel}");
        exact += check_behind_against_store(&rel, &r, &store);
    }
    assert!(exact > 50, "occupants checked exactly: {exact}");
}

/// (pid → its running intervals (cpu, start, end)) from the store.
fn running(store: &analysis::Timeline) -> HashMap<i32, Vec<(u32, u64, u64)>> {
    let mut out: HashMap<i32, Vec<(u32, u64, u64)>> = HashMap::new();
    for t in store.tasks() {
        for i in t.intervals() {
            if i.state == analysis::ThreadState::Running {
                out.entry(t.pid)
                    .or_default()
                    .push((i.cpu.unwrap(), i.start_ns, i.end_ns()));
            }
        }
    }
    out
}

/// Returns how many (task, occupant) pairs were checked for equality.
fn check_behind_against_store(rel: &str, r: &Report, store: &analysis::Timeline) -> usize {
    let mut exact_pairs = 0;
    use analysis::ThreadState::*;
    let ran = running(store);
    let overlap = |pid: i32, cpu: Option<u32>, s: u64, e: u64| -> u64 {
        ran.get(&pid).map_or(0, |v| {
            v.iter()
                .filter(|(c, ..)| cpu.is_none_or(|want| *c == want))
                .map(|&(_, a, b)| b.min(e).saturating_sub(a.max(s)))
                .sum()
        })
    };
    for t in store.tasks() {
        let Some(row) = r.tasks.iter().find(|x| x.pid == t.pid) else {
            continue;
        };
        // The counted waits: timed runnable intervals ended by a switch-in.
        let waits: Vec<_> = t
            .intervals()
            .filter(|i| {
                matches!(i.state, RunnableWakeup | RunnablePreempted)
                    && i.latency_timed
                    && i.end == analysis::EndReason::SwitchedIn
            })
            .collect();
        // Exact where every piece lies on the final runqueue and none is an enqueue (the
        // store does not keep when the wakeup queued the task).
        let exact = row.wait_causes.ended_by.pulled == 0
            && row.runqueue_moves == 0
            && row.wait_causes.enqueue_ns == 0;
        for b in row.wait_causes.behind.iter().filter(|b| b.pid.is_some()) {
            let x = b.pid.unwrap();
            // A wait that ended before a later switch contradicted its CPU's occupant (a
            // context-switch bug: the occupant's switch-out went missing) keeps the occupant
            // believed then (docs/metrics.md §3a), while the store makes that stretch of the
            // occupant's time unknown, not running: the bound counts the occupant's unknown
            // time too. (The eevdf-6.18-host/cpu_idle perf.data has such stretches: perf
            // missed the switch-outs of the sandbox's own tokio-rt-worker threads.)
            let unknown = r
                .tasks
                .iter()
                .filter(|o| o.pid == x)
                .map(|o| o.unknown_ns)
                .sum::<u64>();
            let anywhere: u64 = waits
                .iter()
                .map(|i| overlap(x, None, i.start_ns, i.end_ns()))
                .sum::<u64>()
                + unknown;
            assert!(
                b.ns <= anywhere,
                "{rel}: pid {} behind {x}: {} > {anywhere} that {x} ran",
                t.pid,
                b.ns
            );
            if exact {
                let same_cpu: u64 = waits
                    .iter()
                    .map(|i| overlap(x, i.cpu, i.start_ns, i.end_ns()))
                    .sum();
                assert_eq!(b.ns, same_cpu, "{rel}: pid {} behind {x}", t.pid);
                exact_pairs += 1;
            }
        }
    }
    exact_pairs
}

/// BMQ starves the nice 5 spinner behind the nice 0 one on their shared CPU: at least
/// 99 % of its waiting is behind it.
#[test]
fn bmq_nice5_waits_behind_nice0() {
    let (r, _) = with_store("bmq-6.1-vm/nice/trace-v6.dat.xz");
    let find = |name: &str| r.tasks.iter().find(|t| t.comm.contains(name)).unwrap();
    let (n0, n5) = (find("nice0"), find("nice5"));
    let c = &n5.wait_causes;
    let share = behind(c, n0.pid) as f64 / c.total_ns() as f64;
    assert!(share >= 0.99, "behind nice0: {share}");
    assert_eq!(c.behind[0].pid, Some(n0.pid));
}

/// Pinned ping-pong: each side waits only in the wakeup path, on its idle CPU or behind
/// its peer — never behind a third task for more than the VM's housekeeping.
#[test]
fn pinned_ping_pong_waits_for_the_wakeup_the_idle_exit_or_the_peer() {
    for kernel in ["cfs-6.1-vm", "eevdf-6.12-vm", "pds-6.1-vm"] {
        let (r, _) = with_store(&format!("{kernel}/pp1/trace-v6.dat.xz"));
        let pp: Vec<_> = r
            .tasks
            .iter()
            .filter(|t| t.comm.starts_with("pp"))
            .collect();
        assert_eq!(
            pp.len(),
            2,
            "{kernel}: {:?}",
            pp.iter().map(|t| &t.comm).collect::<Vec<_>>()
        );
        for (me, peer) in [(pp[0], pp[1]), (pp[1], pp[0])] {
            let c = &me.wait_causes;
            let explained = c.enqueue_ns + c.idle_ns + behind(c, peer.pid);
            let share = explained as f64 / c.total_ns() as f64;
            assert!(share > 0.95, "{kernel}: {} {share} {c:?}", me.comm);
        }
    }
}
