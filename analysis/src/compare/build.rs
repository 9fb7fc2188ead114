//! Building a [`Comparison`] from labelled reports: the run headers, the system rows
//! (every task, or the `--workload`), and the task table (tasks matched by role, top N by
//! a task metric).

use super::explain::{self, model::Explain, Context, SubjectSet};
use super::matching::Matching;
use super::model::{
    Cell, Comparison, MetricRow, RepeatHeader, RoleMembers, RunHeader, ScopeInfo, Significance,
    TaskComparison, TaskTable, COMPARE_SCHEMA_VERSION,
};
use super::read::{pooled, read};
use super::significance::{bootstrap_ci, welch_p, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED};
use super::subject::Subject;
use super::summary::{change_pct, spread, versus, FlagRule};
use super::{scheduler_name_of, scheduler_of, Repeat, ReportSource, Run};
use crate::columns::compare::{Compared, SYSTEM, TASK, WORKLOAD};
use crate::columns::Direction;
use regex::Regex;
use std::collections::BTreeMap;

/// What to compare and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Label of the baseline; `None` = the first run.
    pub base: Option<String>,
    /// Flag threshold in % (metrics.md §8 default: 5).
    pub threshold_pct: f64,
    /// Welch p-values at or above this are not flagged.
    pub alpha: f64,
    /// Roles in the task table.
    pub top: usize,
    /// Task metric choosing and ordering the roles.
    pub sort: &'static Compared,
    pub matching: Matching,
    /// `--comm`: only tasks whose name matches are in the task table.
    pub comm: Option<Regex>,
    /// `--workload`: the system rows cover only these tasks.
    pub workload: Option<Regex>,
    /// The analysis options the traces were analysed with, in words (for the header).
    pub analysis_scope: Vec<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            base: None,
            threshold_pct: 5.0,
            alpha: 0.05,
            top: 10,
            sort: &TASK[0],
            matching: Matching::default(),
            comm: None,
            workload: None,
            analysis_scope: Vec::new(),
        }
    }
}

/// Compares `runs` (each a label with one or more repeats).
pub fn compare<R: ReportSource>(runs: &[Run<R>], opts: &Options) -> Result<Comparison, String> {
    if runs.is_empty() {
        return Err("nothing to compare: no runs given".into());
    }
    if let Some(run) = runs.iter().find(|r| r.repeats.is_empty()) {
        return Err(format!("run {:?} has no trace", run.label));
    }
    let base = match &opts.base {
        None => 0,
        Some(label) => runs.iter().position(|r| &r.label == label).ok_or_else(|| {
            let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
            format!(
                "--base {label:?} is not one of the run labels: {}",
                labels.join(", ")
            )
        })?,
    };
    if !(opts.threshold_pct.is_finite() && opts.threshold_pct >= 0.0) {
        return Err(format!(
            "threshold {} % is not a non-negative number",
            opts.threshold_pct
        ));
    }
    if !(opts.alpha > 0.0 && opts.alpha <= 1.0) {
        return Err(format!("--alpha {} is not in (0, 1]", opts.alpha));
    }
    let sets = TaskSets::new(runs, opts);
    let table = RowBuilder {
        labels: runs.iter().map(|r| r.label.clone()).collect(),
        base,
        rule: FlagRule {
            threshold_pct: opts.threshold_pct,
            alpha: opts.alpha,
        },
    };
    let (metrics, cover) = match &opts.workload {
        Some(re) => (
            WORKLOAD,
            format!("the workload: tasks named /{}/", re.as_str()),
        ),
        None => (SYSTEM, "every task of each trace".to_string()),
    };
    let mut exact = true;
    let system = metrics
        .iter()
        .map(|m| {
            let (row, e) = table.row(m, runs, |run, rep| sets.system(run, rep));
            exact &= e;
            row
        })
        .collect();
    let tasks = tasks(runs, &sets, &table, opts, &mut exact);
    let explain = explain_all(runs, base, opts, &sets, &tasks);
    Ok(Comparison {
        schema_version: COMPARE_SCHEMA_VERSION,
        base: runs[base].label.clone(),
        threshold_pct: opts.threshold_pct,
        alpha: opts.alpha,
        stddev: "sample (n - 1)".into(),
        significance: Significance {
            test: "Welch's t-test (two-sided) of the per-repeat values against the baseline's".into(),
            confidence_interval: "95 % percentile bootstrap of the change, repeats resampled with replacement".into(),
            bootstrap_resamples: BOOTSTRAP_RESAMPLES,
            bootstrap_seed: BOOTSTRAP_SEED,
            percentiles: "of every sample of every repeat (pooled); CV and p from the per-repeat values".into(),
            percentiles_exact: exact,
        },
        scope: ScopeInfo {
            analysis: opts.analysis_scope.clone(),
            comm: opts.comm.as_ref().map(|r| r.as_str().to_string()),
            workload: opts.workload.as_ref().map(|r| r.as_str().to_string()),
            system_rows_cover: cover,
            idle_while_runnable: "CPU time idle while any task waited on another CPU, over all CPUs (the report does not split it per task)".into(),
            shares_of: sets.shares_of.clone(),
        },
        runs: runs.iter().map(header).collect(),
        system,
        tasks,
        explain: Some(explain),
    })
}

/// The `explain` section: every role of the task table, then the workload.
fn explain_all<R: ReportSource>(
    runs: &[Run<R>],
    base: usize,
    opts: &Options,
    sets: &TaskSets,
    table: &TaskTable,
) -> Explain {
    let table_roles: Vec<String> = table.tasks.iter().map(|t| t.name.clone()).collect();
    let mut subjects: Vec<SubjectSet> = table_roles
        .iter()
        .map(|name| SubjectSet {
            name: name.clone(),
            workload: false,
            members: per_index(runs, |r, k| {
                sets.roles[r][k].get(name).cloned().unwrap_or_default()
            }),
        })
        .collect();
    if let Some(re) = &opts.workload {
        subjects.push(SubjectSet {
            name: re.as_str().to_string(),
            workload: true,
            members: sets.workload.clone(),
        });
    }
    let cx = Context {
        runs,
        base,
        alpha: opts.alpha,
        matching: &opts.matching,
        table_roles: &table_roles,
    };
    explain::explain(&cx, &subjects)
}

/// `f(run, repeat)` of every repeat, `[run][repeat]`.
fn per_index<T, R>(runs: &[Run<R>], f: impl Fn(usize, usize) -> T) -> Vec<Vec<T>> {
    runs.iter()
        .enumerate()
        .map(|(r, run)| (0..run.repeats.len()).map(|k| f(r, k)).collect())
        .collect()
}

/// The task sets of every repeat: the workload, and the tasks of each role.
struct TaskSets {
    /// `[run][repeat]`: indices into the report's `tasks`.
    workload: Vec<Vec<Vec<usize>>>,
    /// `[run][repeat]`: role -> indices.
    roles: Vec<Vec<BTreeMap<String, Vec<usize>>>>,
    system_is_workload: bool,
    shares_of: String,
}

/// `f` of every repeat, `[run][repeat]`.
fn per_repeat<T, R>(runs: &[Run<R>], f: impl Fn(&Repeat<R>) -> T) -> Vec<Vec<T>> {
    runs.iter()
        .map(|r| r.repeats.iter().map(&f).collect())
        .collect()
}

fn comms<R: ReportSource>(report: &R) -> Vec<&str> {
    report.tasks().iter().map(R::task_comm).collect()
}

/// Which task names a comparison's shares are taken over.
type CommFilter<'a> = Box<dyn Fn(&str) -> bool + 'a>;

impl TaskSets {
    fn new<R: ReportSource>(runs: &[Run<R>], opts: &Options) -> TaskSets {
        let m = &opts.matching;
        let (in_workload, shares_of): (CommFilter, String) = match (&opts.workload, &m.by) {
            (Some(re), _) => (
                Box::new(move |c| re.is_match(c)),
                format!("the --workload tasks /{}/", re.as_str()),
            ),
            (None, super::matching::MatchBy::Regex(re)) => (
                Box::new(move |c| m.matched(c)),
                format!("the tasks --match /{}/ names", re.as_str()),
            ),
            (None, _) => (Box::new(|_| true), "every task".into()),
        };
        let workload = per_repeat(runs, |rep: &Repeat<R>| {
            let c = comms(&rep.report);
            (0..c.len())
                .filter(|&i| in_workload(c[i]))
                .collect::<Vec<usize>>()
        });
        let roles = per_repeat(runs, |rep: &Repeat<R>| {
            let mut by_role: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (i, comm) in comms(&rep.report).into_iter().enumerate() {
                if opts.comm.as_ref().is_none_or(|re| re.is_match(comm)) {
                    by_role.entry(m.role(comm)).or_default().push(i);
                }
            }
            by_role
        });
        TaskSets {
            workload,
            roles,
            system_is_workload: opts.workload.is_some(),
            shares_of,
        }
    }

    fn system<'a, R: ReportSource>(
        &self,
        run: &'a Run<R>,
        (r, k): (usize, usize),
    ) -> Subject<'a, R> {
        let rep = &run.repeats[k];
        let w = &self.workload[r][k];
        if self.system_is_workload {
            Subject::new(rep, w, w)
        } else {
            let all: Vec<usize> = (0..rep.report.tasks().len()).collect();
            Subject::new(rep, &all, w)
        }
    }

    fn role<'a, R: ReportSource>(
        &self,
        run: &'a Run<R>,
        (r, k): (usize, usize),
        role: &str,
    ) -> Subject<'a, R> {
        let members = self.roles[r][k]
            .get(role)
            .map(Vec::as_slice)
            .unwrap_or_default();
        Subject::new(&run.repeats[k], members, &self.workload[r][k])
    }
}

/// Builds metric rows for a fixed set of labels.
struct RowBuilder {
    labels: Vec<String>,
    base: usize,
    rule: FlagRule,
}

/// One label's numbers of one metric.
struct Measured {
    values: Vec<Option<f64>>,
    pooled: Option<f64>,
}

impl RowBuilder {
    /// The row of `metric`; `subject(run, (run index, repeat index))` gives what it
    /// measures in each repeat. The flag says whether every value was exact.
    fn row<'a, R: ReportSource>(
        &self,
        metric: &Compared,
        runs: &'a [Run<R>],
        subject: impl Fn(&'a Run<R>, (usize, usize)) -> Subject<'a, R>,
    ) -> (MetricRow, bool) {
        let mut exact = true;
        let measured: Vec<Measured> = runs
            .iter()
            .enumerate()
            .map(|(r, run)| {
                let subjects: Vec<Subject<R>> = (0..run.repeats.len())
                    .map(|k| subject(run, (r, k)))
                    .collect();
                let values = subjects
                    .iter()
                    .map(|s| {
                        let (v, e) = read(metric.read, s);
                        exact &= e || v.is_none();
                        v
                    })
                    .collect();
                Measured {
                    values,
                    pooled: pooled(metric.read, &subjects),
                }
            })
            .collect();
        (self.cells(metric, measured), exact)
    }

    fn cells(&self, metric: &Compared, measured: Vec<Measured>) -> MetricRow {
        let present = |m: &Measured| m.values.iter().flatten().copied().collect::<Vec<f64>>();
        let base_values = present(&measured[self.base]);
        let base_spread = spread(&base_values);
        let base_value = measured[self.base].pooled.or(base_spread.map(|s| s.mean));
        let better = metric.direction();
        let cells = measured
            .into_iter()
            .enumerate()
            .map(|(i, m)| {
                let values = present(&m);
                let s = spread(&values);
                let value = m.pooled.or(s.map(|s| s.mean));
                let is_base = i == self.base;
                let p = (!is_base).then(|| welch_p(&values, &base_values)).flatten();
                let vs = match (value, s, base_value, base_spread) {
                    (Some(v), Some(s), Some(bv), Some(bs)) => {
                        Some(versus((v, &s), (bv, &bs), better, p, self.rule))
                    }
                    _ => None,
                };
                let ci = (!is_base && better != Direction::Neutral)
                    .then(|| {
                        bootstrap_ci(&values, &base_values, |a, b| {
                            change_pct(a, b, better).unwrap_or(f64::NAN)
                        })
                    })
                    .flatten();
                Cell {
                    label: self.labels[i].clone(),
                    values: m.values,
                    n: s.map_or(0, |s| s.n),
                    mean: s.map(|s| s.mean),
                    pooled: m.pooled,
                    value,
                    stddev: s.and_then(|s| s.stddev),
                    cv_pct: s.and_then(|s| s.cv_pct),
                    normalized: vs.and_then(|v| v.normalized),
                    // The baseline against itself: exactly 0, never -0.
                    change_pct: vs
                        .and_then(|v| v.change_pct)
                        .map(|c| if is_base { 0.0 } else { c }),
                    p_value: p,
                    ci_pct: ci,
                    flag: vs
                        .and_then(|v| v.flag)
                        .filter(|_| !is_base)
                        .map(|f| f.symbol().to_string()),
                    flag_basis: vs.map_or("-", |v| v.basis.name()).to_string(),
                }
            })
            .collect();
        MetricRow {
            key: metric.key.into(),
            name: metric.name.into(),
            unit: metric.unit.stored().into(),
            better: better.name().into(),
            source: metric.read.describe(),
            cells,
        }
    }
}

fn header<R: ReportSource>(run: &Run<R>) -> RunHeader {
    let repeats: Vec<RepeatHeader> = run
        .repeats
        .iter()
        .map(|r| {
            let v = &r.report;
            let (start, end) = v.window();
            let (lost_events, lost_unknown) = v.lost();
            let text = |p: &str| v.text(p).map(str::to_string);
            RepeatHeader {
                path: r.path.clone(),
                format: text("/source/format"),
                from_json_report: r.from_json_report,
                kernel_release: text("/source/kernel_release"),
                scheduler: scheduler_name_of(v),
                family: scheduler_of(v),
                window_start_ns: start,
                window_ns: end.saturating_sub(start),
                events: v.events(),
                lost_events,
                lost_unknown,
                context_switch_bugs: v.context_switch_bugs(),
                worst_wait: v.worst_wait(),
            }
        })
        .collect();
    let distinct = |f: &dyn Fn(&RepeatHeader) -> Option<String>| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for v in repeats.iter().filter_map(f) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    };
    RunHeader {
        label: run.label.clone(),
        scheduler: distinct(&|r| Some(r.scheduler.clone())).join(" / "),
        family: distinct(&|r| Some(r.family.clone())).join(" / "),
        kernel_releases: distinct(&|r| r.kernel_release.clone()),
        repeats,
    }
}

fn tasks<R: ReportSource>(
    runs: &[Run<R>],
    sets: &TaskSets,
    table: &RowBuilder,
    opts: &Options,
    exact: &mut bool,
) -> TaskTable {
    let mut names: Vec<&String> = sets.roles.iter().flatten().flat_map(|g| g.keys()).collect();
    names.sort();
    names.dedup();
    let row =
        |name: &str, metric: &Compared| table.row(metric, runs, |run, at| sets.role(run, at, name));
    // Order: the sort metric's largest value in any run, so that a task that is heavy in
    // only one run (a new kernel thread, a renamed program) is not cut away.
    let mut ranked: Vec<(f64, &String)> = names
        .into_iter()
        .map(|name| {
            let best = row(name, opts.sort)
                .0
                .cells
                .iter()
                .filter_map(|c| c.value)
                .fold(f64::NEG_INFINITY, f64::max);
            (best, name)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    ranked.truncate(opts.top);
    let tasks = ranked
        .into_iter()
        .map(|(_, name)| {
            let members: Vec<RoleMembers> = runs
                .iter()
                .enumerate()
                .map(|(r, run)| {
                    let mut comms: Vec<String> = Vec::new();
                    for (k, rep) in run.repeats.iter().enumerate() {
                        let names = self::comms(&rep.report);
                        for &i in sets.roles[r][k]
                            .get(name.as_str())
                            .map(Vec::as_slice)
                            .unwrap_or_default()
                        {
                            if !comms.iter().any(|c| c == names[i]) {
                                comms.push(names[i].to_string());
                            }
                        }
                    }
                    RoleMembers {
                        label: run.label.clone(),
                        comms,
                    }
                })
                .collect();
            TaskComparison {
                name: name.clone(),
                present_in: members
                    .iter()
                    .filter(|m| !m.comms.is_empty())
                    .map(|m| m.label.clone())
                    .collect(),
                members,
                metrics: TASK
                    .iter()
                    .map(|m| {
                        let (r, e) = row(name, m);
                        *exact &= e;
                        r
                    })
                    .collect(),
            }
        })
        .collect();
    TaskTable {
        matched_by: opts.matching.describe(),
        aliases: opts
            .matching
            .aliases
            .iter()
            .map(|(a, b)| [a.clone(), b.clone()])
            .collect(),
        sort: opts.sort.key.into(),
        top: opts.top,
        tasks,
    }
}
