//! For the tests of the bulk gathers ([`super::intervals`], [`super::waits`]): columns
//! filled row by row, cell by cell, as the Parquet writer's `row` fills them.

use super::column::Column;
use crate::cell::{Cell, ColumnDef, RowSink};

/// Gathers rows cell by cell.
pub(super) struct ByRow(pub(super) Vec<Column>);

impl RowSink for ByRow {
    fn row(&mut self, cells: &[Cell]) -> std::io::Result<()> {
        assert_eq!(cells.len(), self.0.len());
        for (column, cell) in self.0.iter_mut().zip(cells) {
            assert!(column.push(cell), "{cell:?} fits its column");
        }
        Ok(())
    }
}

/// Empty columns of `defs`' kinds.
pub(super) fn columns(defs: &[ColumnDef]) -> Vec<Column> {
    defs.iter().map(|c| Column::new(c.kind)).collect()
}

/// Each column gathered in bulk holds the rows (`rows` of them) its row-by-row twin holds.
pub(super) fn assert_same(bulk: &mut [Column], by_row: &mut ByRow, rows: usize) {
    for (i, (b, r)) in bulk.iter_mut().zip(&mut by_row.0).enumerate() {
        let (b, r) = (b.take(), r.take());
        assert_eq!(b.len(), rows, "column {i}");
        assert!(*b == *r, "column {i}: {b:?} != {r:?}");
    }
}
