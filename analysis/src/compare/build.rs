//! Building a [`Comparison`] from labelled reports: the run headers, one row per system
//! metric, and the task table (tasks matched by folded name, top N by a task metric).

use super::metrics::{Better, TaskMetric, SYSTEM_METRICS, TASK_METRICS};
use super::model::{
    Cell, Comparison, MetricRow, RepeatHeader, RunHeader, TaskComparison, TaskTable,
    COMPARE_SCHEMA_VERSION,
};
use super::summary::{spread, versus};
use super::{scheduler_of, Run};
use crate::select::fold_name;
use serde_json::Value;
use std::collections::BTreeMap;

/// What to compare and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Label of the baseline; `None` = the first run.
    pub base: Option<String>,
    /// Flag threshold in % (metrics.md §8 default: 5).
    pub threshold_pct: f64,
    /// Tasks in the task table.
    pub top: usize,
    /// Task metric choosing and ordering the tasks.
    pub sort: &'static TaskMetric,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            base: None,
            threshold_pct: 5.0,
            top: 10,
            sort: &TASK_METRICS[0],
        }
    }
}

/// Compares `runs` (each a label with one or more repeats).
pub fn compare(runs: &[Run], opts: &Options) -> Result<Comparison, String> {
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
    let table = RowBuilder {
        labels: runs.iter().map(|r| r.label.clone()).collect(),
        base,
        threshold_pct: opts.threshold_pct,
    };
    let system = SYSTEM_METRICS
        .iter()
        .map(|m| {
            let values = runs
                .iter()
                .map(|run| {
                    run.repeats
                        .iter()
                        .map(|r| m.extract.read(&r.report))
                        .collect()
                })
                .collect();
            table.row(
                m.key,
                m.name,
                m.unit.stored(),
                m.better,
                m.extract.describe(),
                values,
            )
        })
        .collect();
    Ok(Comparison {
        schema_version: COMPARE_SCHEMA_VERSION,
        base: runs[base].label.clone(),
        threshold_pct: opts.threshold_pct,
        stddev: "sample (n - 1)".into(),
        runs: runs.iter().map(header).collect(),
        system,
        tasks: tasks(runs, &table, opts),
    })
}

/// Builds metric rows for a fixed set of labels.
struct RowBuilder {
    labels: Vec<String>,
    base: usize,
    threshold_pct: f64,
}

impl RowBuilder {
    /// `values[label][repeat]`.
    fn row(
        &self,
        key: &str,
        name: &str,
        unit: &str,
        better: Better,
        source: String,
        values: Vec<Vec<Option<f64>>>,
    ) -> MetricRow {
        let spreads: Vec<_> = values
            .iter()
            .map(|v| spread(&v.iter().flatten().copied().collect::<Vec<f64>>()))
            .collect();
        let base = spreads[self.base];
        let cells = values
            .into_iter()
            .zip(&spreads)
            .enumerate()
            .map(|(i, (values, s))| {
                let vs = match (s, base) {
                    (Some(s), Some(b)) => Some(versus(s, &b, better, self.threshold_pct)),
                    _ => None,
                };
                let is_base = i == self.base;
                Cell {
                    label: self.labels[i].clone(),
                    values,
                    n: s.map_or(0, |s| s.n),
                    mean: s.map(|s| s.mean),
                    stddev: s.and_then(|s| s.stddev),
                    cv_pct: s.and_then(|s| s.cv_pct),
                    normalized: vs.and_then(|v| v.normalized),
                    // The baseline against itself: exactly 0, never -0.
                    change_pct: vs
                        .and_then(|v| v.change_pct)
                        .map(|c| if is_base { 0.0 } else { c }),
                    flag: vs
                        .and_then(|v| v.flag)
                        .filter(|_| !is_base)
                        .map(|f| f.symbol().to_string()),
                }
            })
            .collect();
        MetricRow {
            key: key.into(),
            name: name.into(),
            unit: unit.into(),
            better: better.name().into(),
            source,
            cells,
        }
    }
}

fn header(run: &Run) -> RunHeader {
    let repeats: Vec<RepeatHeader> = run
        .repeats
        .iter()
        .map(|r| {
            let v = &r.report;
            let u64_at = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            let lost = v
                .pointer("/quality/lost_events")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            RepeatHeader {
                path: r.path.clone(),
                format: str_at(v, "/source/format"),
                from_json_report: r.from_json_report,
                kernel_release: str_at(v, "/source/kernel_release"),
                scheduler: scheduler_of(v),
                window_ns: u64_at("/window/end_ns").saturating_sub(u64_at("/window/start_ns")),
                events: sum_object(v.pointer("/quality/events")),
                lost_events: lost.iter().filter_map(|l| l["count"].as_u64()).sum(),
                lost_unknown: lost.iter().filter(|l| l["count"].is_null()).count() as u64,
                context_switch_bugs: v
                    .pointer("/quality/context_switch_bugs")
                    .and_then(Value::as_array)
                    .map_or(0, |a| a.iter().filter_map(|c| c["count"].as_u64()).sum()),
            }
        })
        .collect();
    let mut schedulers: Vec<String> = Vec::new();
    let mut kernels: Vec<String> = Vec::new();
    for r in &repeats {
        if !schedulers.contains(&r.scheduler) {
            schedulers.push(r.scheduler.clone());
        }
        if let Some(k) = &r.kernel_release {
            if !kernels.contains(k) {
                kernels.push(k.clone());
            }
        }
    }
    RunHeader {
        label: run.label.clone(),
        scheduler: schedulers.join(" / "),
        kernel_releases: kernels,
        repeats,
    }
}

fn str_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn sum_object(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_object)
        .map_or(0, |o| o.values().filter_map(Value::as_u64).sum())
}

/// The task rows of one report, grouped by folded name.
fn tasks_by_name(report: &Value) -> BTreeMap<String, Vec<&Value>> {
    let mut by_name: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for t in report["tasks"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        if let Some(comm) = t["comm"].as_str() {
            by_name
                .entry(fold_name(comm).to_string())
                .or_default()
                .push(t);
        }
    }
    by_name
}

fn tasks(runs: &[Run], table: &RowBuilder, opts: &Options) -> TaskTable {
    // grouped[label][repeat]: name -> member rows.
    let grouped: Vec<Vec<BTreeMap<String, Vec<&Value>>>> = runs
        .iter()
        .map(|run| {
            run.repeats
                .iter()
                .map(|r| tasks_by_name(&r.report))
                .collect()
        })
        .collect();
    let mut names: Vec<&String> = grouped.iter().flatten().flat_map(|g| g.keys()).collect();
    names.sort();
    names.dedup();

    let compare_task = |name: &str, metric: &TaskMetric| -> MetricRow {
        let values = grouped
            .iter()
            .map(|repeats| {
                repeats
                    .iter()
                    .map(|g| g.get(name).and_then(|m| metric.combine.read(m)))
                    .collect()
            })
            .collect();
        table.row(
            metric.key,
            metric.name,
            metric.unit.stored(),
            metric.better,
            metric.combine.describe(),
            values,
        )
    };

    // Order: the sort metric's largest mean in any run, so that a task that is heavy in
    // only one run (a new kernel thread, a renamed program) is not cut away.
    let mut ranked: Vec<(f64, &String)> = names
        .into_iter()
        .map(|name| {
            let row = compare_task(name, opts.sort);
            let best = row
                .cells
                .iter()
                .filter_map(|c| c.mean)
                .fold(f64::NEG_INFINITY, f64::max);
            (best, name)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    ranked.truncate(opts.top);

    let tasks = ranked
        .into_iter()
        .map(|(_, name)| TaskComparison {
            name: name.clone(),
            present_in: runs
                .iter()
                .zip(&grouped)
                .filter(|(_, g)| g.iter().any(|g| g.contains_key(name)))
                .map(|(run, _)| run.label.clone())
                .collect(),
            metrics: TASK_METRICS.iter().map(|m| compare_task(name, m)).collect(),
        })
        .collect();
    TaskTable {
        matched_by: "comm with trailing digits folded".into(),
        sort: opts.sort.key.into(),
        top: opts.top,
        tasks,
    }
}
