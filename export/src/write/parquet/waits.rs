//! The `waits` table gathered column by column: a batch of waits goes into each column in
//! one loop, as [`super::intervals`] does for a task's intervals.
//!
//! Row by row, each wait was thirteen [`Cell`]s built and each cell matched against its
//! column. The values are those of [`crate::tables::waits::row`] (the same conversions,
//! the same words), and `tests/parquet_rows.rs` holds the Parquet file to the CSV's rows
//! cell for cell.
//!
//! [`Cell`]: crate::cell::Cell

use super::column::Column;
use crate::batch::{self, Named};
use analysis::drain::NameId;
use analysis::records::WaitRecord;

/// Like [`Cell::int`](crate::cell::Cell::int): null when out of range.
fn int(n: u64) -> Option<i64> {
    i64::try_from(n).ok()
}

/// Appends a row per wait of `waits` (`tasks[i]` the id in `names` of wait i's task) to
/// `buffers`, the columns of `waits`; false when a column is not of the kind that table
/// gives it (a bug).
pub(super) fn gather(
    buffers: &mut [Column],
    waits: &[WaitRecord],
    tasks: &[Option<NameId>],
    names: &[Named],
) -> bool {
    let [pid, tgid, comm, kind, start, end, dur, cpu, waker, waker_cpu, prev_cpu, placement, waker_placement] =
        buffers
    else {
        return false;
    };
    let task = |i: usize| tasks[i].map(|t| batch::named(names, t));
    let rows = 0..waits.len();
    pid.ints(waits.iter().map(|w| Some(i64::from(w.pid))))
        && tgid.ints(
            rows.clone()
                .map(|i| task(i).and_then(|t| t.tgid).map(i64::from)),
        )
        && comm.texts(rows.map(|i| task(i).map(|t| &*t.comm)))
        && kind.words(waits.iter().map(|w| Some(w.kind.name())))
        && start.ints(waits.iter().map(|w| int(w.start_ns)))
        && end.ints(waits.iter().map(|w| int(w.end_ns)))
        && dur.ints(waits.iter().map(|w| int(w.end_ns - w.start_ns)))
        && cpu.ints(waits.iter().map(|w| Some(i64::from(w.cpu))))
        && waker.ints(waits.iter().map(|w| w.waker_pid.map(i64::from)))
        && waker_cpu.ints(waits.iter().map(|w| w.waker_cpu.map(i64::from)))
        && prev_cpu.ints(waits.iter().map(|w| w.prev_cpu.map(i64::from)))
        && placement.words(waits.iter().map(|w| w.placement.map(|p| p.name())))
        && waker_placement.words(waits.iter().map(|w| w.waker_placement.map(|p| p.name())))
}

#[cfg(test)]
mod tests {
    use super::super::by_row::{self, ByRow};
    use super::*;
    use analysis::records::{PlacementClass, WaitKind};

    fn columns() -> Vec<Column> {
        by_row::columns(&crate::tables::waits::columns())
    }

    /// Every kind, every kind of null (no task, no tgid, no waker, no previous CPU, no
    /// placement, a time beyond i64) and tasks changing from row to row: the columns
    /// gathered in bulk are the arrays the rows' cells make, column for column.
    #[test]
    fn waits_gathered_by_column_equal_their_rows() {
        let wakeup = WaitRecord {
            pid: 42,
            start_ns: 100,
            end_ns: 130,
            cpu: 1,
            kind: WaitKind::Wakeup,
            waker_pid: Some(0),
            waker_cpu: Some(0),
            prev_cpu: Some(1),
            placement: Some(PlacementClass::SameCpu),
            waker_placement: Some(PlacementClass::SameLlc),
        };
        let waits = [
            wakeup,
            WaitRecord {
                kind: WaitKind::WakeupUntimed,
                waker_pid: None,
                prev_cpu: None,
                placement: None,
                ..wakeup
            },
            WaitRecord {
                pid: 7,
                kind: WaitKind::Preemption,
                waker_pid: None,
                waker_cpu: None,
                prev_cpu: None,
                placement: None,
                waker_placement: None,
                ..wakeup
            },
            WaitRecord {
                start_ns: u64::MAX - 9,
                end_ns: u64::MAX,
                placement: Some(PlacementClass::Unknown),
                ..wakeup
            },
            WaitRecord { pid: 9, ..wakeup },
        ];
        let names = crate::batch::test_tasks();
        let tasks = [Some(0), Some(0), Some(1), Some(0), None];
        let (mut bulk, mut rows) = (columns(), ByRow(columns()));
        for (from, to) in [(0, 3), (3, 5), (0, 5)] {
            assert!(gather(
                &mut bulk,
                &waits[from..to],
                &tasks[from..to],
                &names
            ));
            for (w, t) in waits[from..to].iter().zip(&tasks[from..to]) {
                let task = t.map(|t| batch::named(&names, t));
                crate::tables::waits::row(w, task, &mut rows).unwrap();
            }
        }
        by_row::assert_same(&mut bulk, &mut rows, 10);
    }

    #[test]
    fn columns_of_another_table_are_refused() {
        assert!(crate::tables::waits::are_its_columns(
            &crate::tables::waits::columns()
        ));
        let mut slices: Vec<Column> = crate::tables::slices::columns()
            .iter()
            .map(|c| Column::new(c.kind))
            .collect();
        assert!(!gather(&mut slices, &[], &[], &[]));
    }
}
