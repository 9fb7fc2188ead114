//! CFS 6.1 on hand-built workloads. One CPU unless said: the tunables scale by
//! 1 + ilog2(1) = 1, so latency 6 ms, min_granularity 0.75 ms, wakeup_granularity 1 ms;
//! HZ 250 with the ticks at 0, 4, 8, ... ms.

use super::build::*;
use replay::sim::model::ModelName;

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
