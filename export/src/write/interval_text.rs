//! An `intervals` row in a text format, written straight from its [`IntervalView`]: the
//! task's part made once for the task's run, then the view's values with the text between
//! them copied from pieces each format makes once per table.
//!
//! Why not as [`Cell`]s, as every other row: the table is most of an export's rows (21 M of
//! the 32 M on the large trace of `bench/`), and a row as cells was seven cells made,
//! matched one by one, their bound summed from the text cells and then dropped; in the
//! profile of a CSV export the field loop was a third of the writer thread's time. What
//! lies between the values is the same in every row but for two words, the state and the
//! end reason, which have few values: so the word and the separators or keys around it are
//! one piece, picked by the value, and a row has one bound, made with the pieces.
//!
//! The bytes are those of the rows written cell by cell (`write/tests.rs` holds every
//! state, every end reason and every kind of null to that).

use super::cursor::{Chunked, Cursor, RowBound, TextFile};
use super::text;
use crate::batch::Named;
use crate::cell::{Cell, ColumnDef, Kind};
use crate::tables::intervals::{self, STATES};
use crate::tables::{end_index, end_reason, END_REASONS};
use analysis::timeline_store::IntervalView;

/// How a format writes an `intervals` row after its task's part, for [`IntervalPieces::new`].
pub(super) struct Syntax<'a> {
    /// The text before each of the seven own values (`state` to `latency_timed`).
    pub(super) before: [&'a [u8]; 7],
    /// The text after the last value (the line's end).
    pub(super) end: &'a [u8],
    /// A word value (`state`, `end_reason`) as written.
    pub(super) word: fn(&str) -> Vec<u8>,
    /// Null as written.
    pub(super) null: &'a [u8],
}

/// A format's pieces of the `intervals` rows.
pub(super) struct IntervalPieces {
    /// The bound of the task's part, without the text the format puts around it.
    task: RowBound,
    /// Per state (in the order of [`STATES`]): its word and what comes before it and
    /// after it until the `cpu` value.
    states: Vec<Chunked>,
    before_start: Chunked,
    before_dur: Chunked,
    /// Per end reason (in the order of [`END_REASONS`]): what comes after `dur`, the word,
    /// and what comes before `waker_pid`.
    ends: Vec<Chunked>,
    before_timed: Chunked,
    end: Chunked,
    null: Chunked,
    /// The most bytes of a row after its task's part.
    own_bound: usize,
}

impl IntervalPieces {
    /// For `columns` when they are the `intervals` table's (else None): `task_frame` is
    /// the bytes of the task's part but its values, `most` as for [`RowBound::new`].
    pub(super) fn new(
        columns: &[ColumnDef],
        task_frame: usize,
        most: impl Fn(Kind) -> usize,
        syntax: &Syntax,
    ) -> Option<IntervalPieces> {
        if !intervals::are_its_columns(columns) {
            return None;
        }
        let [before_state, before_cpu, before_start, before_dur, before_end, before_waker, before_timed] =
            syntax.before;
        let joined = |word: &str, before: &[u8], after: &[u8]| {
            Chunked::new(&[before, &(syntax.word)(word), after].concat())
        };
        let states: Vec<Chunked> = STATES
            .iter()
            .map(|&s| joined(intervals::state(s), before_state, before_cpu))
            .collect();
        let ends: Vec<Chunked> = END_REASONS
            .iter()
            .map(|&e| joined(end_reason(e), before_end, before_waker))
            .collect();
        let longest = |pieces: &[Chunked]| pieces.iter().map(Chunked::len).max().unwrap_or(0);
        let value = text::INT_BOUND.max(syntax.null.len());
        let own_bound = longest(&states)
            + longest(&ends)
            + before_start.len()
            + before_dur.len()
            + before_timed.len()
            + syntax.end.len()
            // cpu, start_ns, dur_ns, waker_pid; latency_timed.
            + 4 * value
            + text::BOOL_BOUND.max(syntax.null.len());
        Some(IntervalPieces {
            task: RowBound::new(&columns[..3], task_frame, most),
            states,
            before_start: Chunked::new(before_start),
            before_dur: Chunked::new(before_dur),
            ends,
            before_timed: Chunked::new(before_timed),
            end: Chunked::new(syntax.end),
            null: Chunked::new(syntax.null),
            own_bound,
        })
    }

    /// Writes `task`'s run of `views` to `file`: its task's part as `task_text` writes its
    /// three cells (`text` giving a text cell's bound), made once, then each view's row.
    pub(super) fn write_run(
        &self,
        file: &mut TextFile,
        task: &Named,
        views: &[IntervalView],
        text: impl Fn(&Cell) -> usize,
        task_text: impl FnOnce(&mut Cursor, &[Cell]),
    ) -> std::io::Result<()> {
        let task_cells = crate::tables::task_cells(task);
        let prefix = Chunked::formatted(self.task.of(&task_cells, &text), |out| {
            task_text(out, &task_cells)
        });
        let bound = prefix.len() + self.own_bound;
        for v in views {
            file.row(bound, |out| {
                prefix.write(out);
                self.own(out, v);
            })?;
        }
        Ok(())
    }

    /// The row of `v` after its task's part, as `own_cells` would be written.
    #[inline]
    fn own(&self, out: &mut Cursor, v: &IntervalView) {
        // As a Cell would take them: a value beyond i64 is null.
        let int = |out: &mut Cursor, n: Option<i64>| match n {
            Some(n) => text::int(out, n),
            None => self.null.write(out),
        };
        self.states[v.state as usize].write(out);
        int(out, v.cpu.map(i64::from));
        self.before_start.write(out);
        int(out, i64::try_from(v.start_ns).ok());
        self.before_dur.write(out);
        int(out, i64::try_from(v.dur_ns).ok());
        self.ends[end_index(v.end)].write(out);
        int(out, v.waker_pid.map(i64::from));
        self.before_timed.write(out);
        match v.state == analysis::timeline_store::ThreadState::RunnableWakeup {
            true => text::bool(out, v.latency_timed),
            false => self.null.write(out),
        }
        self.end.write(out);
    }
}
