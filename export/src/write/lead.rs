//! The task a row starts with, its text kept for the next row: in the interval tables
//! (`slices`, `intervals`) a task's rows come one after the other, each starting with the
//! same pid, tgid and comm, which were formatted again for every row (two integers and
//! the scan of the name for what needs quoting). The text writers copy the last row's
//! text of them instead when the three cells are equal — compared by value, so the bytes
//! are the same as if formatted again (the writers' tests hold them to that). Measured
//! with callgrind on a VM capture: 7 % fewer instructions per `intervals` row, 9 % per
//! `slices` row.
//!
//! Where rows of one task seldom follow each other (`waits`, in time order) the comparison
//! and the copy kept would cost more than they save: a table whose first [`TRIAL_ROWS`]
//! rows do not repeat their task at least half of the time is written without it.

use super::cursor::{Chunked, Cursor};
use crate::cell::{Cell, ColumnDef, Kind};

/// The leading columns a [`Lead`] keeps: those of every per-task table.
const TASK: [(&str, Kind); 3] = [
    ("pid", Kind::Int),
    ("tgid", Kind::Int),
    ("comm", Kind::Text),
];

/// Rows after which a table keeps the task text only if it was reused for half of them.
const TRIAL_ROWS: u32 = 512;

/// The values of the last row's leading cells and the text they were written as.
pub(super) struct Lead {
    /// Whether the table starts with the task columns and repeats them (else rows are
    /// written as they are).
    on: bool,
    /// Rows and reuses counted while on trial (the first [`TRIAL_ROWS`] rows).
    rows: u32,
    reused: u32,
    /// Whether `pid`, `tgid`, `comm` and `text` are a row's (none before the first).
    known: bool,
    pid: i64,
    tgid: Option<i64>,
    /// None: the comm cell was null.
    comm: Option<Vec<u8>>,
    text: Chunked,
}

impl Lead {
    pub(super) fn new(columns: &[ColumnDef]) -> Lead {
        let on = columns.len() > TASK.len()
            && TASK
                .iter()
                .zip(columns)
                .all(|(&(name, kind), c)| c.name == name && c.kind == kind);
        Lead {
            on,
            rows: 0,
            reused: 0,
            known: false,
            pid: 0,
            tgid: None,
            comm: None,
            text: Chunked::new(b""),
        }
    }

    /// How many leading cells [`Lead::write`] writes.
    pub(super) fn cells(&self) -> usize {
        if self.on {
            TASK.len()
        } else {
            0
        }
    }

    /// Whether `cells` start with the cells of the text kept.
    #[inline]
    fn same(&self, cells: &[Cell]) -> bool {
        self.known
            && key(cells).is_some_and(|(pid, tgid, comm)| {
                pid == self.pid && tgid == self.tgid && comm == self.comm.as_deref()
            })
    }

    /// Writes the leading cells of `cells` to `out`: the text kept when they are the last
    /// row's, else as `write` writes them (which is then kept).
    #[inline]
    pub(super) fn write(
        &mut self,
        out: &mut Cursor,
        cells: &[Cell],
        write: impl FnOnce(&mut Cursor, &[Cell]),
    ) {
        if !self.on {
            return;
        }
        let on_trial = self.rows < TRIAL_ROWS;
        if on_trial {
            self.rows += 1;
            if self.rows == TRIAL_ROWS && self.reused < TRIAL_ROWS / 2 {
                // This row is written by the caller as the rest are: in full.
                self.on = false;
                return;
            }
        }
        if self.same(cells) {
            self.reused += u32::from(on_trial);
            self.text.write(out);
            return;
        }
        let start = out.position();
        write(out, &cells[..TASK.len()]);
        self.text.set(out.since(start));
        self.known = false;
        if let Some((pid, tgid, comm)) = key(cells) {
            self.pid = pid;
            self.tgid = tgid;
            self.comm = comm.map(|s| {
                let mut kept = self.comm.take().unwrap_or_default();
                kept.clear();
                kept.extend_from_slice(s);
                kept
            });
            self.known = true;
        }
    }
}

/// The pid, tgid and comm values of a row's task cells (None: not cells of those columns,
/// which only a bug gives, and which are then written as they are).
#[inline]
fn key<'c>(cells: &'c [Cell]) -> Option<(i64, Option<i64>, Option<&'c [u8]>)> {
    let pid = match cells[0] {
        Cell::Int(n) => n,
        _ => return None,
    };
    let tgid = match cells[1] {
        Cell::Int(n) => Some(n),
        Cell::Null => None,
        _ => return None,
    };
    let comm = match &cells[2] {
        Cell::Text(s) => Some(s.as_bytes()),
        Cell::Null => None,
        _ => return None,
    };
    Some((pid, tgid, comm))
}
