//! A request's answer comes after the request: a task that woke its peer at two points of
//! one burst in the trace (the peer answered in between, while the task was preempted)
//! waits at the second point for the answer when the model did not preempt it.
use super::build::*;
use replay::demand::TaskDemand;
use replay::sim::model::ModelName;
use replay::sim::simulate;

/// Pong (task 1) on CPU 0: woken by ping (task 0) 0.5 ms and 1 ms into ping's first
/// burst, each time answering with a 0.4 ms burst.
fn pong() -> TaskDemand {
    task(
        1,
        "pong",
        0,
        &[0],
        vec![
            wait_for(0, 0, MS / 2),
            burst(2 * MS / 5),
            wait_for(0, 0, MS),
            burst(2 * MS / 5),
        ],
    )
}

#[test]
fn waker_waits_for_the_answer_it_read_in_the_trace() {
    // CFS on one CPU (granularities unscaled: wakeup 1 ms, sleeper credit 3 ms), ticks at
    // 0 and 4 ms. Ping runs a 3 ms burst, then slept until pong's second answer, then ran
    // 1 ms.
    //
    // 0.5 ms: ping (vruntime 0.5 ms) wakes pong, placed at max(0, 0.5 − 3) = 0: 0.5 ms
    // behind, not past the granularity, so ping runs on. 1 ms: ping reaches its second
    // point, where in the trace pong slept in the block it ends; here pong has not run
    // its first answer yet. Passing the point would let pong run both answers as one;
    // instead ping blocks there and pong runs 1-1.4 ms. Pong's block wakes ping (the
    // answer), pong sleeps, ping runs, passes the point at once and wakes pong (vruntime
    // 0.4 ms against ping's 1: 0.6 behind, no preemption). Ping runs its last 2 ms,
    // 1.4-3.4, and blocks on pong's second answer; pong runs 3.4-3.8, wakes ping and
    // ends; ping runs 3.8-4.8 ms (alone at the 4 ms tick).
    //
    // The same at nice −10 (weight 9548: a virtual 1 ms granularity is 0.107 ms): at 1.4 ms
    // pong (vruntime 0.4 ms) leads the answered ping (0.107) by more than that, but pong
    // is blocking, not preempted; the wakeup preemption test is for a running task. The
    // rest as at nice 0: ping's vruntime stays below pong's.
    for nice in [0, -10] {
        check_answered_schedule(nice);
    }
}

fn check_answered_schedule(nice: i32) {
    let d = demand(
        1,
        10 * MS,
        vec![
            task(
                0,
                "ping",
                nice,
                &[0],
                vec![burst(3 * MS), wait_for(1, 2, 0), burst(MS)],
            ),
            pong(),
        ],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    let us = 1000;
    assert_eq!(
        switches(&p.schedule),
        vec![
            (0, None, Some(0)),
            (MS, Some(0), Some(1)),
            (1400 * us, Some(1), Some(0)),
            (3400 * us, Some(0), Some(1)),
            // Pong's demand ends with the burst: the CPU idles, then runs the woken ping.
            (3800 * us, Some(1), None),
            (3800 * us, None, Some(0)),
            (4800 * us, Some(0), None),
        ],
        "nice {nice}"
    );
    assert_eq!(
        wakeups_of(&p.schedule, 1),
        vec![MS / 2, 1400 * us],
        "nice {nice}"
    );
    // Its start, the answer, the second answer.
    assert_eq!(
        wakeups_of(&p.schedule, 0),
        vec![0, 1400 * us, 3800 * us],
        "nice {nice}"
    );
    assert_eq!(p.schedule.stats.answer_waits, 1);
    assert_eq!(p.schedule.runtimes(2), vec![4 * MS, 4 * MS / 5]);
}

#[test]
fn a_one_way_waker_does_not_wait() {
    // The same pong, but ping never waited on it (a producer): no request and answer, so
    // ping passes its second point at 1 ms, runs its 3 ms and sleeps; pong, never ahead
    // of the granularity, runs its two answers as one, 3-3.8 ms.
    let d = demand(
        1,
        10 * MS,
        vec![
            task(0, "ping", 0, &[0], vec![burst(3 * MS), sleep(100 * MS)]),
            pong(),
        ],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    assert_eq!(
        switches(&p.schedule),
        vec![
            (0, None, Some(0)),
            (3 * MS, Some(0), Some(1)),
            (3800 * 1000, Some(1), None),
        ]
    );
    assert_eq!(p.schedule.stats.answer_waits, 0);
}

#[test]
fn a_waker_woken_by_its_peer_has_the_answer() {
    // Two CPUs, ping (task 0) alone on CPU 0, pong (task 1) alone on CPU 1. Ping runs
    // 0-1 ms, waking pong 0.5 ms in, and sleeps until pong is 0.8 ms into its 2 ms
    // burst; then it runs 1 ms, waking pong 0.5 ms in, and ends. Pong sleeps until ping's
    // first wakeup, runs 2 ms, sleeps until ping's second, runs 0.2 ms.
    //
    // 0.5 ms: pong wakes and runs on the idle CPU 1, 0.5-2.5 ms. 1 ms: ping blocks; pong
    // wakes it at 1.3 ms. 1.8 ms: ping reaches its second point with pong still running
    // the burst before the block that point ends. Ping slept and was woken by pong since
    // its previous point: it has pong's answer, so it goes on (pong's block is released
    // early) and ends at 2.3 ms. 2.5 ms: pong passes its released block and runs its last
    // 0.2 ms, to 2.7 ms. Holding ping at 1.8 ms until pong blocks at 2.5 would add a
    // block, a wakeup and two switches no trace has.
    let d = demand(
        2,
        10 * MS,
        vec![
            task(
                0,
                "ping",
                0,
                &[0],
                vec![burst(MS), wait_for(1, 0, 4 * MS / 5), burst(MS)],
            ),
            task(
                1,
                "pong",
                0,
                &[1],
                vec![
                    wait_for(0, 0, MS / 2),
                    burst(2 * MS),
                    wait_for(0, 1, MS / 2),
                    burst(MS / 5),
                ],
            ),
        ],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    let us = 1000;
    assert_eq!(
        switches(&p.schedule),
        vec![
            (0, None, Some(0)),
            (MS / 2, None, Some(1)),
            (MS, Some(0), None),
            (1300 * us, None, Some(0)),
            (2300 * us, Some(0), None),
            (2700 * us, Some(1), None),
        ]
    );
    assert_eq!(wakeups_of(&p.schedule, 0), vec![0, 1300 * us]);
    assert_eq!(wakeups_of(&p.schedule, 1), vec![MS / 2]);
    assert_eq!(p.schedule.stats.answer_waits, 0);
    assert_eq!(p.schedule.runtimes(2), vec![2 * MS, 2200 * us]);
}
