//! The `/` filter of the Tasks and the wakeup-preemption tables: whitespace-separated
//! terms that must all hold, `!` in front inverts the whole filter. A term is either a
//! typed predicate on a field (`lat.p99>5ms`, `runtime>=100ms`, `warm<90%`, `pid=245`,
//! `migr!=0`; `count>10` for triples), `cpu=N` / `cpu!=N` (tasks only: the task ran /
//! never ran on CPU N within the window, from the timeline store), or a pattern: a
//! regular expression (so a plain word is a substring) matched against the row's names
//! (`task:pid` and every name the task had; a triple's waker, wakee and victim).

use crate::columns::{self, COLUMNS};
use crate::ran_on::RanOn;
use analysis::columns::Unit;
use analysis::TaskRow;
use regex::Regex;
use std::marker::PhantomData;

/// What a filter can select: rows with typed fields and names.
pub(crate) trait Record {
    /// Whether `cpu=N` applies to these rows.
    const HAS_CPUS: bool;
    /// The typed field `name`: an id for [`Record::value`] and the unit its values have.
    fn field(name: &str) -> Option<(usize, Unit)>;
    /// The field names, for the message about an unknown one.
    fn field_names() -> Vec<&'static str>;
    fn value(&self, field: usize) -> Option<f64>;
    /// True when `re` matches one of the row's names.
    fn names_match(&self, re: &Regex) -> bool;
    fn ran_on(&self, cpu: u32, ran_on: &RanOn) -> bool;
}

#[derive(Debug, Clone)]
pub(crate) struct Filter<T> {
    /// As typed (shown in the status line, restored by `--filter`).
    pub text: String,
    invert: bool,
    terms: Vec<Term>,
    of: PhantomData<fn(&T)>,
}

#[derive(Debug, Clone)]
enum Term {
    Pattern(Regex),
    Compare {
        field: usize,
        op: Op,
        value: f64,
    },
    /// `cpu=N` (`ran`) or `cpu!=N`.
    RanOn {
        cpu: u32,
        ran: bool,
    },
}

/// The task fields besides the table's columns (ids past the columns').
const PID: usize = usize::MAX - 1;
const TGID: usize = usize::MAX;

impl Record for TaskRow {
    const HAS_CPUS: bool = true;

    fn field(name: &str) -> Option<(usize, Unit)> {
        match name {
            "pid" => Some((PID, Unit::Count)),
            "tgid" => Some((TGID, Unit::Count)),
            _ => columns::find(name).and_then(|i| Some((i, COLUMNS[i].unit()?))),
        }
    }

    fn field_names() -> Vec<&'static str> {
        let columns = COLUMNS.iter().filter(|c| !c.is_label()).map(|c| c.key);
        ["pid", "tgid", "cpu"].into_iter().chain(columns).collect()
    }

    fn value(&self, field: usize) -> Option<f64> {
        match field {
            PID => Some(self.pid as f64),
            TGID => self.tgid.map(|t| t as f64),
            i => COLUMNS[i].value(self),
        }
    }

    fn names_match(&self, re: &Regex) -> bool {
        re.is_match(&columns::task_label(self)) || self.comms.iter().any(|c| re.is_match(c))
    }

    fn ran_on(&self, cpu: u32, ran_on: &RanOn) -> bool {
        ran_on.ran(cpu, self)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Op {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
            // Values are shown rounded; equality within half a display step would be
            // surprising for counts, so it is exact (counts and pids are integers).
            Op::Eq => a == b,
            Op::Ne => a != b,
        }
    }
}

impl<T: Record> Filter<T> {
    /// Parses the filter line (without the leading `/`).
    pub(crate) fn parse(text: &str) -> Result<Filter<T>, String> {
        let (invert, body) = match text.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let terms = body
            .split_whitespace()
            .map(term::<T>)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Filter {
            text: text.to_string(),
            invert,
            terms,
            of: PhantomData,
        })
    }

    /// The filter line as typed: `None` when blank (no filter).
    pub(crate) fn parse_line(text: &str) -> Result<Option<Filter<T>>, String> {
        if text.trim().is_empty() {
            Ok(None)
        } else {
            Filter::parse(text).map(Some)
        }
    }

    /// The CPUs of the `cpu=` terms: `matches` needs their tasks in its [`RanOn`].
    pub(crate) fn cpus(&self) -> Vec<u32> {
        let mut cpus: Vec<u32> = self
            .terms
            .iter()
            .filter_map(|t| match t {
                Term::RanOn { cpu, .. } => Some(*cpu),
                _ => None,
            })
            .collect();
        cpus.sort_unstable();
        cpus.dedup();
        cpus
    }

    /// `ran_on` holds the tasks of the CPUs in [`Filter::cpus`].
    pub(crate) fn matches(&self, row: &T, ran_on: &RanOn) -> bool {
        let all = self.terms.iter().all(|t| t.matches(row, ran_on));
        all != self.invert
    }
}

impl Term {
    fn matches<T: Record>(&self, row: &T, ran_on: &RanOn) -> bool {
        match self {
            Term::RanOn { cpu, ran } => row.ran_on(*cpu, ran_on) == *ran,
            Term::Pattern(re) => row.names_match(re),
            Term::Compare { field, op, value } => {
                row.value(*field).is_some_and(|a| op.holds(a, *value))
            }
        }
    }
}

const OPERATORS: [(&str, Op); 6] = [
    (">=", Op::Ge),
    ("<=", Op::Le),
    ("!=", Op::Ne),
    (">", Op::Gt),
    ("<", Op::Lt),
    ("=", Op::Eq),
];

fn term<T: Record>(text: &str) -> Result<Term, String> {
    if let Some((name, op, value)) = split_predicate(text) {
        if name == "cpu" && T::HAS_CPUS {
            return ran_on_term(text, op, value);
        }
        let Some((field, unit)) = T::field(name) else {
            return Err(format!(
                "unknown field `{name}` in `{text}`; fields: {}",
                T::field_names().join(", ")
            ));
        };
        let value = quantity(value, unit).map_err(|e| format!("`{text}`: {e}"))?;
        return Ok(Term::Compare { field, op, value });
    }
    Regex::new(text).map(Term::Pattern).map_err(|e| {
        format!(
            "`{text}` is not a valid pattern: {}",
            first_line(&e.to_string())
        )
    })
}

/// `cpu=N` / `cpu!=N`: a CPU has no order that `<` would mean anything on.
fn ran_on_term(text: &str, op: Op, value: &str) -> Result<Term, String> {
    let ran = match op {
        Op::Eq => true,
        Op::Ne => false,
        _ => return Err(format!("`{text}`: cpu takes = or != (cpu=1: ran on CPU 1)")),
    };
    let cpu = value
        .parse::<u32>()
        .map_err(|_| format!("`{text}`: `{value}` is not a CPU number"))?;
    Ok(Term::RanOn { cpu, ran })
}

fn first_line(s: &str) -> String {
    s.lines().last().unwrap_or(s).trim().to_string()
}

/// `name OP value` when `text` starts with a field-like name followed by an operator.
fn split_predicate(text: &str) -> Option<(&str, Op, &str)> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .unwrap_or(text.len());
    let (name, rest) = text.split_at(end);
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    OPERATORS
        .iter()
        .find_map(|&(sym, op)| rest.strip_prefix(sym).map(|v| (name, op, v)))
}

/// A number with an optional unit, in the column's stored unit (ns or fraction). A bare
/// number is in the unit the column is shown in (ms, us, %).
fn quantity(text: &str, unit: Unit) -> Result<f64, String> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let n: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| format!("`{text}` is not a number"))?;
    let duration = matches!(unit, Unit::NsAsMs | Unit::NsAsUs | Unit::Timestamp);
    let scale = match (suffix, unit) {
        ("ns", _) if duration => 1.0,
        ("us", _) if duration => 1e3,
        ("ms", _) if duration => 1e6,
        ("s", _) if duration => 1e9,
        ("", Unit::NsAsMs) => 1e6,
        ("", Unit::NsAsUs) => 1e3,
        ("", Unit::Timestamp) => 1e9,
        ("%" | "", Unit::Percent { .. }) => 1e-2,
        ("", Unit::Count | Unit::Number { .. } | Unit::PerSec) => 1.0,
        _ => return Err(format!("unit `{suffix}` does not fit this field")),
    };
    Ok(n * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(text: &str) -> Result<Term, String> {
        super::term::<TaskRow>(text)
    }

    type Filter = super::Filter<TaskRow>;

    #[test]
    fn predicates_and_errors() {
        assert!(matches!(
            term("lat.p99>5ms").unwrap(),
            Term::Compare { op: Op::Gt, value, .. } if value == 5e6
        ));
        assert!(matches!(term("warm<90%").unwrap(), Term::Compare { value, .. } if value == 0.9));
        assert!(matches!(
            term("pid=245").unwrap(),
            Term::Compare { op: Op::Eq, .. }
        ));
        assert!(matches!(term("mi-work").unwrap(), Term::Pattern(_)));
        assert!(matches!(
            term("cpu=1").unwrap(),
            Term::RanOn { cpu: 1, ran: true }
        ));
        assert!(matches!(
            term("cpu!=3").unwrap(),
            Term::RanOn { cpu: 3, ran: false }
        ));
        assert_eq!(Filter::parse("cpu=3 mi cpu=1").unwrap().cpus(), [1, 3]);
        assert!(Filter::parse("cpu>1").unwrap_err().contains("= or !="));
        assert!(Filter::parse("cpu=x").is_err());
        assert!(Filter::parse("core=1")
            .unwrap_err()
            .contains("unknown field `core`"));
        assert!(Filter::parse("lat.p99>fast").is_err());
        assert!(Filter::parse("runtime>5kg").is_err());
        assert!(Filter::parse("mi(").is_err());
    }
}
