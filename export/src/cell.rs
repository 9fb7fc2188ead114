//! A table's columns and cells: the one typed model every table fills its
//! [`crate::columns::ColumnBatch`] with, which every writer (CSV, NDJSON, Parquet) writes.
//! A row is a slice of cells handed to a [`RowSink`]; its text cells borrow (a task's
//! name, a state's name), so building a row allocates nothing.

use std::borrow::Cow;

/// The stored type of a column. Integers are i64: trace timestamps in ns fit (until the
/// year 2262) and every reader has the type, where u64 is missing from CSV readers' guesses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Real,
    Text,
    Bool,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Int => "int64",
            Kind::Real => "float64",
            Kind::Text => "string",
            Kind::Bool => "bool",
        }
    }
}

/// One column: its name (units in it: `_ns`), type, unit of the stored value and meaning.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub kind: Kind,
    /// `ns`, `count`, `fraction`, `1/s`, `number`, `cpu`, `pid`, or "" for text.
    pub(crate) unit: &'static str,
    pub(crate) doc: String,
}

impl ColumnDef {
    pub(crate) fn new(name: &str, kind: Kind, unit: &'static str, doc: &str) -> ColumnDef {
        ColumnDef {
            name: name.to_string(),
            kind,
            unit,
            doc: doc.to_string(),
        }
    }
}

/// One value. `Null`: not defined for the row (no samples, no waker, no topology).
/// `Word`: text of a column's fixed vocabulary (a state, an end reason, a kind), stored
/// as `Text`: a `'static` name, and only ASCII letters, digits and `_` ([`Cell::word`]), which
/// no format quotes or escapes. A word equals the text it spells.
#[derive(Debug, Clone)]
pub enum Cell<'a> {
    Int(i64),
    Real(f64),
    Text(Cow<'a, str>),
    Word(&'static str),
    Bool(bool),
    Null,
}

impl PartialEq for Cell<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Cell::Int(a), Cell::Int(b)) => a == b,
            (Cell::Real(a), Cell::Real(b)) => a == b,
            (Cell::Bool(a), Cell::Bool(b)) => a == b,
            (Cell::Null, Cell::Null) => true,
            (a, b) => a.as_text().is_some() && a.as_text() == b.as_text(),
        }
    }
}

/// Where rows go (a table's [`crate::columns::ColumnBatch`], or a writer that gathers
/// them into one). An error stops the table.
pub(crate) trait RowSink {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()>;
}

impl<'a> Cell<'a> {
    pub(crate) fn int(n: impl TryInto<i64>) -> Cell<'a> {
        n.try_into().map_or(Cell::Null, Cell::Int)
    }

    pub(crate) fn opt_int<T: TryInto<i64>>(n: Option<T>) -> Cell<'a> {
        n.map_or(Cell::Null, Cell::int)
    }

    pub(crate) fn text(s: impl Into<Cow<'a, str>>) -> Cell<'a> {
        Cell::Text(s.into())
    }

    pub(crate) fn opt_text(s: Option<impl Into<Cow<'a, str>>>) -> Cell<'a> {
        s.map_or(Cell::Null, Cell::text)
    }

    /// A word of a column's vocabulary: only ASCII letters, digits and `_`, so that no
    /// format quotes or escapes it (checked in debug builds, which the tests are).
    pub(crate) fn word(w: &'static str) -> Cell<'a> {
        debug_assert!(
            w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
            "{w:?} is not a word"
        );
        Cell::Word(w)
    }

    pub(crate) fn opt_word(w: Option<&'static str>) -> Cell<'a> {
        w.map_or(Cell::Null, Cell::word)
    }

    /// The text of a `Text` or `Word` cell.
    pub(crate) fn as_text(&self) -> Option<&str> {
        match self {
            Cell::Text(s) => Some(s),
            Cell::Word(w) => Some(w),
            _ => None,
        }
    }

    pub(crate) fn real(x: f64) -> Cell<'a> {
        Cell::Real(x)
    }

    pub(crate) fn opt_real(x: Option<f64>) -> Cell<'a> {
        x.map_or(Cell::Null, Cell::Real)
    }

    /// The cell with its text copied, to outlive what it borrowed (the `runs` row).
    pub(crate) fn into_owned(self) -> Cell<'static> {
        match self {
            Cell::Int(n) => Cell::Int(n),
            Cell::Real(x) => Cell::Real(x),
            Cell::Text(s) => Cell::Text(Cow::Owned(s.into_owned())),
            Cell::Word(w) => Cell::Word(w),
            Cell::Bool(b) => Cell::Bool(b),
            Cell::Null => Cell::Null,
        }
    }

    /// Whether the cell can be stored in a column of `kind` (Null fits any).
    pub(crate) fn fits(&self, kind: Kind) -> bool {
        matches!(
            (self, kind),
            (Cell::Null, _)
                | (Cell::Int(_), Kind::Int)
                | (Cell::Real(_), Kind::Real)
                | (Cell::Text(_) | Cell::Word(_), Kind::Text)
                | (Cell::Bool(_), Kind::Bool)
        )
    }
}
