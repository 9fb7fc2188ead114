//! CFS 6.1 on hand-built workloads. One CPU unless said: the tunables scale by
//! 1 + ilog2(1) = 1, so latency 6 ms, min_granularity 0.75 ms, wakeup_granularity 1 ms;
//! HZ 250 with the ticks at 0, 4, 8, ... ms.

use super::build::*;
use replay::sim::model::ModelName;
use replay::sim::simulate;

#[test]
fn two_spinners_nice_0_and_5_share_by_weight() {
    // A (nice 0, weight 1024) and B (nice 5, weight 335) spin on CPU 0. Slices out of the
    // 6 ms period: A 6 × 1024 / 1359 = 4.52 ms, B 6 × 335 / 1359 = 1.48 ms; only the tick
    // ends them. Both wake at 0 with vruntime 0; A (enqueued first) runs.
    // t=4: A ran 4 < 4.52, leads B by 4 ms virtual < 4.52: keeps running.
    // t=8: A ran 8 > 4.52: preempted, vA = 8; B runs.
    // t=12: B ran 4 > 1.48: preempted, vB = 4 × 1024/335 = 12.23; A (8) runs.
    // t=20: A ran 8: preempted, vA = 16; B (12.23) runs. t=24: vB = 24.45; A runs.
    // t=32: A ran 8, vA = 24 < vB: A is still the leftmost and keeps the CPU (no switch).
    // t=40: vA = 32: B runs. t=44: A runs.
    // Over the run the virtual clocks stay within a slice of each other, so the shares go
    // to the weights: 1024 / 1359 = 75.35 %.
    check_nice_0_and_5(
        ModelName::Cfs,
        &[
            (0, None, Some(0)),
            (8 * MS, Some(0), Some(1)),
            (12 * MS, Some(1), Some(0)),
            (20 * MS, Some(0), Some(1)),
            (24 * MS, Some(1), Some(0)),
            (40 * MS, Some(0), Some(1)),
            (44 * MS, Some(1), Some(0)),
        ],
    );
}

#[test]
fn sleeper_waking_a_busy_cpu_preempts_it() {
    // S spins; W sleeps 10 ms, runs 1 ms, sleeps 10 ms, ... W first wakes at 10 ms with
    // vruntime 0: placed at max(0, min_vruntime 10 − latency/2 3) = 7 ms; S leads it by
    // 3 ms > the 1 ms granularity: W preempts S at once. W runs 10-11 (vW = 8). At 21,
    // min_vruntime = vS = 20, W placed at 17: preempts again. So every wakeup of W
    // switches to it in the same nanosecond, and S is preempted once per cycle.
    check_sleeper_preempts_at_once(ModelName::Cfs);
}

#[test]
fn equal_spinners_slices_end_at_the_tick_not_at_the_slice() {
    // Two nice-0 spinners on one CPU: sched_slice = 6 ms / 2 = 3 ms, but with HRTICK off
    // the slice ends at the first tick after it is used up: at HZ 250 that is 4 ms (ran 4 >
    // 3); at HZ 1000, at 4 ms too (ran 3 is not more than 3; the lead, 3 ms, is not more
    // than the slice either).
    check_equal_spinners(ModelName::Cfs, 250, 4 * MS);
    check_equal_spinners(ModelName::Cfs, 1000, 4 * MS);
}

#[test]
fn a_wakeup_preemption_takes_the_traced_delay() {
    // `spinner_and_sleeper` with a traced wakeup-preemption cost of 50 µs: the model
    // decides the preemption at the wakeup, the spinner S runs on for 50 µs, then the
    // sleeper W runs its 1 ms. W's cycle is so 10 + 0.05 + 1 = 11.05 ms: it wakes at
    // 10 + 11.05 k ms. First wakeup at 10: vS = 10, W placed at max(0, 10 − 3) = 7, lead
    // 3 > 1: preempt at 10.05 (vS = 10.05); W runs to 11.05 (vW = 8). At 21.05 vS = 20.05,
    // W placed at 17.05: preempt at 21.10; W runs to 22.10. And so on: every wakeup k
    // (18 up to 197.85 ms, preempting at 197.9 < 200) is followed 50 µs later by S → W.
    // The tick (every 4 ms) never ends W's run: it ran less than its 3 ms slice and is
    // behind S.
    let mut d = spinner_and_sleeper(200 * MS);
    d.preempt_wakeup_ns = 50_000;
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    let sw = switches(&p.schedule);
    assert_eq!(
        sw[1..5],
        [
            (10_050_000, Some(0), Some(1)),
            (11_050_000, Some(1), Some(0)),
            (21_100_000, Some(0), Some(1)),
            (22_100_000, Some(1), Some(0)),
        ]
    );
    let wakeups = wakeups_of(&p.schedule, 1);
    let expected: Vec<u64> = (0..18).map(|k| 10 * MS + k * 11_050_000).collect();
    assert_eq!(wakeups, expected);
    for t in wakeups {
        assert!(sw.contains(&(t + 50_000, Some(0), Some(1))), "at {t}");
    }
}

#[test]
fn a_preempting_wakee_runs_before_a_task_that_waited_longer() {
    // The next buddy. A (nice 0) spins from 0; W (nice 0) runs 3.6 ms, sleeps 3.4 ms, runs
    // 0.5 ms, sleeps; B (nice 5, weight 335) spins from 10 ms. Ticks at 0, 4, 8, ... ms.
    // 0: A runs (W, queued at the same vruntime 0, does not lead). 4: A ran 4 > its 3 ms
    // slice (6 ms / 2): W runs to 7.6 (vW = 3.6) and sleeps; A runs alone (vA = 4).
    // 10: B wakes: vA = 6.4 = min_vruntime, B placed at 6.4 − 3 = 3.4; A leads by 3 ms,
    // not more than B's granularity 1 ms × 1024 / 335 = 3.06 ms: no preemption.
    // 11: W wakes: vA = 7.4, min_vruntime stays 6.4, W placed at max(3.6, 3.4) = 3.6; A
    // leads it by 3.8 > 1 ms: preempted, and W is the next buddy. The leftmost is B (3.4),
    // but W leads B by only 0.2 ms, within B's granularity: W runs (without the buddy B
    // would, and W wait until the tick at 12). W's 0.5 ms ends at 11.5: B (3.4) runs, to
    // the tick at 16 (ran 4.5 > its slice 6 × 335 / 1359 = 1.48 ms): then A.
    let d = demand(
        1,
        20 * MS,
        vec![
            task(0, "a", 0, &[0], vec![burst(10_000 * MS)]),
            {
                let mut b = task(1, "b", 5, &[0], vec![burst(10_000 * MS)]);
                b.start_ns = 10 * MS;
                b
            },
            task(
                2,
                "w",
                0,
                &[0],
                vec![
                    burst(3_600_000),
                    sleep(3_400_000),
                    burst(MS / 2),
                    sleep(1000 * MS),
                ],
            ),
        ],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    assert_eq!(
        switches(&p.schedule)[..6],
        [
            (0, None, Some(0)),
            (4 * MS, Some(0), Some(2)),
            (7_600_000, Some(2), Some(0)),
            (11 * MS, Some(0), Some(2)),
            (11_500_000, Some(2), Some(1)),
            (16 * MS, Some(1), Some(0)),
        ]
    );
}

#[test]
fn a_wakeup_preemption_is_checked_at_the_traced_wakeup_clock() {
    // S (nice 0) spins from 0; W (nice 5, weight 335) sleeps 10 ms, then runs 1 ms. W's
    // wakeup is at 10 ms (`sched_waking`); the kernel checks it `waking_wakeup_ns` later.
    // At 10: vS = 10 = min_vruntime, W placed at max(0, 10 − 3) = 7. The check at
    // 10 + lag accounts S up to there: S leads W by 3 ms + lag, against W's wakeup
    // granularity 1 ms × 1024 / 335 = 3.0567 ms.
    // Lag 50 µs: 3.050 < 3.0567, no preemption: W waits for the tick at 12 (S ran 12 ms
    // past its 4.52 ms slice), runs 12-13.
    // Lag 60 µs: 3.060 > 3.0567, preempted: the switch comes the traced delay of 100 µs
    // after the wakeup, at 10.1, and W runs to 11.1. (With the check at the wakeup, as
    // before this lag, W never preempts: the lead is 3 ms.)
    let run = |lag: u64| {
        let mut d = demand(
            1,
            20 * MS,
            vec![
                task(0, "spin", 0, &[0], vec![burst(10_000 * MS)]),
                task(
                    1,
                    "w",
                    5,
                    &[0],
                    vec![sleep(10 * MS), burst(MS), sleep(100 * MS)],
                ),
            ],
        );
        d.preempt_wakeup_ns = 100_000;
        d.waking_wakeup_ns = lag;
        let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
        switches(&p.schedule)
    };
    let late = [
        (0, None, Some(0)),
        (12 * MS, Some(0), Some(1)),
        (13 * MS, Some(1), Some(0)),
    ];
    assert_eq!(run(0)[..3], late);
    assert_eq!(run(50_000)[..3], late);
    assert_eq!(
        run(60_000)[..3],
        [
            (0, None, Some(0)),
            (10_100_000, Some(0), Some(1)),
            (11_100_000, Some(1), Some(0)),
        ]
    );
}
