//! Wall-bounded last bursts: a task's last burst of at least [`WALL_BOUNDED_MIN_NS`] that
//! ends at its exit or at the trace's end is replayed as running for a wall-clock time, not
//! as that much CPU. The workloads' spinners spin for a wall-clock time; a fixed amount of
//! CPU would make their shares an echo of the traced kernel's.
//!
//! Why the time counts from the burst's first run, not from the task's start: the spinner
//! times its own spin from when it first runs. On BMQ's `nice` capture the nice-5 spinner
//! waited 3 s runnable before its first run and then spun 3 s; replayed from its start, the
//! 3 s of starvation would be kept in the demand and every other model would "predict" it.

use crate::demand::{Demand, Phase, TaskDemand, TaskEnd, Wake};

/// Where the run must end for a wall-bounded burst that stops at `stop`: past the trace's
/// end when the model started the spin later than the traced kernel did (a spinner the
/// model starves first and then runs alone, as BMQ does with `nice`'s nice-5 spinner,
/// needs the time after the other's exit to spin its traced time), but at most one more
/// window long.
pub(super) fn run_end(d: &Demand, stop: u64) -> u64 {
    let window = d.end_ns.saturating_sub(d.start_ns);
    stop.min(d.end_ns.saturating_add(window))
}

/// Least CPU time of a last burst for it to be wall-bounded. Shorter last bursts are work.
pub(super) const WALL_BOUNDED_MIN_NS: u64 = 100_000_000;

/// How a wall-bounded burst ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WallBound {
    /// At this time (trace clock): the task's end, when its last burst's first run is not
    /// known.
    At(u64),
    /// This long after it first runs in the replay.
    After(u64),
    /// Not before the window's end (still running when the trace ended).
    Never,
}

/// How `t`'s burst number `phase` (`ns` of CPU in the trace) ends, when it is wall-bounded.
pub(crate) fn wall_bound(t: &TaskDemand, phase: usize, ns: u64) -> Option<WallBound> {
    if ns < WALL_BOUNDED_MIN_NS || phase + 1 != t.phases.len() {
        return None;
    }
    match (t.end, t.last_burst_ran_ns) {
        (TaskEnd::Exit { at_ns }, Some(ran)) => Some(WallBound::After(at_ns.saturating_sub(ran))),
        (TaskEnd::Exit { at_ns }, None) => Some(WallBound::At(at_ns)),
        (TaskEnd::Running, _) => Some(WallBound::Never),
        (TaskEnd::Asleep, _) => None,
    }
}

/// Where a task busy for a wall-clock time per burst (`TaskDemand::wall_budget`) goes
/// instead of `phase`, its next: such a task loops until a time (the workloads' workers run
/// for a duration), so how many bursts it did is the traced kernel's answer too. Past its
/// last phase before its traced exit, it sleeps its last timed block again and runs its
/// last burst again; at a block on or after its traced exit, it is done. None: `phase`.
pub(super) fn clock_bound_next(t: &TaskDemand, phase: usize, now: u64) -> Option<usize> {
    let TaskEnd::Exit { at_ns } = t.end else {
        return None;
    };
    t.wall_budget?;
    let n = t.phases.len();
    match t.phases.get(phase) {
        None if now < at_ns && n >= 2 => match (t.phases[n - 2], t.phases[n - 1]) {
            (
                Phase::Block {
                    wake: Wake::Timed { .. },
                    ..
                },
                Phase::Burst { .. },
            ) => Some(n - 2),
            _ => None,
        },
        Some(Phase::Block { .. }) if now >= at_ns => Some(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demand::{Phase, Policy};

    const MS: u64 = 1_000_000;

    fn spinner(phases: Vec<Phase>, end: TaskEnd, ran: Option<u64>) -> TaskDemand {
        TaskDemand {
            id: 0,
            pid: 100,
            tgid: None,
            comm: "spin".into(),
            prio: Some(120),
            nice: Some(0),
            policy: Policy::Normal,
            sched: Default::default(),
            cpus: vec![0],
            cpus_from: Default::default(),
            free_bursts: 0,
            fork: None,
            start_ns: 0,
            end,
            runtime_ns: 0,
            phases,
            last_burst_ran_ns: ran,
            wall_budget: None,
        }
    }

    #[test]
    fn only_a_long_last_burst_is_wall_bounded() {
        let spin = |ns| vec![Phase::Burst { ns: MS }, Phase::Burst { ns }];
        let exit = TaskEnd::Exit { at_ns: 3000 * MS };
        // Timed from its first run: 3 s − 1 s.
        let t = spinner(spin(500 * MS), exit, Some(1000 * MS));
        assert_eq!(
            wall_bound(&t, 1, 500 * MS),
            Some(WallBound::After(2000 * MS))
        );
        // Not the last phase, or too short: work.
        assert_eq!(wall_bound(&t, 0, 500 * MS), None);
        let short = spinner(spin(99 * MS), exit, Some(1000 * MS));
        assert_eq!(wall_bound(&short, 1, 99 * MS), None);
        // Its first run unknown: until the traced exit; still running: to the end.
        let t = spinner(spin(500 * MS), exit, None);
        assert_eq!(wall_bound(&t, 1, 500 * MS), Some(WallBound::At(3000 * MS)));
        let t = spinner(spin(500 * MS), TaskEnd::Running, Some(MS));
        assert_eq!(wall_bound(&t, 1, 500 * MS), Some(WallBound::Never));
        let t = spinner(spin(500 * MS), TaskEnd::Asleep, Some(MS));
        assert_eq!(wall_bound(&t, 1, 500 * MS), None);
    }

    #[test]
    fn the_run_goes_on_at_most_one_more_window() {
        let d = Demand {
            schema_version: crate::demand::SCHEMA_VERSION,
            source: "t".into(),
            kernel_release: None,
            scheduler: "CFS".into(),
            cpus: 1,
            llcs: vec![vec![0]],
            topology_source: "test".into(),
            hz: crate::demand::Hz {
                value: 250,
                source: crate::demand::HzSource::Given,
            },
            start_ns: 1000 * MS,
            end_ns: 4000 * MS,
            tasks: Vec::new(),
            ledger: Default::default(),
            idle_wakeup_ns: 0,
            preempt_wakeup_ns: 0,
            waking_wakeup_ns: 0,
        };
        assert_eq!(run_end(&d, 3500 * MS), 3500 * MS);
        assert_eq!(run_end(&d, 6000 * MS), 6000 * MS);
        assert_eq!(run_end(&d, 9000 * MS), 7000 * MS);
    }
}
