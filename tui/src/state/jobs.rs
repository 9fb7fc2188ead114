//! Work too slow for the UI thread, as jobs: regrouping the tasks (`t`, `:group`) and
//! comparing (after every load, and with a new baseline or threshold: `b`, `+`, `-`,
//! `:base`) on a report of 100 000 tasks, and re-reading the traces for a window (markers +
//! Enter, `:time`, `:cpu`; see [`App::take_request`]). The comparison of a load is built
//! after the first frame, on a worker: the views of one run do not wait for it, and the
//! Compare view says "comparing…" until it is there. The state only asks for a job; the driver runs it
//! on a worker thread and feeds the outcome back with [`App::finish`]. Meanwhile the old
//! view stays, with a "recomputing…" badge.
//!
//! Every job gets a fresh number; an outcome counts only if its job is still the newest of
//! its kind and ran on the data still shown. A superseded job's result is dropped (the
//! generation counter); a new load supersedes both kinds, and its own completion applies
//! the grouping and baseline asked for meanwhile.

use super::{App, GroupBy};
use crate::loading::{Data, Message, Sources, Stage};
use analysis::compare::Comparison;
use analysis::{Report, Selection};
use std::sync::Arc;

/// A job for a worker thread: everything it reads, shared, nothing it writes.
pub(crate) enum Job {
    Regroup {
        data: Arc<Data>,
        run: usize,
        group: GroupBy,
    },
    Compare {
        data: Arc<Data>,
        base: usize,
        threshold_pct: f64,
    },
}

/// What a job gives back.
pub(crate) enum Outcome {
    /// The run's tasks regrouped (`None`: one row per pid, the report's own). Both
    /// outcomes are boxed: they travel over a channel, and reports are large.
    Regrouped {
        group: GroupBy,
        table: Option<Box<Report>>,
    },
    Compared(Box<Option<Result<Comparison, String>>>),
}

impl Job {
    /// Runs the job (on a worker thread, or at once for `--print` and tests).
    pub(crate) fn run(self) -> Outcome {
        match self {
            Job::Regroup { data, run, group } => Outcome::Regrouped {
                group,
                table: match (group, data.inputs.get(run)) {
                    (GroupBy::Pid, _) | (_, None) => None,
                    (_, Some(input)) => Some(Box::new(input.report.select(&Selection {
                        group,
                        ..Selection::default()
                    }))),
                },
            },
            Job::Compare {
                data,
                base,
                threshold_pct,
            } => Outcome::Compared(Box::new(super::compare::compare(
                &data.runs,
                base,
                threshold_pct,
            ))),
        }
    }
}

/// The jobs in flight: the newest of each kind, and the one the driver has to start.
#[derive(Debug, Default)]
pub(crate) struct Jobs {
    next: u64,
    regroup: Option<u64>,
    compare: Option<u64>,
    /// The grouping asked for while a regroup runs (what `t` cycles from).
    pub wanted_group: Option<GroupBy>,
    /// Bumped by every load: jobs on older data are stale.
    data_generation: u64,
    started_on: std::collections::HashMap<u64, u64>,
    queue: Vec<u64>,
}

impl Jobs {
    pub(crate) fn pending(&self) -> bool {
        self.regroup.is_some() || self.compare.is_some()
    }

    pub(crate) fn regrouping(&self) -> bool {
        self.regroup.is_some()
    }

    /// Drops the comparison asked for (`--print` of a view that does not show it).
    pub(crate) fn skip_comparison(&mut self) {
        self.compare = None;
    }

    /// Drops the regroup in flight (its outcome will be ignored).
    pub(crate) fn cancel_regroup(&mut self) {
        self.regroup = None;
    }
}

impl App {
    /// A reload the driver must start (window or CPU change), with its generation.
    pub(crate) fn take_request(&mut self) -> Option<(Sources, u64)> {
        self.request.take().map(|s| (s, self.generation))
    }

    /// The next job for a worker thread, with its number for [`App::finish`].
    pub(crate) fn take_job(&mut self) -> Option<(u64, Job)> {
        let id = self.jobs.queue.pop()?;
        let data = self.data.clone()?;
        let job = if Some(id) == self.jobs.regroup {
            Job::Regroup {
                data,
                run: self.run,
                group: self.jobs.wanted_group.unwrap_or(self.tasks.group),
            }
        } else if Some(id) == self.jobs.compare {
            Job::Compare {
                data,
                base: self.compare.base,
                threshold_pct: self.compare.threshold_pct,
            }
        } else {
            // Superseded before it was started: nothing to run.
            return self.take_job();
        };
        Some((id, job))
    }

    /// Applies a job's outcome, unless the job was superseded meanwhile.
    pub(crate) fn finish(&mut self, id: u64, outcome: Outcome) {
        let on = self.jobs.started_on.remove(&id);
        if on != Some(self.jobs.data_generation) {
            return;
        }
        match outcome {
            Outcome::Regrouped { group, table } if self.jobs.regroup == Some(id) => {
                self.jobs.regroup = None;
                self.jobs.wanted_group = None;
                if let Some(input) = self.data.as_ref().and_then(|d| d.inputs.get(self.run)) {
                    self.tasks
                        .set_grouped(&input.report, group, table.map(|t| *t));
                }
                self.clamp_cursors();
            }
            Outcome::Compared(result) if self.jobs.compare == Some(id) => {
                self.jobs.compare = None;
                self.compare.set_result(*result);
                self.clamp_cursors();
            }
            _ => {}
        }
    }

    fn new_job(&mut self) -> u64 {
        self.jobs.next += 1;
        let id = self.jobs.next;
        self.jobs.started_on.insert(id, self.jobs.data_generation);
        self.jobs.queue.push(id);
        id
    }

    /// Regroups the tasks on a worker; the current grouping stays until it is done.
    pub(super) fn regroup(&mut self, group: GroupBy) {
        if self.data.is_none() {
            self.tasks.group = group;
            return;
        }
        self.jobs.wanted_group = Some(group);
        self.jobs.regroup = Some(self.new_job());
    }

    /// The grouping shown, or the one asked for while it is being computed.
    pub(super) fn group_wanted(&self) -> GroupBy {
        self.jobs.wanted_group.unwrap_or(self.tasks.group)
    }

    /// Compares again (new baseline or threshold) on a worker; the old table stays.
    pub(super) fn recompare(&mut self) {
        if self.data.is_some() {
            self.jobs.compare = Some(self.new_job());
        }
    }

    /// Applies a loader message; stale generations are dropped.
    pub(crate) fn receive(&mut self, message: Message) {
        match message {
            Message::Stage {
                generation,
                input,
                stage,
            } if generation == self.generation => {
                if let Some(s) = self.stages.get_mut(input) {
                    *s = stage;
                }
            }
            Message::Loaded { generation, result } if generation == self.generation => {
                self.loaded(result)
            }
            _ => {}
        }
    }

    /// A load finished: replace the data and rebuild every view from it, with the grouping
    /// and baseline asked for meanwhile (jobs on the old data are dropped). The comparison
    /// of the new data is a job: the Compare view shows "comparing…" until it is done.
    pub(crate) fn loaded(&mut self, result: Result<Data, String>) {
        self.stages.clear();
        match result {
            Ok(data) => {
                let first = self.data.is_none();
                self.jobs.data_generation += 1;
                // The compare below and the regroup in `refresh_run` supersede both jobs.
                self.jobs.compare = None;
                self.data = Some(Arc::new(data));
                self.run = self.run.min(self.inputs_len().saturating_sub(1));
                self.refresh_run();
                if first {
                    self.apply_restore();
                }
                // The old comparison is of the old data: not shown beside the new.
                self.compare.set_result(None);
                self.recompare();
                self.clamp_cursors();
            }
            Err(e) if self.data.is_none() => self.failed = Some(e),
            Err(e) => self.error(format!("recomputation failed: {e}")),
        }
    }

    /// True while the comparison of the data shown is being built (none shown yet).
    pub(crate) fn comparing(&self) -> bool {
        self.jobs.compare.is_some() && self.compare.result.is_none()
    }

    pub(crate) fn regrouping(&self) -> bool {
        self.jobs.regrouping()
    }

    /// Re-reads every input for a new `--time` window (`None` = the whole trace).
    pub(super) fn reanalyse_window(&mut self, window: Option<(u64, u64)>) {
        let mut sources = self.sources.clone();
        sources.config.time_window = window;
        // `:time` and the markers give trace-clock times, whatever `--time` said.
        sources.config.time_relative = false;
        self.reload(sources);
    }

    /// Asks for a new load of `sources`; the one in flight is cancelled (its readers stop
    /// at their next chunk) and its results will be dropped.
    pub(super) fn reload(&mut self, sources: Sources) {
        self.cancel_load();
        self.loading = crate::loading::progress_counters(&sources);
        self.generation += 1;
        self.stages = vec![Stage::Waiting; crate::loading::paths(&sources).len()];
        self.sources = sources.clone();
        self.request = Some(sources);
    }

    fn cancel_load(&mut self) {
        for progress in &self.loading {
            progress.cancel();
        }
    }

    /// Quits, stopping the load in flight (its threads would otherwise read on).
    pub(super) fn quit(&mut self) {
        self.cancel_load();
        self.quit = true;
    }
}
