//! The `waits` rows in a text format, written straight from the [`WaitRecord`]s: the text
//! between the values copied from pieces made once per table ([`super::pieces`], which says
//! why), a task's tgid and comm from a text made the first time its name is met (the rows
//! are in time order, so tasks take turns: the text is kept per name, not per run).

use super::cursor::{Chunked, TextFile};
use super::pieces::{int_or, longest, ns, Syntax};
use crate::batch::Named;
use crate::cell::ColumnDef;
use crate::tables::waits::{self, KINDS, PLACEMENTS};
use analysis::drain::NameId;
use analysis::records::{PlacementClass, WaitRecord};

/// A format's pieces of the `waits` rows: pid · task (tgid, comm) · kind · start_ns ·
/// end_ns · dur_ns · cpu · waker_pid · waker_cpu · prev_cpu · placement · waker_placement.
pub(super) struct WaitPieces {
    syntax: Syntax,
    before_pid: Chunked,
    /// Per name id: the text before `tgid` to the end of `comm`, made when first met.
    tasks: Vec<Option<Chunked>>,
    /// The same for a wait whose task has no name (both null).
    nameless: Chunked,
    /// Per kind (in the order of [`KINDS`]): the text before it, its word, the text before
    /// `start_ns`.
    kinds: Vec<Chunked>,
    /// The text before `end_ns`, `dur_ns`, `cpu`, `waker_pid`, `waker_cpu`, `prev_cpu`.
    before: [Chunked; 6],
    /// Per class (in the order of [`PLACEMENTS`], then null): the text before `placement`
    /// and its word; the text before `waker_placement`, its word and the row's end.
    placements: Vec<Chunked>,
    waker_placements: Vec<Chunked>,
    null: Chunked,
    /// The most bytes of a row but its task's text.
    bound: usize,
}

impl WaitPieces {
    /// For `columns` when they are the `waits` table's (else None), in `syntax`.
    pub(super) fn new(columns: &[ColumnDef], syntax: Syntax) -> Option<WaitPieces> {
        if !waits::are_its_columns(columns) {
            return None;
        }
        let kinds: Vec<Chunked> = KINDS
            .iter()
            .map(|k| syntax.word_piece(3, Some(k.name()), Some(4)))
            .collect();
        // The placement's piece ends with its word; the waker placement's, with the row.
        let classes = |column, then| -> Vec<Chunked> {
            let words = PLACEMENTS.iter().map(|c| Some(c.name()));
            words
                .chain([None])
                .map(|w| syntax.word_piece(column, w, then))
                .collect()
        };
        let (placements, waker_placements) = (classes(11, None), classes(12, Some(13)));
        let before: [Chunked; 6] = std::array::from_fn(|i| syntax.piece(5 + i));
        let before_pid = syntax.piece(0);
        let bound = before_pid.len()
            + longest(&kinds)
            + before.iter().map(Chunked::len).sum::<usize>()
            + longest(&placements)
            + longest(&waker_placements)
            // pid, start_ns, end_ns, dur_ns, cpu, waker_pid, waker_cpu, prev_cpu.
            + 8 * syntax.int_bound();
        Some(WaitPieces {
            before_pid,
            tasks: Vec::new(),
            nameless: syntax.task_text(1, &[None], None, None),
            kinds,
            before,
            placements,
            waker_placements,
            null: syntax.null(),
            bound,
            syntax,
        })
    }

    /// Writes a row of each of `waits` to `file`, its task `tasks[i]` (an id of `names`).
    pub(super) fn write(
        &mut self,
        file: &mut TextFile,
        waits: &[WaitRecord],
        tasks: &[Option<NameId>],
        names: &[Named],
    ) -> std::io::Result<()> {
        for (w, &task) in waits.iter().zip(tasks) {
            let task_text = match task {
                Some(id) => {
                    let id = id as usize;
                    if self.tasks.len() <= id {
                        self.tasks.resize_with(id + 1, || None);
                    }
                    let syntax = &self.syntax;
                    &*self.tasks[id].get_or_insert_with(|| {
                        let t = crate::batch::named(names, id as NameId);
                        syntax.task_text(1, &[t.tgid.map(i64::from)], Some(&t.comm), None)
                    })
                }
                None => &self.nameless,
            };
            let (null, before) = (&self.null, &self.before);
            let class = |c: Option<PlacementClass>| c.map_or(PLACEMENTS.len(), |c| c as usize);
            file.row(self.bound + task_text.len(), |out| {
                self.before_pid.write(out);
                int_or(out, Some(i64::from(w.pid)), null);
                task_text.write(out);
                self.kinds[w.kind as usize].write(out);
                int_or(out, ns(w.start_ns), null);
                before[0].write(out);
                int_or(out, ns(w.end_ns), null);
                before[1].write(out);
                int_or(out, ns(w.end_ns - w.start_ns), null);
                before[2].write(out);
                int_or(out, Some(i64::from(w.cpu)), null);
                before[3].write(out);
                int_or(out, w.waker_pid.map(i64::from), null);
                before[4].write(out);
                int_or(out, w.waker_cpu.map(i64::from), null);
                before[5].write(out);
                int_or(out, w.prev_cpu.map(i64::from), null);
                self.placements[class(w.placement)].write(out);
                self.waker_placements[class(w.waker_placement)].write(out);
            })?;
        }
        Ok(())
    }
}
