//! Why a task waited, in the TUI: the occupant selected in the task detail's "why it
//! waited" list (`o` steps through it), `O` to the timeline at the piece of the task's
//! longest wait spent behind that occupant, and the explanation of a role across runs that
//! Enter on a Compare task row shows (the sentences of `compare --explain`).

use super::App;
use crate::action::View;
use analysis::compare::explain::model::ExplainedSubject;
use analysis::{PieceKind, TaskRow};

/// The occupants the detail lists, one by one (the "others" row has no task to go to).
pub(crate) fn occupants(t: &TaskRow) -> Vec<(i32, &str, u64)> {
    t.wait_causes
        .behind
        .iter()
        .filter_map(|b| Some((b.pid?, b.comm.as_str(), b.ns)))
        .collect()
}

impl App {
    /// The selected occupant of the current task: (pid, comm).
    pub(crate) fn selected_occupant(&self) -> Option<(i32, String)> {
        let t = self.current_task()?;
        let list = occupants(t);
        let (pid, comm, _) = list.get(self.why_occupant % list.len().max(1))?;
        Some((*pid, comm.to_string()))
    }

    /// `o`: the next occupant of the list (round).
    pub(super) fn next_occupant(&mut self) {
        let n = self.current_task().map_or(0, |t| occupants(t).len());
        if n == 0 {
            self.note("this task never waited behind another task".into());
            return;
        }
        self.why_occupant = (self.why_occupant + 1) % n;
    }

    /// `O`: the timeline at the longest wait's first piece behind the selected occupant,
    /// the task's and the occupant's lanes shown. The reports keep only the longest wait
    /// piece by piece; an occupant not in it is said so, and the whole wait is shown.
    pub(super) fn jump_to_occupant(&mut self) {
        let Some((pid, comm)) = self.selected_occupant() else {
            self.note("no occupant to go to (this task never waited behind another)".into());
            return;
        };
        let Some(t) = self.current_task() else {
            return;
        };
        let Some(longest) = t.wait_causes.longest.clone() else {
            return;
        };
        let waiter = t.members.is_empty().then_some(t.pid);
        let piece = longest
            .segments
            .iter()
            .find(|s| s.kind == PieceKind::Behind && s.pid == Some(pid))
            .map(|s| (s.start_ns, s.end_ns));
        let len = longest.end_ns.saturating_sub(longest.start_ns);
        self.timeline = self.timeline.around_wait(longest.end_ns, len);
        if let Some((start, _)) = piece {
            // The cursor on the piece: where the occupant held the CPU.
            self.timeline.cursor = start.clamp(self.timeline.start, self.timeline.end - 1);
        }
        self.tasks.marks.extend(waiter);
        self.tasks.marks.insert(pid);
        self.show(View::Timeline);
        if piece.is_none() {
            self.note(format!(
                "{comm} ({pid}) is not in the longest wait (only its pieces are kept): the whole wait shown"
            ));
        }
    }

    /// The explanation of role `name` across the runs: one sentence per run against the
    /// baseline, then each run's wait by kind.
    pub(super) fn why_lines(&self, name: &str) -> Vec<String> {
        let Some(c) = self.compare.comparison() else {
            return Vec::new();
        };
        let Some(s) = c
            .explain
            .as_ref()
            .and_then(|e| e.subjects.iter().find(|s| s.subject == name && !s.workload))
        else {
            return Vec::new();
        };
        let mut lines = vec!["why it waited (compare --explain):".to_string()];
        for ch in &s.changes {
            lines.extend(wrapped(&render::compare::why::sentence(c, s, ch), WIDTH));
        }
        lines.extend(kinds(s));
        lines
    }
}

/// Popup lines are cut at its width: a sentence goes on indented.
const WIDTH: usize = 110;

/// `text` in lines of at most `width` columns, the first indented by two, the rest by four.
fn wrapped(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = vec!["  ".to_string()];
    for word in text.split(' ') {
        let line = out.last_mut().expect("one line");
        if line.trim().is_empty() {
            line.push_str(word);
        } else if line.len() + 1 + word.len() <= width {
            line.push(' ');
            line.push_str(word);
        } else {
            out.push(format!("    {word}"));
        }
    }
    out
}

/// `  cfs  2234.403 ms: behind 2233.616  idle 0.676  enqueue 0.111  unknown 0.000`.
fn kinds(s: &ExplainedSubject) -> Vec<String> {
    let ms = |ns: Option<i64>| ns.map_or("-".to_string(), |v| format!("{:.3}", v as f64 / 1e6));
    s.runs
        .iter()
        .map(|r| {
            format!(
                "  {:<12} {:>10} ms: behind {}  idle {}  enqueue {}  unknown {}",
                r.label,
                ms(r.wait_ns),
                ms(r.behind_ns),
                ms(r.idle_ns),
                ms(r.enqueue_ns),
                ms(r.unknown_ns)
            )
        })
        .collect()
}
