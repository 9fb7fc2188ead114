//! The Tasks table's state: grouping, order, filter, marks, and the resulting row order.
//! Only indices are kept (`rows`), so sorting and filtering never copy task rows.

use crate::columns::COLUMNS;
use crate::filter::Filter;
use crate::ran_on::RanOn;
use analysis::{GroupBy, Report, Selection, TaskRow};
use std::collections::BTreeSet;

#[derive(Debug, Clone)]
pub(crate) struct TaskList {
    pub group: GroupBy,
    /// Index into [`COLUMNS`].
    pub sort: usize,
    /// Largest first (the default for numbers; names sort ascending).
    pub descending: bool,
    pub filter: Option<Filter<TaskRow>>,
    /// The tasks of the CPUs the filter's `cpu=` terms name (empty without such terms).
    pub ran_on: RanOn,
    /// Rows shown, in order: indices into [`TaskList::table`].
    pub rows: Vec<usize>,
    /// Marked tasks by pid (the timeline's lanes, the lag chart).
    pub marks: BTreeSet<i32>,
    /// The report regrouped by process or name (`None` for one row per pid).
    grouped: Option<Report>,
}

impl Default for TaskList {
    fn default() -> TaskList {
        TaskList {
            group: GroupBy::Pid,
            sort: 1,
            descending: true,
            filter: None,
            ran_on: RanOn::default(),
            rows: Vec::new(),
            marks: BTreeSet::new(),
            grouped: None,
        }
    }
}

impl TaskList {
    /// The task rows the indices refer to: the report's own, or its regrouped copy.
    pub(crate) fn table<'a>(&'a self, report: &'a Report) -> &'a [TaskRow] {
        self.grouped.as_ref().map_or(&report.tasks, |g| &g.tasks)
    }

    /// Regroups (through the analysis' own grouping, which keeps percentiles exact when the
    /// samples are at hand) and rebuilds the rows.
    pub(crate) fn regroup(&mut self, report: &Report, group: GroupBy) {
        self.group = group;
        self.grouped = match group {
            GroupBy::Pid => None,
            _ => Some(report.select(&Selection {
                group,
                ..Selection::default()
            })),
        };
        self.rebuild(report);
    }

    /// Shows `table`, the report regrouped by `group` elsewhere (a job), and rebuilds the rows.
    pub(crate) fn set_grouped(&mut self, report: &Report, group: GroupBy, table: Option<Report>) {
        self.group = group;
        self.grouped = table;
        self.rebuild(report);
    }

    /// Sorts by column `sort` in its natural direction.
    pub(crate) fn sort_by(&mut self, report: &Report, sort: usize) {
        self.sort = sort.min(COLUMNS.len() - 1);
        self.descending = !COLUMNS[self.sort].is_label();
        self.rebuild(report);
    }

    /// Filters and sorts the rows again (after any change of report, group, order or filter).
    pub(crate) fn rebuild(&mut self, report: &Report) {
        let table = self.table(report);
        let column = &COLUMNS[self.sort];
        let kept = table.iter().enumerate().filter(|(_, t)| {
            self.filter
                .as_ref()
                .is_none_or(|f| f.matches(t, &self.ran_on))
        });
        let rows = if column.is_label() {
            let keyed = kept
                .map(|(i, t)| (t.comm.as_str(), t.pid as i64, i))
                .collect();
            super::order::by_text(keyed, self.descending)
        } else {
            let keyed = kept
                .map(|(i, t)| (column.value(t), t.pid as i64, i))
                .collect();
            super::order::by_number(keyed, self.descending)
        };
        self.rows = rows;
    }

    /// The task at position `at` of the shown rows.
    pub(crate) fn row<'a>(&'a self, report: &'a Report, at: usize) -> Option<&'a TaskRow> {
        let i = *self.rows.get(at)?;
        self.table(report).get(i)
    }
}
