//! One table's rows as typed columns: the batch every format writes.
//!
//! A table's code fills it a row of cells at a time ([`ColumnBatch::row`], through
//! [`RowSink`]), as its column definitions ([`ColumnDef`]) say; each format then reads the
//! same columns: CSV and NDJSON row by row from the columns ([`crate::write::text_table`]),
//! Parquet column by column (a polars `Series` each). So a column is defined once (its `ColumnDef`) and filled
//! once (its cell in the table's row), whatever the format, and the formats cannot disagree.

use crate::cell::{Cell, ColumnDef, Kind, RowSink};

/// One column's values; a null holds the type's default, and [`Column::valid`] says which.
#[derive(Debug)]
pub(crate) enum Values {
    Int(Vec<i64>),
    Real(Vec<f64>),
    Bool(Vec<bool>),
    /// Every value's text in one buffer, each ending where `ends` says: no allocation per
    /// cell.
    Text {
        bytes: String,
        ends: Vec<usize>,
    },
}

/// A column of a batch.
#[derive(Debug)]
pub(crate) struct Column {
    pub(crate) values: Values,
    /// Whether each row has a value (false: null).
    pub(crate) valid: Vec<bool>,
    /// Rows that are null.
    pub(crate) nulls: usize,
}

impl Column {
    fn new(kind: Kind) -> Column {
        let values = match kind {
            Kind::Int => Values::Int(Vec::new()),
            Kind::Real => Values::Real(Vec::new()),
            Kind::Bool => Values::Bool(Vec::new()),
            Kind::Text => Values::Text {
                bytes: String::new(),
                ends: Vec::new(),
            },
        };
        Column {
            values,
            valid: Vec::new(),
            nulls: 0,
        }
    }

    /// Appends `cell`, which must fit the column's kind (checked by [`ColumnBatch::row`]).
    #[inline]
    fn push(&mut self, cell: &Cell) {
        let valid = !matches!(cell, Cell::Null);
        self.valid.push(valid);
        self.nulls += usize::from(!valid);
        match (&mut self.values, cell) {
            (Values::Int(v), Cell::Int(n)) => v.push(*n),
            (Values::Int(v), _) => v.push(0),
            (Values::Real(v), Cell::Real(x)) => v.push(*x),
            (Values::Real(v), _) => v.push(0.0),
            (Values::Bool(v), Cell::Bool(b)) => v.push(*b),
            (Values::Bool(v), _) => v.push(false),
            (Values::Text { bytes, ends }, cell) => {
                if let Some(s) = cell.as_text() {
                    bytes.push_str(s);
                }
                ends.push(bytes.len());
            }
        }
    }

    /// The text of row `i` of a text column ("" for a null).
    #[inline]
    pub(crate) fn text(&self, i: usize) -> &str {
        match &self.values {
            Values::Text { bytes, ends } => {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                &bytes[start..ends[i]]
            }
            _ => "",
        }
    }

    /// Every text of a text column, end to end (None for other kinds): a writer scans it
    /// once for bytes that need quoting or escaping rather than each text on its own.
    pub(crate) fn text_bytes(&self) -> Option<&[u8]> {
        match &self.values {
            Values::Text { bytes, .. } => Some(bytes.as_bytes()),
            _ => None,
        }
    }

    /// The length in bytes of row `i`'s text (0 for a null, or another kind).
    #[inline]
    pub(crate) fn text_len(&self, i: usize) -> usize {
        match &self.values {
            Values::Text { ends, .. } => ends[i] - if i == 0 { 0 } else { ends[i - 1] },
            _ => 0,
        }
    }

    /// Row `i` as a cell (text borrowed from the column).
    #[cfg(test)]
    pub(crate) fn cell(&self, i: usize) -> Cell<'_> {
        if !self.valid[i] {
            return Cell::Null;
        }
        match &self.values {
            Values::Int(v) => Cell::Int(v[i]),
            Values::Real(v) => Cell::Real(v[i]),
            Values::Bool(v) => Cell::Bool(v[i]),
            Values::Text { .. } => Cell::Text(std::borrow::Cow::Borrowed(self.text(i))),
        }
    }

    fn clear(&mut self) {
        self.valid.clear();
        self.nulls = 0;
        match &mut self.values {
            Values::Int(v) => v.clear(),
            Values::Real(v) => v.clear(),
            Values::Bool(v) => v.clear(),
            Values::Text { bytes, ends } => {
                bytes.clear();
                ends.clear();
            }
        }
    }
}

/// Rows of one table, column by column, in the order of its column definitions.
#[derive(Debug)]
pub(crate) struct ColumnBatch {
    pub(crate) defs: Vec<ColumnDef>,
    pub(crate) columns: Vec<Column>,
    rows: usize,
}

impl ColumnBatch {
    pub(crate) fn new(defs: &[ColumnDef]) -> ColumnBatch {
        ColumnBatch {
            defs: defs.to_vec(),
            columns: defs.iter().map(|d| Column::new(d.kind)).collect(),
            rows: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.rows
    }

    /// Empties the batch, keeping its buffers for the next rows.
    pub(crate) fn clear(&mut self) {
        self.columns.iter_mut().for_each(Column::clear);
        self.rows = 0;
    }

    /// Row `i`'s cells into `cells` (emptied first).
    #[cfg(test)]
    pub(crate) fn cells<'a>(&'a self, i: usize, cells: &mut Vec<Cell<'a>>) {
        cells.clear();
        cells.extend(self.columns.iter().map(|c| c.cell(i)));
    }
}

impl RowSink for ColumnBatch {
    /// Appends a row; an error, and nothing appended, when the cells do not fit the columns
    /// (a table's code and its column list disagreeing is a bug that must not write a file
    /// whose columns are shifted).
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        check_row(&self.defs, cells)?;
        for (column, cell) in self.columns.iter_mut().zip(cells) {
            column.push(cell);
        }
        self.rows += 1;
        Ok(())
    }
}

/// Checks a row against the columns: the count, and each cell's kind against its column's.
#[inline]
fn check_row(columns: &[ColumnDef], cells: &[Cell]) -> std::io::Result<()> {
    if cells.len() != columns.len() {
        return Err(std::io::Error::other(format!(
            "internal error: a row of {} cells for {} columns",
            cells.len(),
            columns.len()
        )));
    }
    if let Some((c, cell)) = columns
        .iter()
        .zip(cells)
        .find(|(c, cell)| !cell.fits(c.kind))
    {
        return Err(std::io::Error::other(format!(
            "internal error: column {} ({}) given {cell:?}",
            c.name,
            c.kind.name()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs() -> Vec<ColumnDef> {
        vec![
            ColumnDef::new("n", Kind::Int, "count", ""),
            ColumnDef::new("x", Kind::Real, "number", ""),
            ColumnDef::new("s", Kind::Text, "", ""),
            ColumnDef::new("b", Kind::Bool, "", ""),
        ]
    }

    #[test]
    fn rows_read_back_as_they_went_in_nulls_and_empty_text_apart() {
        let mut batch = ColumnBatch::new(&defs());
        let rows = [
            vec![
                Cell::Int(-3),
                Cell::Real(0.5),
                Cell::text("a,b"),
                Cell::Bool(true),
            ],
            vec![Cell::Null, Cell::Null, Cell::Null, Cell::Null],
            vec![
                Cell::Int(7),
                Cell::Real(f64::NAN),
                Cell::text(""),
                Cell::Bool(false),
            ],
            vec![
                Cell::Int(i64::MIN),
                Cell::Real(-0.0),
                Cell::word("running"),
                Cell::Null,
            ],
        ];
        for row in &rows {
            batch.row(row).unwrap();
        }
        assert_eq!(batch.len(), 4);
        assert_eq!(
            batch.columns.iter().map(|c| c.nulls).collect::<Vec<_>>(),
            [1, 1, 1, 2]
        );
        let mut cells = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            batch.cells(i, &mut cells);
            for (got, want) in cells.iter().zip(row) {
                match (got, want) {
                    (Cell::Real(a), Cell::Real(b)) => assert_eq!(a.to_bits(), b.to_bits()),
                    _ => assert_eq!(got, want, "row {i}"),
                }
            }
        }
        // Empty text is a value, not a null.
        assert!(matches!(batch.columns[2].cell(2), Cell::Text(ref s) if s.is_empty()));
        batch.clear();
        assert_eq!(batch.len(), 0);
        batch.row(&rows[0]).unwrap();
        assert_eq!(batch.columns[2].text(0), "a,b");
    }

    #[test]
    fn a_row_that_does_not_fit_is_refused_whole() {
        let mut batch = ColumnBatch::new(&defs());
        assert!(batch.row(&[Cell::Int(1)]).is_err());
        let wrong = [Cell::text("1"), Cell::Null, Cell::Null, Cell::Null];
        let e = batch.row(&wrong).unwrap_err().to_string();
        assert!(e.contains("column n (int64)"), "{e}");
        assert_eq!(batch.len(), 0);
        assert!(batch.columns.iter().all(|c| c.valid.is_empty()));
    }
}
