//! The wakeup-preemption view's table: every (waker, wakee, victim) triple of the report,
//! sorted and filtered with the Tasks table's keys (`<`/`>`, `I`, `/`, `:sort KEY`).
//! Only indices into the report's triples are kept.

use super::{order, App};
use crate::action::View;
use crate::filter::{Filter, Record};
use crate::ran_on::RanOn;
use analysis::columns::Unit;
use analysis::report::Triple;
use regex::Regex;

/// A column of the triples table; `unit` is `None` for a name.
pub(crate) struct TripleColumn {
    pub key: &'static str,
    pub header: &'static str,
    pub unit: Option<Unit>,
}

#[rustfmt::skip] // one column per line reads as the table it is
pub(crate) static TRIPLE_COLUMNS: &[TripleColumn] = &[
    TripleColumn { key: "count", header: "count", unit: Some(Unit::Count) },
    TripleColumn { key: "waker", header: "waker", unit: None },
    TripleColumn { key: "wakee", header: "wakee", unit: None },
    TripleColumn { key: "victim", header: "victim", unit: None },
    TripleColumn { key: "first", header: "first s", unit: Some(Unit::Timestamp) },
    TripleColumn { key: "last", header: "last s", unit: Some(Unit::Timestamp) },
];

/// The name of column `i` of `t` (`None` for a number column).
fn name(t: &Triple, i: usize) -> Option<&str> {
    match i {
        1 => Some(&t.waker),
        2 => Some(&t.wakee),
        3 => Some(&t.victim),
        _ => None,
    }
}

impl Record for Triple {
    const HAS_CPUS: bool = false;

    fn field(name: &str) -> Option<(usize, Unit)> {
        let i = TRIPLE_COLUMNS.iter().position(|c| c.key == name)?;
        Some((i, TRIPLE_COLUMNS[i].unit?))
    }

    fn field_names() -> Vec<&'static str> {
        let numbers = TRIPLE_COLUMNS.iter().filter(|c| c.unit.is_some());
        numbers.map(|c| c.key).collect()
    }

    fn value(&self, field: usize) -> Option<f64> {
        match field {
            0 => Some(self.count as f64),
            4 => Some(self.first_ns as f64),
            5 => Some(self.last_ns as f64),
            _ => None,
        }
    }

    fn names_match(&self, re: &Regex) -> bool {
        [&self.waker, &self.wakee, &self.victim]
            .iter()
            .any(|n| re.is_match(n))
    }

    fn ran_on(&self, _: u32, _: &RanOn) -> bool {
        false
    }
}

#[derive(Debug, Clone)]
pub(crate) struct TripleList {
    /// Index into [`TRIPLE_COLUMNS`].
    pub sort: usize,
    pub descending: bool,
    pub filter: Option<Filter<Triple>>,
    /// Rows shown, in order: indices into the report's triples.
    pub rows: Vec<usize>,
}

impl Default for TripleList {
    fn default() -> TripleList {
        TripleList {
            sort: 0,
            descending: true,
            filter: None,
            rows: Vec::new(),
        }
    }
}

impl TripleList {
    /// Sorts by column `sort` in its natural direction.
    pub(crate) fn sort_by(&mut self, triples: &[Triple], sort: usize) {
        self.sort = sort.min(TRIPLE_COLUMNS.len() - 1);
        self.descending = TRIPLE_COLUMNS[self.sort].unit.is_some();
        self.rebuild(triples);
    }

    pub(crate) fn rebuild(&mut self, triples: &[Triple]) {
        let none = RanOn::default();
        let kept = triples
            .iter()
            .enumerate()
            .filter(|(_, t)| self.filter.as_ref().is_none_or(|f| f.matches(t, &none)));
        // Ties keep the report's order (most frequent first, then by names).
        self.rows = match TRIPLE_COLUMNS[self.sort].unit {
            None => {
                let keyed = kept
                    .map(|(i, t)| (name(t, self.sort).unwrap_or(""), i as i64, i))
                    .collect();
                order::by_text(keyed, self.descending)
            }
            Some(_) => {
                let keyed = kept
                    .map(|(i, t)| (t.value(self.sort), i as i64, i))
                    .collect();
                order::by_number(keyed, self.descending)
            }
        };
    }
}

impl App {
    /// The report's triples of the current run.
    fn triples_of_run(&self) -> &[Triple] {
        self.input()
            .map_or(&[][..], |i| &i.report.system.wakeup_preemption.triples)
    }

    /// Filters and sorts the triples again (new data, order or filter).
    pub(super) fn rebuild_triples(&mut self) {
        let mut list = std::mem::take(&mut self.triples);
        list.rebuild(self.triples_of_run());
        self.triples = list;
        self.clamp_cursors();
    }

    /// `<` / `>` on the triples: the previous / next column, in its natural direction.
    pub(super) fn sort_triples_step(&mut self, step: isize) {
        let n = TRIPLE_COLUMNS.len() as isize;
        let sort = (self.triples.sort as isize + step).rem_euclid(n) as usize;
        self.sort_triples(sort, None);
    }

    /// Sorts the triples by column `sort`; `descending` overrides the natural direction.
    pub(super) fn sort_triples(&mut self, sort: usize, descending: Option<bool>) {
        let mut list = std::mem::take(&mut self.triples);
        list.sort_by(self.triples_of_run(), sort);
        if let Some(d) = descending {
            list.descending = d;
            list.rebuild(self.triples_of_run());
        }
        self.triples = list;
        self.clamp_cursors();
    }

    /// A filter on the triples; a malformed one changes nothing.
    pub(super) fn set_triple_filter(&mut self, text: &str) {
        let filter = match Filter::parse_line(text) {
            Ok(f) => f,
            Err(e) => return self.error(format!("filter: {e}")),
        };
        self.triples.filter = filter;
        self.rebuild_triples();
        self.status = None;
    }

    /// True when the view shows the triples (their keys apply there).
    pub(super) fn on_triples(&self) -> bool {
        self.view == View::Preemptions
    }
}

/// The column named `key`.
pub(crate) fn find(key: &str) -> Option<usize> {
    TRIPLE_COLUMNS.iter().position(|c| c.key == key)
}
