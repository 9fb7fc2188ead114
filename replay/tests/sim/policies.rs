//! The policies other than SCHED_OTHER on hand-built workloads, one CPU, HZ 250 with the
//! ticks at 0, 4, 8, ... ms: a waking SCHED_BATCH task does not preempt in CFS and EEVDF
//! (Project C has no such rule); a SCHED_IDLE task weighs 3 there; a real-time task runs
//! ahead of every fair one under every model.

use super::build::*;
use replay::demand::{Demand, Policy, TaskDemand};
use replay::sim::model::ModelName;
use replay::sim::simulate;

fn with_policy(mut t: TaskDemand, policy: Policy) -> TaskDemand {
    t.policy = policy;
    t
}

/// A real-time task of `policy` (FIFO or RR) at `rt_priority`.
fn real_time(mut t: TaskDemand, policy: Policy, rt_priority: u32) -> TaskDemand {
    t.policy = policy;
    t.nice = None;
    t.prio = Some(99 - rt_priority as i32);
    t.sched.rt_priority = Some(rt_priority);
    t
}

/// `spinner_and_sleeper` with the sleeper (task 1) of `policy`.
fn sleeper_of(policy: Policy, window_ns: u64) -> Demand {
    let mut d = spinner_and_sleeper(window_ns);
    d.tasks[1] = with_policy(d.tasks[1].clone(), policy);
    d
}

#[test]
fn a_batch_wakee_waits_for_the_tick_in_cfs_and_eevdf() {
    // SCHED_OTHER, the sleeper W preempts the spinner S at its wakeup at 10 ms (CFS: it is
    // placed 3 ms behind S, more than the 1 ms granularity; EEVDF: at V with the earlier
    // deadline). SCHED_BATCH, it does not: it waits for the tick at 12 ms, where S has run
    // past its slice (CFS: 12 > 3 ms; EEVDF: its deadline moved with W queued) and W, the
    // leftmost / eligible with the earlier deadline, runs 12-13. W next wakes at 23 (placed
    // behind S again), runs at the tick at 24, wakes at 35, runs at 36: every switch to W is
    // on the tick grid, none at a wakeup.
    for model in [ModelName::Cfs, ModelName::Eevdf] {
        let normal = simulate(&sleeper_of(Policy::Other, 200 * MS), model, at_zero()).unwrap();
        assert_eq!(
            switches(&normal.schedule)[1],
            (10 * MS, Some(0), Some(1)),
            "{model}"
        );
        let batch = simulate(&sleeper_of(Policy::Batch, 200 * MS), model, at_zero()).unwrap();
        let sw = switches(&batch.schedule);
        assert_eq!(
            sw[..7],
            [
                (0, None, Some(0)),
                (12 * MS, Some(0), Some(1)),
                (13 * MS, Some(1), Some(0)),
                (24 * MS, Some(0), Some(1)),
                (25 * MS, Some(1), Some(0)),
                (36 * MS, Some(0), Some(1)),
                (37 * MS, Some(1), Some(0)),
            ],
            "{model}"
        );
        let to_w: Vec<u64> = sw.iter().filter(|s| s.2 == Some(1)).map(|s| s.0).collect();
        assert_eq!(to_w.len(), 16, "{model}: {to_w:?}");
        assert!(to_w.iter().all(|t| t % (4 * MS) == 0), "{model}: {to_w:?}");
        let woken = wakeups_of(&batch.schedule, 1);
        assert!(to_w.iter().all(|t| !woken.contains(t)), "{model}");
    }
}

#[test]
fn project_c_lets_a_batch_wakee_preempt_as_a_normal_one() {
    // Project C v6.1-r4 has no batch rule in `check_preempt_curr` (the wakee preempts when
    // it becomes the queue's first) and PDS none at all; BMQ only stops a batch task's boost
    // at 0, and the spinner deboosts to +7 (level 113) while the nice-0 sleeper stays at
    // or under 0 (level 110 or less) either way: the same schedule.
    for model in [ModelName::Pds, ModelName::Bmq] {
        let run = |policy| {
            let p = simulate(&sleeper_of(policy, 200 * MS), model, at_zero()).unwrap();
            switches(&p.schedule)
        };
        let normal = run(Policy::Other);
        assert_eq!(normal, run(Policy::Batch), "{model}");
        // And its wakeups do preempt at once (the 18 of 10, 21, ... 197 ms).
        assert_eq!(normal[1], (10 * MS, Some(0), Some(1)), "{model}");
    }
}

#[test]
fn bmq_boosts_a_batch_task_only_to_zero() {
    // A nice-7 sleeper W against a nice-0 spinner S. S's slice expires every 4.19 ms and
    // deboosts it: +2 at 10 ms (level 50 + 122 / 2 = 111), +6 at 25.17 ms, +7 from 29.36
    // ms on (level 113). W, woken after more than a slice asleep, is boosted by one each
    // time. First wakeup, at 10: W at -1 as SCHED_OTHER (level 50 + 126 / 2 = 113), at 0 as
    // SCHED_BATCH (113 too) waits behind S (111) until S's expiry at 25.17 moves S to 113
    // behind it; it runs 25.17-26.17. Then as SCHED_OTHER it is at -2 from its second
    // wakeup on (level 112): it preempts S at every wakeup. As SCHED_BATCH it stays at 0,
    // S's level, where S runs first: it never preempts, runs only when S's slice ends, and
    // once it has used up its own slice (4 × 1 ms and 0.19 ms: 4 << 20 ns) it is deboosted
    // to +1 (level 114) and S, at 113, keeps the CPU to the end.
    let sleeper = |policy| {
        let mut d = spinner_and_sleeper(200 * MS);
        d.tasks[1].nice = Some(7);
        d.tasks[1].prio = Some(127);
        d.tasks[1] = with_policy(d.tasks[1].clone(), policy);
        let p = simulate(&d, ModelName::Bmq, at_zero()).unwrap();
        let sw = switches(&p.schedule);
        let preempts: Vec<bool> = wakeups_of(&p.schedule, 1)
            .into_iter()
            .map(|t| sw.contains(&(t, Some(0), Some(1))))
            .collect();
        (preempts, p.schedule.runtimes(2)[1], sw[1])
    };
    let first_run = (25_165_824, Some(0), Some(1));
    let (normal, _, first) = sleeper(Policy::Other);
    assert_eq!(first, first_run);
    assert!(!normal[0] && normal[1..].iter().all(|&p| p), "{normal:?}");
    assert_eq!(normal.len(), 16);
    let (batch, ran, first) = sleeper(Policy::Batch);
    assert_eq!(first, first_run);
    assert_eq!(batch, vec![false; 5]);
    assert_eq!(ran, 4 << 20);
}

#[test]
fn an_idle_policy_spinner_gets_weight_3_against_1024() {
    // A (nice 0, weight 1024) and B (SCHED_IDLE, weight 3) spin on CPU 0 for 4 s, from 0
    // with vruntime 0.
    // CFS: A runs (first enqueued); at 8 it has run past its slice (6 × 1024/1027 = 5.98
    // ms) and B runs; at 12 B is past its own (17.5 µs): vB = 4 ms × 1024/3 = 1365.33 ms.
    // A then runs, re-picked every 8 ms (12, 20, ...) while it is the leftmost, until at a
    // re-pick its vruntime t − 4 passes vB: at 1372 (1368 > 1365.33), B runs 1372-1376
    // (vB = 2730.67); then at 2744 (vA = 2736 > 2730.67) B runs to 2748. Next at 4108:
    // after the window.
    // EEVDF (base slice 0.7 ms): V = (1024 vA + 3 vB) / 1027, so A is eligible only while
    // vA ≤ vB. A's deadline passes at the tick at 4, where vA = 4 > vB = 0: B, the only
    // eligible task, runs 4-8 (vB = 1365.33). A runs, its deadline renewed at every tick,
    // until the tick where vA = t − 4 passes vB: 1372; B runs to 1376 (vB = 2730.67); then
    // at 2740 (vA = 2732), to 2744.
    // So B runs 12 ms of the 4 s under both, 0.3 % (3 / 1027 = 0.29 %); nice 19 (weight 15)
    // would give it 1.4 %.
    let d = demand(
        1,
        4000 * MS,
        vec![
            task(0, "a", 0, &[0], vec![burst(100_000 * MS)]),
            with_policy(
                task(1, "b", 0, &[0], vec![burst(100_000 * MS)]),
                Policy::Idle,
            ),
        ],
    );
    for (model, b_runs) in [
        (ModelName::Cfs, [8, 1372, 2744]),
        (ModelName::Eevdf, [4, 1372, 2740]),
    ] {
        let p = simulate(&d, model, at_zero()).unwrap();
        let to_b: Vec<(u64, u64)> = switches(&p.schedule)
            .windows(2)
            .filter(|w| w[0].2 == Some(1))
            .map(|w| (w[0].0, w[1].0))
            .collect();
        let want: Vec<(u64, u64)> = b_runs.iter().map(|&t| (t * MS, (t + 4) * MS)).collect();
        assert_eq!(to_b, want, "{model}");
        assert_eq!(p.schedule.runtimes(2), vec![3988 * MS, 12 * MS], "{model}");
    }
}

#[test]
fn a_waking_idle_wakee_never_preempts_and_any_other_preempts_an_idle_task() {
    // The sleeper of `spinner_and_sleeper` is SCHED_OTHER and the spinner SCHED_IDLE: the
    // sleeper preempts at every wakeup (18 of them) in CFS and EEVDF, with no granularity
    // test. The other way round, an idle-policy sleeper never preempts a normal spinner.
    for model in [ModelName::Cfs, ModelName::Eevdf] {
        let mut d = spinner_and_sleeper(200 * MS);
        d.tasks[0] = with_policy(d.tasks[0].clone(), Policy::Idle);
        let p = simulate(&d, model, at_zero()).unwrap();
        let sw = switches(&p.schedule);
        let woken = wakeups_of(&p.schedule, 1);
        assert_eq!(woken.len(), 18, "{model}");
        assert!(woken.iter().all(|&t| sw.contains(&(t, Some(0), Some(1)))));

        let p = simulate(&sleeper_of(Policy::Idle, 200 * MS), model, at_zero()).unwrap();
        let sw = switches(&p.schedule);
        let woken = wakeups_of(&p.schedule, 1);
        assert!(!woken.is_empty(), "{model}");
        assert!(
            woken.iter().all(|&t| !sw.iter().any(|s| s.0 == t)),
            "{model}"
        );
    }
}

#[test]
fn a_real_time_task_runs_ahead_of_every_fair_task() {
    // S, a nice-0 spinner, runs from 0. R, SCHED_FIFO 50, sleeps 10 ms then runs 3 ms,
    // five times: each wakeup (10, 23, 36, 49, 62 ms) preempts S in the same nanosecond,
    // and R runs its 3 ms unbroken (no tick, no fair slice ends it). Then R2, FIFO 10, wakes
    // at 100 and spins: S never runs again, under every model.
    let mut r = Vec::new();
    for _ in 0..5 {
        r.push(sleep(10 * MS));
        r.push(burst(3 * MS));
    }
    let d = demand(
        1,
        400 * MS,
        vec![
            task(0, "s", 0, &[0], vec![burst(100_000 * MS)]),
            real_time(task(1, "r", 0, &[0], r), Policy::Fifo, 50),
            real_time(
                task(2, "r2", 0, &[0], vec![sleep(100 * MS), burst(100_000 * MS)]),
                Policy::Fifo,
                10,
            ),
        ],
    );
    for model in ModelName::ALL {
        let p = simulate(&d, model, at_zero()).unwrap();
        let mut want = vec![(0, None, Some(0))];
        for k in 0..5 {
            let woken = 10 * MS + k * 13 * MS;
            want.push((woken, Some(0), Some(1)));
            want.push((woken + 3 * MS, Some(1), Some(0)));
        }
        want.push((100 * MS, Some(0), Some(2)));
        assert_eq!(switches(&p.schedule), want, "{model}");
        assert_eq!(
            p.schedule.runtimes(3),
            vec![85 * MS, 15 * MS, 300 * MS],
            "{model}"
        );
    }
}

#[test]
fn round_robin_tasks_share_their_priority_by_slices() {
    // F, a nice-0 spinner, from 0; R1 and R2, SCHED_RR 10, wake at 2 ms and spin. R1
    // preempts F; R2 waits behind it (an equal priority does not preempt). Mainline counts
    // the slice in ticks: 25 at HZ 250 (100 ms), so R1 hands over at the 25th tick it ran
    // into, 100 ms, R2 at 200, ... (the window's end, 400, included). Project C ends it by
    // the hrtick after 4 << 20 ns (4.194304 ms), or at a tick (every 1 ms) that finds less
    // than 100 << 10 ns of it left: 6.194304, 10.388608, ..., 85.886080, then 90 (the tick
    // finds 80 384 ns left), 94.194304, ... F never runs again.
    let d = demand(
        1,
        400 * MS,
        vec![
            task(0, "f", 0, &[0], vec![burst(100_000 * MS)]),
            real_time(
                task(1, "r1", 0, &[0], vec![sleep(2 * MS), burst(100_000 * MS)]),
                Policy::Rr,
                10,
            ),
            real_time(
                task(2, "r2", 0, &[0], vec![sleep(2 * MS), burst(100_000 * MS)]),
                Policy::Rr,
                10,
            ),
        ],
    );
    for model in ModelName::ALL {
        let p = simulate(&d, model, at_zero()).unwrap();
        let sw = switches(&p.schedule);
        assert_eq!(sw[..2], [(0, None, Some(0)), (2 * MS, Some(0), Some(1))]);
        let handovers: Vec<u64> = match model {
            ModelName::Cfs | ModelName::Eevdf => (1..=4).map(|k| k * 100 * MS).collect(),
            ModelName::Pds | ModelName::Bmq => {
                let mut at = vec![2 * MS];
                loop {
                    let end = at[at.len() - 1] + (4 << 20);
                    // A tick that finds less than RESCHED_NS (100 << 10) left ends it.
                    let tick = end / MS * MS;
                    let next = if end - tick < 100 << 10 { tick } else { end };
                    if next > 400 * MS {
                        break at[1..].to_vec();
                    }
                    at.push(next);
                }
            }
        };
        let want: Vec<(u64, Option<usize>, Option<usize>)> = handovers
            .iter()
            .enumerate()
            .map(|(k, &t)| {
                let (from, to) = if k % 2 == 0 { (1, 2) } else { (2, 1) };
                (t, Some(from), Some(to))
            })
            .collect();
        assert_eq!(sw[2..], want[..], "{model}");
    }
}
