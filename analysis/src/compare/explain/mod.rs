//! Why a role waited more or less than in the baseline (`compare --explain`, the LKML
//! "o Why" block): the change of its total wait (`sched_delay.sum_ns`, mean over repeats)
//! split into what the waits' CPUs ran — the kinds `enqueue`, `idle`, `unknown`, and
//! `behind` per occupant, the occupant named by its role so that the parts of two runs
//! whose tasks have different pids and names meet — and ranked by how much of the change
//! each explains.
//!
//! Built from the reports' `tasks[].wait_causes` (report schema 3): a report without them
//! (an older JSON report) gives that run no explanation rather than a wrong one. The
//! parts add up to the change exactly, in whole nanoseconds ([`parts::apportion`]); with
//! repeats each part's change gets Welch's p like the other rows, and one that moved
//! within the noise (p ≥ alpha) is said so and not ranked.
//!
//! The latency tail: the reports keep the pieces of each task's longest wait only, so
//! each run shows the mix of its longest wait, not of every wait above a percentile.

pub mod model;
mod parts;

use super::matching::Matching;
use super::significance::welch_p;
use super::subject::Subject;
use super::{ReportSource, Run};
use crate::columns::compare::{Dist, Stat};
use model::{Component, Explain, ExplainedSubject, Occupant, RunWait, WaitChange};
use parts::{apportion, Part, Parts, OTHERS};
use std::collections::{BTreeMap, BTreeSet};

/// A set of tasks to explain: a role of the task table or the workload, with its task
/// rows in every repeat (`[run][repeat]` → indices of the report's `tasks`).
pub(super) struct SubjectSet {
    pub name: String,
    pub workload: bool,
    pub members: Vec<Vec<Vec<usize>>>,
}

/// What [`explain`] needs besides the subjects.
pub(super) struct Context<'a, R> {
    pub runs: &'a [Run<R>],
    pub base: usize,
    pub alpha: f64,
    pub matching: &'a Matching,
    /// The roles of the task table (an occupant in one of them says so).
    pub table_roles: &'a [String],
}

const METHOD: &str = "the change of each subject's total wait (sched_delay.sum_ns, mean over \
    the repeats whose report splits its waits) against the baseline, split into what the \
    waiting task's CPU ran: enqueue (sched_waking to sched_wakeup), idle, unknown, and \
    behind each occupant role (occupants matched by role as the task table matches tasks); \
    the parts add up to the change exactly (means rounded to whole ns by largest \
    remainder); with two or more repeats a side a part whose Welch p >= alpha moved within \
    the noise and is not ranked; `longest` is each run's longest wait of the subject, piece \
    by piece (the reports keep the pieces of each task's longest wait only)";

pub(super) fn explain<R: ReportSource>(cx: &Context<R>, subjects: &[SubjectSet]) -> Explain {
    let occupant_roles = occupant_roles(cx);
    Explain {
        method: METHOD.to_string(),
        subjects: subjects
            .iter()
            .map(|s| subject(cx, &occupant_roles, s))
            .collect(),
    }
}

/// One label's parts: per repeat that has the subject and splits its waits.
struct Measured {
    repeats: Vec<Parts>,
}

impl Measured {
    /// The per-repeat values of `part`.
    fn values(&self, part: &Part) -> Vec<f64> {
        self.repeats
            .iter()
            .map(|p| p.ns.get(part).copied().unwrap_or(0) as f64)
            .collect()
    }

    fn totals(&self) -> Vec<f64> {
        self.repeats
            .iter()
            .map(|p| p.ns.values().sum::<i128>() as f64)
            .collect()
    }

    /// The mean of every part in `keys`, apportioned so they add up to the mean total.
    fn means(&self, keys: &[Part]) -> Vec<i64> {
        let sums: Vec<i128> = keys
            .iter()
            .map(|k| {
                self.repeats
                    .iter()
                    .map(|p| p.ns.get(k).copied().unwrap_or(0))
                    .sum()
            })
            .collect();
        apportion(&sums, self.repeats.len() as i128)
    }

    /// The longest wait over the repeats.
    fn longest(&self) -> Option<&model::LongestMix> {
        self.repeats
            .iter()
            .filter_map(|p| p.longest.as_ref())
            .fold(None, |best, l| match best {
                Some(b) if b.len_ns >= l.len_ns => Some(b),
                _ => Some(l),
            })
    }

    fn comms(&self, role: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in self
            .repeats
            .iter()
            .filter_map(|p| p.comms.get(role))
            .flatten()
        {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
        out
    }
}

fn subject<R: ReportSource>(
    cx: &Context<R>,
    occupant_roles: &[Vec<BTreeMap<String, Vec<usize>>>],
    s: &SubjectSet,
) -> ExplainedSubject {
    let measured: Vec<Measured> = cx
        .runs
        .iter()
        .enumerate()
        .map(|(r, run)| Measured {
            repeats: run
                .repeats
                .iter()
                .enumerate()
                .filter(|(k, _)| !s.members[r][*k].is_empty())
                .filter_map(|(k, rep)| {
                    parts::read(&rep.report, &s.members[r][k], cx.matching, &rep.path)
                })
                .collect(),
        })
        .collect();
    // Every part any run has, in one order, so that each run's means are apportioned
    // over the same keys.
    let keys: Vec<Part> = measured
        .iter()
        .flat_map(|m| m.repeats.iter().flat_map(|p| p.ns.keys().cloned()))
        .collect::<BTreeSet<Part>>()
        .into_iter()
        .collect();
    let means: Vec<Option<Vec<i64>>> = measured
        .iter()
        .map(|m| (!m.repeats.is_empty()).then(|| m.means(&keys)))
        .collect();
    let runs = cx
        .runs
        .iter()
        .zip(&measured)
        .zip(&means)
        .map(|((run, m), means)| run_wait(&run.label, m, &keys, means.as_deref()))
        .collect();
    let slice_p50 = |r: usize, role: &str| -> Option<f64> {
        let run = &cx.runs[r];
        let subjects: Vec<Subject<R>> = (0..run.repeats.len())
            .filter_map(|k| {
                let members = occupant_roles[r][k].get(role)?;
                Some(Subject::new(&run.repeats[k], members, &[]))
            })
            .collect();
        Subject::pooled(&subjects, Dist::Slices, Stat::P50).or_else(|| {
            let v: Vec<f64> = subjects
                .iter()
                .filter_map(|s| s.dist(Dist::Slices, Stat::P50).0)
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        })
    };
    let changes = (0..cx.runs.len())
        .filter(|&r| r != cx.base)
        .filter_map(|r| {
            let (base, this) = (means[cx.base].as_ref()?, means[r].as_ref()?);
            let (mb, ml) = (&measured[cx.base], &measured[r]);
            let longest = ml.longest();
            let base_wait: i64 = base.iter().sum();
            let wait: i64 = this.iter().sum();
            let change = wait - base_wait;
            let mut components: Vec<Component> = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| base[*i] != 0 || this[*i] != 0)
                .map(|(i, key)| {
                    let p = welch_p(&ml.values(key), &mb.values(key));
                    let change_ns = this[i] - base[i];
                    Component {
                        kind: key.kind(),
                        occupant: match key {
                            Part::Behind(role) => Some(Occupant {
                                role: role.clone(),
                                in_task_table: cx.table_roles.contains(role),
                                base_comms: mb.comms(role),
                                comms: ml.comms(role),
                                base_slice_p50_ns: (role != OTHERS)
                                    .then(|| slice_p50(cx.base, role))
                                    .flatten(),
                                slice_p50_ns: (role != OTHERS)
                                    .then(|| slice_p50(r, role))
                                    .flatten(),
                                cpus: longest
                                    .and_then(|l| l.behind.iter().find(|o| &o.role == role))
                                    .map(|o| o.cpus.clone())
                                    .unwrap_or_default(),
                            }),
                            _ => None,
                        },
                        base_ns: base[i],
                        ns: this[i],
                        change_ns,
                        share_pct: (change != 0).then(|| change_ns as f64 / change as f64 * 100.0),
                        p_value: p,
                        noise: p.is_some_and(|p| p >= cx.alpha),
                        rank: None,
                    }
                })
                .collect();
            components.sort_by(|a, b| {
                a.noise
                    .cmp(&b.noise)
                    .then(b.change_ns.unsigned_abs().cmp(&a.change_ns.unsigned_abs()))
            });
            for (i, c) in components.iter_mut().enumerate() {
                c.rank = (!c.noise).then_some(i + 1);
            }
            Some(WaitChange {
                label: cx.runs[r].label.clone(),
                base_wait_ns: base_wait,
                wait_ns: wait,
                change_ns: change,
                p_value: welch_p(&ml.totals(), &mb.totals()),
                components,
            })
        })
        .collect();
    ExplainedSubject {
        subject: s.name.clone(),
        workload: s.workload,
        runs,
        changes,
    }
}

fn run_wait(label: &str, m: &Measured, keys: &[Part], means: Option<&[i64]>) -> RunWait {
    let of = |want: fn(&Part) -> bool| -> Option<i64> {
        means.map(|v| {
            keys.iter()
                .zip(v)
                .filter(|(k, _)| want(k))
                .map(|(_, ns)| ns)
                .sum()
        })
    };
    let longest = m.longest().cloned();
    RunWait {
        label: label.to_string(),
        repeats: m.repeats.len(),
        wait_ns: means.map(|v| v.iter().sum()),
        enqueue_ns: of(|k| *k == Part::Enqueue),
        idle_ns: of(|k| *k == Part::Idle),
        behind_ns: of(|k| matches!(k, Part::Behind(_))),
        unknown_ns: of(|k| *k == Part::Unknown),
        longest,
    }
}

/// Every task of every repeat by role (no `--comm` filter: an occupant is found whatever
/// the task table shows), `[run][repeat]`.
fn occupant_roles<R: ReportSource>(cx: &Context<R>) -> Vec<Vec<BTreeMap<String, Vec<usize>>>> {
    cx.runs
        .iter()
        .map(|run| {
            run.repeats
                .iter()
                .map(|rep| {
                    let mut by_role: BTreeMap<String, Vec<usize>> = BTreeMap::new();
                    for (i, row) in rep.report.tasks().iter().enumerate() {
                        let comm = R::task_comm(row);
                        by_role.entry(cx.matching.role(comm)).or_default().push(i);
                    }
                    by_role
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests;
