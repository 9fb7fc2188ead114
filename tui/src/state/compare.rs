//! The Compare view's state: baseline, threshold, "flagged only", and the comparison they
//! give, recomputed through `analysis::compare` on a job whenever one of them changes (the
//! typed reports are in memory and read as they are: no re-read of the traces).

use analysis::compare::model::MetricRow;
use analysis::compare::{self, Comparison, Run};
use analysis::Report;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub(crate) struct CompareState {
    /// Index of the baseline run.
    pub base: usize,
    pub threshold_pct: f64,
    pub flagged_only: bool,
    pub result: Option<Result<Comparison, String>>,
    /// The rows shown, in order.
    pub lines: Vec<Line>,
}

/// One row of the Compare table: a cell of a system metric or of a task's metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line {
    System {
        row: usize,
        cell: usize,
    },
    Task {
        task: usize,
        metric: usize,
        cell: usize,
    },
}

impl Default for CompareState {
    fn default() -> CompareState {
        CompareState {
            base: 0,
            threshold_pct: compare::Options::default().threshold_pct,
            flagged_only: false,
            result: None,
            lines: Vec::new(),
        }
    }
}

/// `runs` compared with run `base` (clamped) as the baseline; `None` without runs.
pub(crate) fn compare(
    runs: &[Run<Arc<Report>>],
    base: usize,
    threshold_pct: f64,
) -> Option<Result<Comparison, String>> {
    let base = runs.get(base.min(runs.len().checked_sub(1)?))?;
    let options = compare::Options {
        base: Some(base.label.clone()),
        threshold_pct,
        ..compare::Options::default()
    };
    Some(compare::compare(runs, &options))
}

impl CompareState {
    pub(crate) fn comparison(&self) -> Option<&Comparison> {
        self.result.as_ref().and_then(|r| r.as_ref().ok())
    }

    /// A comparison (from [`compare`]) with the current settings: show it.
    pub(crate) fn set_result(&mut self, result: Option<Result<Comparison, String>>) {
        self.result = result;
        self.relayout();
    }

    /// Rebuilds the rows (after `f`).
    pub(crate) fn relayout(&mut self) {
        let Some(c) = self.comparison() else {
            self.lines.clear();
            return;
        };
        let keep =
            |row: &MetricRow| !self.flagged_only || row.cells.iter().any(|c| c.flag.is_some());
        let mut lines = Vec::new();
        for (r, row) in c.system.iter().enumerate().filter(|(_, row)| keep(row)) {
            lines.extend((0..row.cells.len()).map(|cell| Line::System { row: r, cell }));
        }
        for (t, task) in c.tasks.tasks.iter().enumerate() {
            // The task table shows the metric that chose the tasks, as the text output does.
            let Some(m) = task.metrics.iter().position(|m| m.key == c.tasks.sort) else {
                continue;
            };
            if keep(&task.metrics[m]) {
                let cells = task.metrics[m].cells.len();
                lines.extend((0..cells).map(|cell| Line::Task {
                    task: t,
                    metric: m,
                    cell,
                }));
            }
        }
        self.lines = lines;
    }

    /// The metric row and cell index of line `at`, with the name to show for it.
    pub(crate) fn line<'a>(
        &self,
        c: &'a Comparison,
        at: usize,
    ) -> Option<(&'a str, &'a MetricRow, usize)> {
        match *self.lines.get(at)? {
            Line::System { row, cell } => Some((c.system[row].name.as_str(), &c.system[row], cell)),
            Line::Task { task, metric, cell } => {
                let t = &c.tasks.tasks[task];
                Some((t.name.as_str(), &t.metrics[metric], cell))
            }
        }
    }
}
