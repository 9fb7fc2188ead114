//! EEVDF 6.12 on hand-built workloads. One CPU: base slice 0.7 ms × (1 + ilog2(1)) =
//! 0.7 ms; HZ 250 with the ticks at 0, 4, 8, ... ms (HRTICK off: a deadline is noticed at
//! the tick). Virtual slices: nice 0 0.7 ms, nice 5 0.7 × 1024 / 335 = 2.14 ms.

use super::build::*;
use replay::sim::model::ModelName;

#[test]
fn two_spinners_nice_0_and_5_by_eligibility() {
    // A (1024) and B (335) wake at 0 with no lag: vA = vB = 0, dA = 0.7, dB = 2.14; A runs.
    // t=4: vA = 4 ≥ dA: new deadline, resched. V = 1024×4/1359 = 3.01: A is not eligible,
    //      B is: B runs.
    // t=8: vB = 4 × 1024/335 = 12.23, past dB. V = (4096 + 4096)/1359 = 6.03: A (4) runs.
    // t=12, 16: vA = 8, 12 against V = 9.04, 12.06: A still eligible, keeps the CPU.
    // t=20: vA = 16 > V = 15.07: B (12.23) runs. t=24: vB = 24.45, V = 18.08: A runs,
    //      now for 12 ms (ineligible at 36: 28 > V = 27.13). So A 12 ms, B 4 ms: 75 %,
    //      the weights' 75.35 % within a tick's rounding.
    check_nice_0_and_5(
        ModelName::Eevdf,
        &[
            (0, None, Some(0)),
            (4 * MS, Some(0), Some(1)),
            (8 * MS, Some(1), Some(0)),
            (20 * MS, Some(0), Some(1)),
            (24 * MS, Some(1), Some(0)),
            (36 * MS, Some(0), Some(1)),
            (40 * MS, Some(1), Some(0)),
        ],
    );
}

#[test]
fn sleeper_waking_a_busy_cpu_wins_the_deadline_tie() {
    // S spins (nice 0); W (nice 0) sleeps 10 ms, runs 1 ms, sleeps 10 ms, ...
    // t=10: update_curr gives S vS = 10 ≥ its deadline: dS = 10.7. W has no lag: placed at
    //   V = 10, dW = 10.7. Both eligible, equal deadlines: the running task keeps the CPU
    //   only with a strictly earlier deadline (`entity_before`), so W preempts at once.
    // t=11: W blocks with vW = 11 > V = 10.5: not eligible, so DELAY_DEQUEUE keeps it
    //   queued; S runs. t=12: the tick renews dS and reschedules (W still counts); V = 11,
    //   W is picked, its dequeue completes with lag 0 and S goes on without a switch.
    // t=21: vS = 20, renewed to dS = 20.7; W at V = 20, dW = 20.7: preempts again. Every
    //   cycle is the same: W wakes at 10, 21, ..., 197 ms (18 times) and runs at once.
    check_sleeper_preempts_at_once(ModelName::Eevdf);
}

#[test]
fn equal_spinners_slices_last_one_tick() {
    // Two nice-0 spinners: the 0.7 ms slice is used up long before the tick, which is
    // when the deadline is noticed; the other task is then the eligible one. So a slice is
    // one tick: 4 ms at HZ 250, 1 ms at HZ 1000.
    check_equal_spinners(ModelName::Eevdf, 250, 4 * MS);
    check_equal_spinners(ModelName::Eevdf, 1000, MS);
}
