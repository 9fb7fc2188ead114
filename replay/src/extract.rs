//! A trace to its [`Demand`]: the analysis' one pass with the timeline store on and an
//! observer beside it ([`crate::observe`]), then each task's intervals cut into bursts and
//! blocks ([`crate::segment`]) and each block's waker resolved to a point in the waker's
//! own bursts.

use crate::affinity::allowed;
use crate::demand::{
    Demand, Fork, Ledger, Phase, TaskDemand, TaskEnd, TimedBy, Wake, SCHEMA_VERSION,
};
use crate::kthread::is_kernel_thread;
use crate::observe::Observed;
use crate::segment::{segment, Ending, OpenBlock, Piece, RunPiece, Segmented};
use analysis::{PrioScale, Report};
use std::collections::HashMap;
use std::path::Path;

/// Least share of a task's task-made wakeups that one waker must have made for its
/// wakeups to count as dependencies. A wakeup in interrupt context (a timer) is traced with
/// whatever task was running as its waker, so a task woken by timers on a busy CPU has
/// wakers spread over the CPU's tasks; a pipe or futex peer is the same task every time.
/// Measured on the CFS and EEVDF fixtures: the ping-pong tasks (`pp1`, `pp2`) have one
/// waker for 99.9 % of them, the timer-woken `mi` workers 60-73 % (the spinner, most often
/// the CPU's current task).
const DOMINANT_SHARE: f64 = 0.9;

/// What to extract with.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// How the trace is read and analysed (the timeline store is turned on here).
    pub analysis: analysis::pipeline::Options,
    /// `--hz`: the traced kernel's tick rate, when known.
    pub hz: Option<u32>,
}

/// The demand and the analysis' report of the same pass (its headline is the input's).
#[derive(Debug, Clone)]
pub struct Extracted {
    pub demand: Demand,
    pub report: Report,
}

/// Reads the trace at `path` and extracts its demand. Errors name the file.
pub fn extract(path: &Path, options: &Options) -> Result<Extracted, String> {
    let mut analysis = options.analysis.clone();
    analysis.config.timeline = Some(analysis.config.timeline.unwrap_or_default());
    // The sidecar's recorded masks (and topology), joined to the `--affinity` rules, as
    // `analyze` takes them: the input's report and the demand see the same affinity.
    analysis.config =
        analysis::pipeline::with_recording(path, &analysis.config).map_err(|e| e.to_string())?;
    let affinity = analysis.config.affinity.clone();
    let recording = analysis.config.recording.clone();
    let recorded_hz = recording.as_ref().and_then(|r| r.1.host.hz);
    let recorded = crate::policy::Recorded::new(recording.as_ref().map(|r| &r.1));
    let mut observed = Observed::default();
    let (report, timeline, meta) =
        analysis::pipeline::analyze_observing(path, &analysis, &mut observed)
            .map_err(|e| e.to_string())?;
    let timeline = timeline
        .expect("the timeline store was asked for")
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let cpus = report.source.cpus.unwrap_or(0).max(timeline.cpu_count());
    let (llcs, topology_source) = llcs(&report, cpus);
    let kept: Vec<_> = timeline.tasks().iter().filter(|t| t.pid > 0).collect();
    let cut: Vec<Segmented> = kept.iter().map(|t| segment(t.intervals())).collect();
    let lifetimes = Lifetimes::of(kept.iter().map(|t| t.pid), &cut);
    let scale = PrioScale::of_release(meta.kernel_release.as_deref());
    let mut ledger = Ledger::default();
    let comms: Vec<&str> = kept.iter().map(|t| t.comm.as_str()).collect();
    let pids: Vec<i32> = kept.iter().map(|t| t.pid).collect();
    let mut resolver = Resolver {
        lifetimes: &lifetimes,
        cut: &cut,
        comms: &comms,
        pids: &pids,
        dominant: Vec::new(),
    };
    resolver.find_dominant();
    let mut tasks = Vec::with_capacity(kept.len());
    for (id, (task, seg)) in kept.iter().zip(&cut).enumerate() {
        let phases = seg
            .pieces
            .iter()
            .map(|piece| match *piece {
                Piece::Burst(ns) => Phase::Burst { ns },
                Piece::Block(block) => Phase::Block {
                    ns: block.ns,
                    wake: resolver.wake(id, &block, &mut ledger),
                },
            })
            .collect();
        if seg.runtime_ns == 0 {
            ledger.idle_tasks += 1;
        }
        let allowed = allowed(affinity.as_deref(), task.pid, &task.comm, seg, cpus);
        let prio = observed.prio_at(task.pid, seg.last_ns);
        let (policy, nice, sched) =
            crate::policy::of(&recorded, scale, task.pid, prio, seg.last_ns);
        let fork = observed
            .fork_of(task.pid, seg.first_ns)
            .map(|(parent_pid, at_ns)| Fork {
                parent: lifetimes.at(parent_pid, at_ns),
                parent_pid,
                at_ns,
            });
        let end = match (
            seg.ending,
            observed.exit_of(task.pid, seg.first_ns, seg.last_ns),
        ) {
            (_, Some(at_ns)) | (Ending::Exit(at_ns), None) => TaskEnd::Exit { at_ns },
            (Ending::Running, None) => TaskEnd::Running,
            (Ending::Asleep, None) => TaskEnd::Asleep,
        };
        tasks.push(TaskDemand {
            id,
            pid: task.pid,
            tgid: task.tgid,
            comm: task.comm.clone(),
            prio,
            nice,
            policy,
            sched,
            cpus: allowed.cpus,
            cpus_from: allowed.from,
            free_bursts: allowed.free_bursts,
            fork,
            start_ns: seg.start_ns,
            end,
            runtime_ns: seg.runtime_ns,
            phases,
            last_burst_ran_ns: last_burst_ran(seg),
            wall_budget: crate::wall_budget::wall_budget(seg),
        });
    }
    let demand = Demand {
        schema_version: SCHEMA_VERSION,
        source: path.display().to_string(),
        kernel_release: meta.kernel_release.clone(),
        scheduler: report.source.scheduler_name.clone(),
        cpus,
        llcs,
        topology_source,
        hz: crate::hz::tick_rate(options.hz, recorded_hz, &observed.preemptions),
        start_ns: timeline.window().start_ns,
        end_ns: timeline.window().end_ns,
        tasks,
        ledger,
        idle_wakeup_ns: idle_wakeup_ns(&report),
        preempt_wakeup_ns: observed.preempt_cost.median_ns(),
        waking_wakeup_ns: observed.waking_lag.median_ns(),
    };
    Ok(Extracted { demand, report })
}

/// When the task's last burst first ran: the first running interval of its last burst.
fn last_burst_ran(seg: &Segmented) -> Option<u64> {
    let last = seg.runs.last()?.burst;
    seg.runs
        .iter()
        .find(|r| r.burst == last && r.into_ns == 0)
        .map(|r| r.start_ns)
}

/// The mean wait of a wakeup onto an idle CPU in the trace (`Demand::idle_wakeup_ns`).
fn idle_wakeup_ns(report: &Report) -> u64 {
    let w = &report.system.wait_causes;
    w.idle_ns.checked_div(w.ended_by.idle).unwrap_or(0)
}

/// The trace's LLC groups, else every CPU in one (a VM or a laptop: one LLC).
fn llcs(report: &Report, cpus: u32) -> (Vec<Vec<u32>>, String) {
    if let Some(t) = &report.source.topology {
        let groups: Option<Vec<Vec<u32>>> = t
            .llcs
            .iter()
            .map(|l| ingest::topology::parse_cpulist(l))
            .collect();
        if let Some(groups) = groups.filter(|g| !g.is_empty()) {
            return (groups, t.source.clone());
        }
    }
    (vec![(0..cpus).collect()], "assumed: one LLC".into())
}

/// Each pid's lifetimes: (first, last time, task id), in order.
struct Lifetimes(HashMap<i32, Vec<(u64, u64, usize)>>);

impl Lifetimes {
    fn of(pids: impl Iterator<Item = i32>, cut: &[Segmented]) -> Lifetimes {
        let mut map: HashMap<i32, Vec<(u64, u64, usize)>> = HashMap::new();
        for (id, (pid, seg)) in pids.zip(cut).enumerate() {
            map.entry(pid)
                .or_default()
                .push((seg.first_ns, seg.last_ns, id));
        }
        Lifetimes(map)
    }

    /// The task id of `pid` at `at_ns`: the last lifetime begun by then (else its first).
    fn at(&self, pid: i32, at_ns: u64) -> Option<usize> {
        let lives = self.0.get(&pid)?;
        let begun = lives.partition_point(|&(first, _, _)| first <= at_ns);
        lives.get(begun.saturating_sub(1)).map(|&(_, _, id)| id)
    }
}

struct Resolver<'a> {
    lifetimes: &'a Lifetimes,
    cut: &'a [Segmented],
    comms: &'a [&'a str],
    pids: &'a [i32],
    /// Per task, the one task that made most of its task-made wakeups, if it made
    /// [`DOMINANT_SHARE`] of them.
    dominant: Vec<Option<usize>>,
}

impl Resolver<'_> {
    /// The waker task of `block` of task `id`: a user task other than `id` itself.
    fn waker_task(&self, id: usize, block: &OpenBlock) -> Option<usize> {
        let pid = block.waker.filter(|&p| p > 0 && !block.lost)?;
        let task = self.lifetimes.at(pid, block.at_ns).filter(|&t| t != id)?;
        (!is_kernel_thread(self.comms[task])).then_some(task)
    }

    fn find_dominant(&mut self) {
        self.dominant = (0..self.cut.len())
            .map(|id| {
                let mut counts: HashMap<usize, usize> = HashMap::new();
                for piece in &self.cut[id].pieces {
                    if let Piece::Block(b) = piece {
                        if let Some(w) = self.waker_task(id, b) {
                            *counts.entry(w).or_default() += 1;
                        }
                    }
                }
                let total: usize = counts.values().sum();
                let (&top, &n) = counts
                    .iter()
                    .max_by_key(|&(&w, &n)| (n, std::cmp::Reverse(w)))?;
                (n as f64 >= DOMINANT_SHARE * total as f64).then_some(top)
            })
            .collect();
    }

    /// What woke task `id`'s `block`.
    fn wake(&self, id: usize, block: &OpenBlock, ledger: &mut Ledger) -> Wake {
        let timed = |source, waker_pid| Wake::Timed { source, waker_pid };
        if block.lost {
            ledger.lost_blocks += 1;
            return timed(TimedBy::Lost, block.waker);
        }
        let waker = match block.waker {
            None => {
                ledger.unknown_wakers += 1;
                return timed(TimedBy::Unknown, None);
            }
            Some(0) => return timed(TimedBy::Idle, Some(0)),
            Some(pid) => pid,
        };
        let Some(task) = self.lifetimes.at(waker, block.at_ns).filter(|&t| t != id) else {
            ledger.unknown_wakers += 1;
            return timed(TimedBy::Unknown, Some(waker));
        };
        if is_kernel_thread(self.comms[task]) {
            return timed(TimedBy::Kernel, Some(waker));
        }
        let (after_bursts, into_ns) = position(&self.cut[task].runs, block.at_ns);
        if self.dominant[id] != Some(task) {
            return timed(TimedBy::Interrupt, Some(waker));
        }
        Wake::Dependency {
            task,
            pid: self.pids[task],
            after_bursts,
            into_ns,
        }
    }
}

/// Where a task was in its bursts at `at_ns`: bursts completed, CPU time into the next.
pub(crate) fn position(runs: &[RunPiece], at_ns: u64) -> (u32, u64) {
    let begun = runs.partition_point(|r| r.start_ns <= at_ns);
    let Some(r) = begun.checked_sub(1).map(|i| runs[i]) else {
        return (0, 0);
    };
    if at_ns <= r.end_ns {
        (r.burst, r.into_ns + (at_ns - r.start_ns))
    } else if r.ends_burst {
        (r.burst + 1, 0)
    } else {
        (r.burst, r.into_ns + (r.end_ns - r.start_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(start_ns: u64, end_ns: u64, burst: u32, into_ns: u64, ends_burst: bool) -> RunPiece {
        RunPiece {
            start_ns,
            end_ns,
            burst,
            into_ns,
            cpu: None,
            ends_burst,
        }
    }

    #[test]
    fn position_in_the_wakers_bursts() {
        let runs = [
            run(100, 110, 0, 0, false),
            run(150, 170, 0, 10, true),
            run(300, 305, 1, 0, true),
        ];
        assert_eq!(position(&runs, 50), (0, 0), "before its first run");
        assert_eq!(position(&runs, 105), (0, 5), "while running");
        assert_eq!(position(&runs, 120), (0, 10), "preempted mid-burst");
        assert_eq!(position(&runs, 165), (0, 25));
        assert_eq!(position(&runs, 200), (1, 0), "asleep after its first burst");
        assert_eq!(position(&runs, 400), (2, 0));
    }
}
