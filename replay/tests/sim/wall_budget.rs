//! Tasks busy for a wall-clock time per burst (`TaskDemand::wall_budget`): a burst runs
//! until its budget, counted from its first run and read to the burst's end, is up; one
//! whose budget ran out while it waited runs only its tail when it next runs. Such a task's
//! bursts follow the clock up to its traced exit. One CPU, HZ 250 with the ticks at 0, 4,
//! 8, ... ms; CFS tunables for one CPU: latency 6 ms, min_granularity 0.75 ms,
//! wakeup_granularity 1 ms.

use super::build::*;
use replay::demand::{TaskDemand, TaskEnd, WallBudget};
use replay::sim::model::ModelName;
use replay::sim::schedule::Record;
use replay::sim::simulate;

const US: u64 = 1_000;

/// Task `id` "w" on CPU 0 with a 6 ms budget and a 0.5 ms tail (the traced CPU of its
/// bursts, 1 ms each, is not what it runs).
fn worker(id: usize, phases: Vec<replay::demand::Phase>, end: TaskEnd) -> TaskDemand {
    let mut w = task(id, "w", 0, &[0], phases);
    w.wall_budget = Some(WallBudget {
        budget_ns: 6 * MS,
        tail_ns: 500 * US,
        preempted_bursts: 20,
        fitted: 20,
    });
    w.end = end;
    w
}

fn exits(records: &[Record]) -> Vec<(u64, usize)> {
    records
        .iter()
        .filter_map(|r| match *r {
            Record::Exit { ts, task, .. } => Some((ts, task)),
            _ => None,
        })
        .collect()
}

#[test]
fn alone_a_burst_runs_to_its_budget() {
    // W runs 0-6 (its budget, up while it runs: the burst ends there, no tail, as the
    // budget is read to the traced bursts' ends), sleeps 2 ms from 6 to 8, and runs its
    // second burst 8-14: 12 ms of CPU where the trace had 2.
    let d = demand(
        1,
        40 * MS,
        vec![worker(
            0,
            vec![burst(MS), sleep(2 * MS), burst(MS)],
            TaskEnd::Running,
        )],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    assert_eq!(
        switches(&p.schedule),
        [
            (0, None, Some(0)),
            (6 * MS, Some(0), None),
            (8 * MS, None, Some(0)),
            (14 * MS, Some(0), None),
        ]
    );
}

#[test]
fn a_budget_that_runs_out_while_waiting_leaves_the_tail() {
    // S (task 0) spins; W (task 1) has three 1 ms bursts with 2 ms sleeps between. Both
    // start at 0 with vruntime 0; S, enqueued first, runs; W's wakeup ties (no preemption).
    // Slice: 6 ms / 2 = 3 ms, ended at the tick.
    // t=4: S ran 4 > 3: vS = 4; W (0) runs its first burst: budget up at 4 + 6 = 10.
    // t=8: W ran 4 > 3: vW = 4 = vS, S requeued earlier: S runs. t=10: W's budget is up
    //   while it waits: only its 0.5 ms tail is left.
    // t=12: vS = 8; W (4) runs the tail to 12.5 (vW = 4.5) and sleeps 2 ms.
    // t=14.5: vS = 10 = min_vruntime; W placed at max(4.5, 10 − 3) = 7; S leads by 3 > 1:
    //   W preempts at once. Budget up at 20.5. t=16: W ran 1.5 < 3 and is behind S.
    // t=20: W ran 5.5 > 3: vW = 12.5; S (10) runs. t=20.5: W's budget is up.
    // t=24: vS = 14; W (12.5) runs its tail to 24.5 (vW = 13), sleeps to 26.5.
    // t=26.5: vS = 16; W placed at max(13, 13) = 13: lead 3 > 1, preempts. Up at 32.5.
    // t=32: W ran 5.5: vW = 18.5; S (16) runs. t=36: vS = 20; W runs its tail to 36.5
    //   and has no demand left.
    let w = worker(
        1,
        vec![
            burst(MS),
            sleep(2 * MS),
            burst(MS),
            sleep(2 * MS),
            burst(MS),
        ],
        TaskEnd::Running,
    );
    let d = demand(
        1,
        40 * MS,
        vec![task(0, "spin", 0, &[0], vec![burst(10_000 * MS)]), w],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    let (s, w) = (Some(0), Some(1));
    assert_eq!(
        switches(&p.schedule),
        [
            (0, None, s),
            (4 * MS, s, w),
            (8 * MS, w, s),
            (12 * MS, s, w),
            (12_500_000, w, s),
            (14_500_000, s, w),
            (20 * MS, w, s),
            (24 * MS, s, w),
            (24_500_000, w, s),
            (26_500_000, s, w),
            (32 * MS, w, s),
            (36 * MS, s, w),
            (36_500_000, w, s),
        ]
    );
    assert_eq!(p.schedule.runtimes(2)[1], 16_500_000);
}

#[test]
fn bursts_follow_the_clock_to_the_traced_exit() {
    // Exit traced at 30 ms, its demand one sleep and two bursts: W runs 0-6, sleeps to 8,
    // runs 8-14; its demand is done before 30, so it sleeps its last block again (14-16)
    // and runs its last burst again (16-22), and again (sleep to 24, run to 30); its next
    // block, at 30, is at the exit: it exits.
    let d = demand(
        1,
        40 * MS,
        vec![worker(
            0,
            vec![burst(MS), sleep(2 * MS), burst(MS)],
            TaskEnd::Exit { at_ns: 30 * MS },
        )],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    let runs: Vec<u64> = switches(&p.schedule).iter().map(|s| s.0).collect();
    assert_eq!(
        runs,
        [
            0,
            6 * MS,
            8 * MS,
            14 * MS,
            16 * MS,
            22 * MS,
            24 * MS,
            30 * MS
        ]
    );
    assert_eq!(exits(&p.schedule.records), [(30 * MS, 0)]);
    // Exit traced at 10 ms with four bursts: the block it reaches at 14 is past it: it
    // exits there, its last two bursts not run.
    let d = demand(
        1,
        40 * MS,
        vec![worker(
            0,
            vec![
                burst(MS),
                sleep(2 * MS),
                burst(MS),
                sleep(2 * MS),
                burst(MS),
                sleep(2 * MS),
                burst(MS),
            ],
            TaskEnd::Exit { at_ns: 10 * MS },
        )],
    );
    let p = simulate(&d, ModelName::Cfs, at_zero()).unwrap();
    let runs: Vec<u64> = switches(&p.schedule).iter().map(|s| s.0).collect();
    assert_eq!(runs, [0, 6 * MS, 8 * MS, 14 * MS]);
    assert_eq!(exits(&p.schedule.records), [(14 * MS, 0)]);
}
