//! The `intervals` and `slices` rows in a text format, written straight from a task's run of
//! [`IntervalView`]s: the task's text made once for the run, the text between the values
//! copied from pieces made once per table ([`super::pieces`], which says why).

use super::cursor::{Chunked, Cursor, TextFile};
use super::pieces::{int_or, longest, ns, Syntax};
use super::text;
use crate::batch::Named;
use crate::cell::ColumnDef;
use crate::tables::intervals::{self, STATES};
use crate::tables::{end_index, end_reason, slices, END_REASONS};
use analysis::timeline_store::{IntervalView, ThreadState};

/// The end-reason pieces of column `column`: before it, each word (in the order of
/// [`END_REASONS`]), and the text before the next column (or the row's end).
fn end_pieces(syntax: &Syntax, column: usize) -> Vec<Chunked> {
    END_REASONS
        .iter()
        .map(|&e| syntax.word_piece(column, Some(end_reason(e)), Some(column + 1)))
        .collect()
}

/// A task's pid, tgid and comm, and the text before `then` when given.
fn task_text(syntax: &Syntax, task: &Named, then: Option<usize>) -> Chunked {
    let ints = [Some(i64::from(task.pid)), task.tgid.map(i64::from)];
    syntax.task_text(0, &ints, Some(&task.comm), then)
}

/// Writes a row of each of `views` to `file`: `task`'s text, then what `own` writes, at
/// most `own_bound` bytes.
fn write_rows(
    file: &mut TextFile,
    task: Chunked,
    own_bound: usize,
    views: impl Iterator<Item = IntervalView>,
    own: impl Fn(&mut Cursor, &IntervalView),
) -> std::io::Result<()> {
    let bound = task.len() + own_bound;
    for v in views {
        file.row(bound, |out| {
            task.write(out);
            own(out, &v);
        })?;
    }
    Ok(())
}

/// A format's pieces of the `intervals` rows:
/// task · state · cpu · start_ns · dur_ns · end_reason · waker_pid · latency_timed.
pub(super) struct IntervalPieces {
    syntax: Syntax,
    /// Per state (in the order of [`STATES`]): the text before it, its word, the text
    /// before `cpu`.
    states: Vec<Chunked>,
    before_start: Chunked,
    before_dur: Chunked,
    /// Per end reason: the text after `dur_ns` to before `waker_pid`, with its word.
    ends: Vec<Chunked>,
    before_timed: Chunked,
    end: Chunked,
    null: Chunked,
    /// The most bytes of a row after its task's text.
    own_bound: usize,
}

impl IntervalPieces {
    /// For `columns` when they are the `intervals` table's (else None), in `syntax` (of
    /// those columns).
    pub(super) fn new(columns: &[ColumnDef], syntax: Syntax) -> Option<IntervalPieces> {
        if !intervals::are_its_columns(columns) {
            return None;
        }
        let states: Vec<Chunked> = STATES
            .iter()
            .map(|&s| syntax.word_piece(3, Some(intervals::state(s)), Some(4)))
            .collect();
        let ends = end_pieces(&syntax, 7);
        let (before_start, before_dur, before_timed, end) = (
            syntax.piece(5),
            syntax.piece(6),
            syntax.piece(9),
            syntax.piece(10),
        );
        let own_bound = longest(&states)
            + longest(&ends)
            + before_start.len()
            + before_dur.len()
            + before_timed.len()
            + end.len()
            // cpu, start_ns, dur_ns, waker_pid; latency_timed.
            + 4 * syntax.int_bound()
            + syntax.bool_bound();
        Some(IntervalPieces {
            states,
            before_start,
            before_dur,
            ends,
            before_timed,
            end,
            null: syntax.null(),
            own_bound,
            syntax,
        })
    }

    /// Writes `task`'s run of `views` to `file`, a row a view.
    pub(super) fn write_run(
        &self,
        file: &mut TextFile,
        task: &Named,
        views: &[IntervalView],
    ) -> std::io::Result<()> {
        let text = task_text(&self.syntax, task, None);
        write_rows(
            file,
            text,
            self.own_bound,
            views.iter().copied(),
            |out, v| self.own(out, v),
        )
    }

    /// The row of `v` after its task's text, as `intervals::own_cells` would be written.
    #[inline]
    fn own(&self, out: &mut Cursor, v: &IntervalView) {
        let null = &self.null;
        self.states[v.state as usize].write(out);
        int_or(out, v.cpu.map(i64::from), null);
        self.before_start.write(out);
        int_or(out, ns(v.start_ns), null);
        self.before_dur.write(out);
        int_or(out, ns(v.dur_ns), null);
        self.ends[end_index(v.end)].write(out);
        int_or(out, v.waker_pid.map(i64::from), null);
        self.before_timed.write(out);
        match v.state == ThreadState::RunnableWakeup {
            true => text::bool(out, v.latency_timed),
            false => null.write(out),
        }
        self.end.write(out);
    }
}

/// A format's pieces of the `slices` rows: task · cpu · start_ns · dur_ns · end_reason.
pub(super) struct SlicePieces {
    syntax: Syntax,
    before_start: Chunked,
    before_dur: Chunked,
    /// Per end reason: the text after `dur_ns` to the row's end, with its word.
    ends: Vec<Chunked>,
    null: Chunked,
    /// The most bytes of a row after its task's text (and the text before `cpu`).
    own_bound: usize,
}

impl SlicePieces {
    /// For `columns` when they are the `slices` table's (else None), in `syntax`.
    pub(super) fn new(columns: &[ColumnDef], syntax: Syntax) -> Option<SlicePieces> {
        if !slices::are_its_columns(columns) {
            return None;
        }
        let ends = end_pieces(&syntax, 6);
        let (before_start, before_dur) = (syntax.piece(4), syntax.piece(5));
        let own_bound =
            longest(&ends) + before_start.len() + before_dur.len() + 3 * syntax.int_bound();
        Some(SlicePieces {
            before_start,
            before_dur,
            ends,
            null: syntax.null(),
            own_bound,
            syntax,
        })
    }

    /// Writes the slices of `task`'s run of `views` (its running ones) to `file`.
    pub(super) fn write_run(
        &self,
        file: &mut TextFile,
        task: &Named,
        views: &[IntervalView],
    ) -> std::io::Result<()> {
        let text = task_text(&self.syntax, task, Some(3));
        let null = &self.null;
        let running = views.iter().filter(|v| v.state == ThreadState::Running);
        write_rows(file, text, self.own_bound, running.copied(), |out, v| {
            int_or(out, v.cpu.map(i64::from), null);
            self.before_start.write(out);
            int_or(out, ns(v.start_ns), null);
            self.before_dur.write(out);
            int_or(out, ns(v.dur_ns), null);
            self.ends[end_index(v.end)].write(out);
        })
    }
}
