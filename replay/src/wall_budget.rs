//! Tasks busy for a wall-clock time per burst, told from the trace alone.
//!
//! A `massive_intr`-style worker spins until a wall-clock time has passed since it first
//! ran after its wakeup, then sleeps. Its CPU per burst is then the traced kernel's answer
//! (how much of that time it was let run), not its demand: replayed as CPU, a burst echoes
//! the traced kernel. What the trace shows of such a task: a burst preempted while the task
//! was still busy ends, once resumed, within a fraction of a millisecond (its time ran out
//! while it waited: it only has its way to the sleep left), and one budget fits every
//! burst: the task was still busy at the end of its last preempted run (the budget is
//! later than that, counted from the burst's first run) and done by the end of its last run
//! (the budget is no later; not by its last resume: one resumed before its time was up runs
//! to it and sleeps). A ping-pong's preempted bursts end after a read of any length, and no
//! one budget fits them; a spinner has one burst.
//!
//! Which budget: the earliest time the bursts are seen done, the least burst end with two
//! more within a tail's length of it (a lone early end is a burst of other work, such as
//! the task's start). No burst is done before its budget, and those resumed before it end
//! right at it, the way to the sleep included. Not the budget the most bursts fit: under a
//! VM's late ticks a run is preempted at or past the budget before the task gets to see
//! its time is up, and its tail follows: on the CFS `mi` capture 45 % of the first runs
//! end past 8 ms (the tool's budget), up to 11.9, and the fit put the budget at 12.2-13.2
//! ms, where the earliest ends are 8.13-8.38 (8.17-8.30 EEVDF, 8.08-8.13 PDS). The fit
//! still decides whether the task has a budget at all; without such an end, it gives it.
//!
//! Why a budget per task and not each burst's traced span: the span from a burst's first
//! run to its end is mostly the time it waited, which is the traced kernel's scheduling.

use crate::demand::WallBudget;
use crate::segment::{RunPiece, Segmented};

/// Least preempted bursts to read a budget from.
const MIN_PREEMPTED: usize = 20;
/// A burst's last run is a tail (the way to the sleep) when it is at most this long...
const TAIL_MAX_NS: u64 = 500_000;
/// ...and at most this part of the burst's CPU.
const TAIL_PART: u64 = 10;
/// Least share of the preempted bursts with a tail (per mille).
const TAILED_PER_MILLE: usize = 850;
/// Least share of the preempted bursts the budget fits (per mille).
const FITTED_PER_MILLE: usize = 750;

/// One preempted burst, as the rule reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Preempted {
    /// From its first run to the end of its last run before the last resume: still busy.
    busy_ns: u64,
    /// From its first run to the end of its last run: done by then.
    end_ns: u64,
    /// Its last run.
    tail_ns: u64,
    cpu_ns: u64,
}

/// Each preempted burst that ended in a block (a burst closed by the task's exit, lost
/// track or the trace's end is left out: its end is not the task's doing).
fn preempted_bursts(seg: &Segmented) -> Vec<Preempted> {
    let mut out = Vec::new();
    let mut runs: Vec<&RunPiece> = Vec::new();
    let last_burst = seg.runs.last().map(|r| r.burst);
    for r in &seg.runs {
        runs.push(r);
        if !r.ends_burst {
            continue;
        }
        let burst = std::mem::take(&mut runs);
        if burst.len() < 2 || Some(r.burst) == last_burst {
            continue;
        }
        let (first, last, before) = (burst[0], burst[burst.len() - 1], burst[burst.len() - 2]);
        out.push(Preempted {
            busy_ns: before.end_ns - first.start_ns,
            end_ns: last.end_ns - first.start_ns,
            tail_ns: last.end_ns - last.start_ns,
            cpu_ns: burst.iter().map(|r| r.end_ns - r.start_ns).sum(),
        });
    }
    out
}

/// The task's wall-clock budget per burst, when its bursts say it has one.
pub(crate) fn wall_budget(seg: &Segmented) -> Option<WallBudget> {
    let bursts = preempted_bursts(seg);
    let n = bursts.len();
    if n < MIN_PREEMPTED {
        return None;
    }
    let tailed = bursts
        .iter()
        .filter(|b| b.tail_ns <= TAIL_MAX_NS && b.tail_ns * TAIL_PART <= b.cpu_ns)
        .count();
    if tailed * 1000 < n * TAILED_PER_MILLE {
        return None;
    }
    let (fit_ns, fitted) = best_budget(&bursts);
    if fitted * 1000 < n * FITTED_PER_MILLE {
        return None;
    }
    let budget_ns = done_edge(&bursts).unwrap_or(fit_ns);
    let mut tails: Vec<u64> = bursts.iter().map(|b| b.tail_ns).collect();
    tails.sort_unstable();
    Some(WallBudget {
        budget_ns,
        tail_ns: tails[n / 2],
        preempted_bursts: n as u32,
        fitted: fitted as u32,
    })
}

/// The earliest time the bursts are seen done: the least `end` with two more within a
/// tail's length after it.
fn done_edge(bursts: &[Preempted]) -> Option<u64> {
    let mut end: Vec<u64> = bursts.iter().map(|b| b.end_ns).collect();
    end.sort_unstable();
    end.windows(3)
        .find(|w| w[2] - w[0] <= TAIL_MAX_NS)
        .map(|w| w[0])
}

/// The budget B that the most bursts fit (`busy < B <= end`), the latest such B; and how
/// many fit it. The count only falls past an `end`, so the latest B of a count is one.
fn best_budget(bursts: &[Preempted]) -> (u64, usize) {
    let mut busy: Vec<u64> = bursts.iter().map(|b| b.busy_ns).collect();
    let mut end: Vec<u64> = bursts.iter().map(|b| b.end_ns).collect();
    busy.sort_unstable();
    end.sort_unstable();
    let mut best = (0, 0);
    for &b in &end {
        // Bursts still busy before b, less those done before b.
        let fit = busy.partition_point(|&x| x < b) - end.partition_point(|&x| x < b);
        if fit >= best.1 {
            best = (b, fit);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::segment;
    use analysis::timeline_store::{EndReason, IntervalView, ThreadState};
    use analysis::SwitchReason;

    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;

    fn iv(start_ns: u64, dur_ns: u64, state: ThreadState, end: EndReason) -> IntervalView {
        IntervalView {
            start_ns,
            dur_ns,
            state,
            cpu: (state == ThreadState::Running).then_some(1),
            end,
            waker_pid: Some(0),
            latency_timed: true,
        }
    }

    /// A worker with an 8 ms budget on a CPU it shares: each burst runs `first` ms, is
    /// preempted, waits `wait` ms, runs a 0.2 ms tail and sleeps 1 ms.
    fn worker(shapes: &[(u64, u64)]) -> Vec<IntervalView> {
        use EndReason::*;
        use ThreadState::*;
        let mut t = 0;
        let mut out = Vec::new();
        for &(first, wait) in shapes {
            out.push(iv(t, first, Running, SwitchedOut(SwitchReason::Preempt)));
            t += first;
            out.push(iv(t, wait, RunnablePreempted, SwitchedIn));
            t += wait;
            out.push(iv(t, 200 * US, Running, SwitchedOut(SwitchReason::Block)));
            t += 200 * US;
            out.push(iv(t, MS, Sleeping, Woken));
            t += MS;
            out.push(iv(t, 50 * US, RunnableWakeup, SwitchedIn));
            t += 50 * US;
        }
        // The last burst (at the exit) is not read.
        out.push(iv(t, 3 * MS, Running, SwitchedOut(SwitchReason::Exit)));
        out
    }

    #[test]
    fn preempted_bursts_are_read_from_the_runs() {
        let seg = segment(worker(&[(6 * MS, 10 * MS), (4 * MS, 12 * MS)]).into_iter());
        assert_eq!(
            preempted_bursts(&seg),
            vec![
                Preempted {
                    busy_ns: 6 * MS,
                    end_ns: 16_200_000,
                    tail_ns: 200 * US,
                    cpu_ns: 6 * MS + 200 * US,
                },
                Preempted {
                    busy_ns: 4 * MS,
                    end_ns: 16_200_000,
                    tail_ns: 200 * US,
                    cpu_ns: 4 * MS + 200 * US,
                },
            ]
        );
    }

    #[test]
    fn a_worker_gets_the_earliest_time_its_bursts_are_done() {
        // Busy 4-7 ms into each burst, its tail ending 8.2-20.2 ms in (three at 8.2, the
        // earliest): every budget in (7, 8.2] fits all 30.
        let shapes: Vec<(u64, u64)> = (0..30)
            .map(|i| ((4 + i % 4) * MS, (8 + i % 13 - (4 + i % 4)) * MS))
            .collect();
        let seg = segment(worker(&shapes).into_iter());
        let b = wall_budget(&seg).expect("marked");
        assert_eq!(b.preempted_bursts, 30);
        assert_eq!(b.fitted, 30);
        assert_eq!(b.budget_ns, 8_200_000);
        assert_eq!(b.tail_ns, 200 * US);
    }

    #[test]
    fn a_burst_resumed_before_its_time_is_up_runs_to_it() {
        // An 8 ms budget. Twenty bursts run 4 ms, wait 8 and run their 0.2 ms tail
        // (busy 4, resumed at 12, end 12.2); ten run 6 ms, wait 1.8 and, resumed at 7.8,
        // run the 0.2 ms left to 8 and sleep (busy 6, end 8). Every budget in (6, 8] fits
        // all 30; the earliest end is the budget. Read to the last resume, the ten would
        // have capped it at 7.8.
        let shapes: Vec<(u64, u64)> = (0..30)
            .map(|i| {
                if i % 3 == 0 {
                    (6 * MS, 1_800_000)
                } else {
                    (4 * MS, 8 * MS)
                }
            })
            .collect();
        let seg = segment(worker(&shapes).into_iter());
        let b = wall_budget(&seg).expect("marked");
        assert_eq!(
            (b.budget_ns, b.fitted, b.preempted_bursts),
            (8 * MS, 30, 30)
        );
    }

    #[test]
    fn runs_preempted_past_the_budget_do_not_raise_it() {
        // An 8 ms budget. 30 bursts run 4 ms, wait 8, run their tail (busy 4, end 12.2);
        // 6 run 8.6 ms, preempted by a late tick before the task saw its time was up, wait
        // 4 and run their tail (busy 8.6, end 12.8); 4 run 6, wait 1.8 and run to 8 (busy
        // 6, end 8). The most fit B in (8.6, 12.2]: 40 busy before it, less the 4 done by
        // 8: 36 of 40, enough to mark the task; the earliest ends, four at 8, give the
        // budget.
        let mut shapes = vec![(4 * MS, 8 * MS); 30];
        shapes.extend([(8_600_000, 4 * MS); 6]);
        shapes.extend([(6 * MS, 1_800_000); 4]);
        let seg = segment(worker(&shapes).into_iter());
        assert_eq!(best_budget(&preempted_bursts(&seg)), (12_200_000, 36));
        let b = wall_budget(&seg).expect("marked");
        assert_eq!(
            (b.budget_ns, b.fitted, b.preempted_bursts),
            (8 * MS, 36, 40)
        );
    }

    #[test]
    fn without_a_cluster_of_ends_the_latest_budget_the_most_fit() {
        // Busy 4 ms into each burst, resumed at 8, 9, ... 37 ms: no two ends within 0.5 ms
        // of each other, so the fit gives the budget: every B in (4, 8.2] fits all 30.
        let shapes: Vec<(u64, u64)> = (0..30).map(|i| (4 * MS, (4 + i) * MS)).collect();
        let seg = segment(worker(&shapes).into_iter());
        let b = wall_budget(&seg).expect("marked");
        assert_eq!((b.budget_ns, b.fitted), (8_200_000, 30));
    }

    #[test]
    fn too_few_bursts_or_tails_of_any_length_are_not_marked() {
        let shapes: Vec<(u64, u64)> = (0..19).map(|_| (6 * MS, 10 * MS)).collect();
        assert_eq!(wall_budget(&segment(worker(&shapes).into_iter())), None);
        // A ping-pong: 80 µs runs, preempted, then a read of 20-60 µs: the tails are small
        // but a third of the burst or more.
        use EndReason::*;
        use ThreadState::*;
        let mut ivs = Vec::new();
        let mut t = 0;
        for i in 0..40 {
            let read = (20 + i % 5 * 10) * US;
            ivs.push(iv(
                t,
                80 * US,
                Running,
                SwitchedOut(SwitchReason::WakeupPreempt),
            ));
            ivs.push(iv(t + 80 * US, 30 * US, RunnablePreempted, SwitchedIn));
            ivs.push(iv(
                t + 110 * US,
                read,
                Running,
                SwitchedOut(SwitchReason::Block),
            ));
            t += 110 * US + read;
            ivs.push(iv(t, 100 * US, Sleeping, Woken));
            t += 100 * US;
        }
        ivs.push(iv(t, 80 * US, Running, SwitchedOut(SwitchReason::Exit)));
        assert_eq!(wall_budget(&segment(ivs.into_iter())), None);
    }

    #[test]
    fn no_one_budget_fits_bursts_busy_after_others_were_done() {
        // Half the bursts busy at 12 ms, the other half done by 5.2: CPU work cut by
        // preemptions, whatever their tails.
        let shapes: Vec<(u64, u64)> = (0..40)
            .map(|i| {
                if i % 2 == 0 {
                    (12 * MS, 2 * MS)
                } else {
                    (4 * MS, MS)
                }
            })
            .collect();
        let seg = segment(worker(&shapes).into_iter());
        assert_eq!(best_budget(&preempted_bursts(&seg)).1, 20);
        assert_eq!(wall_budget(&seg), None);
    }
}
