//! The application state and its one update function: `key -> action -> state`. Nothing
//! here draws or touches a terminal, so every behaviour can be tested with keys alone.
//! Work that takes long (re-reading traces for a new window or CPU set) is not done
//! here: the state asks for it ([`App::take_request`]) and the driver runs it off the UI
//! thread, feeding the result back with [`App::loaded`].

mod command;
pub(crate) mod compare;
pub(crate) mod derived;
pub(crate) mod jobs;
mod order;
mod popup;
pub(crate) mod tasks;
pub(crate) mod timeline;
pub(crate) mod triples;
mod why;

use crate::action::{Action, View};
use crate::columns;
use crate::filter::Filter;
use crate::keymap::{self, Key};
use crate::loading::{Data, Input, Sources, Stage};
use crate::ran_on::RanOn;
use analysis::GroupBy;
use compare::CompareState;
use tasks::TaskList;
use timeline::TimelineState;
use triples::TripleList;

/// What the keys go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    Normal,
    /// Typing a filter (the text after `/`).
    Filter(String),
    /// Typing a `:` command.
    Command(String),
    Help,
}

/// A status-line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Status {
    pub text: String,
    pub error: bool,
}

/// Settings given on the command line to restore a view.
#[derive(Debug, Clone, Default)]
pub struct Restore {
    pub view: Option<View>,
    pub sort: Option<String>,
    pub filter: Option<String>,
    pub base: Option<String>,
    pub threshold_pct: Option<f64>,
    pub group: Option<GroupBy>,
}

pub(crate) struct App {
    pub view: View,
    history: Vec<View>,
    pub mode: Mode,
    /// The loaded inputs; `None` until the first load finishes. Shared with the jobs.
    pub data: Option<std::sync::Arc<Data>>,
    /// Regroup and compare jobs in flight.
    pub jobs: jobs::Jobs,
    /// Stages of the load in flight (one per input); empty when none runs.
    pub stages: Vec<Stage>,
    /// The progress counters of the load in flight (or the last), one per input: the
    /// driver hands them to the loader; cancelled when a newer load supersedes it or on quit.
    pub loading: Vec<std::sync::Arc<ingest::Progress>>,
    pub generation: u64,
    /// The first load failed: nothing to show but this.
    pub failed: Option<String>,
    /// Which input the single-run views show.
    pub run: usize,
    pub tasks: TaskList,
    /// The wakeup-preemption view's triples, sorted and filtered.
    pub triples: TripleList,
    /// Orders and sums of the current run the views read.
    pub derived: derived::Derived,
    pub compare: CompareState,
    pub timeline: TimelineState,
    /// Selected row of each view (by [`View::index`]).
    pub cursor: [usize; 9],
    /// A text popup (Enter on a compare row) over the view.
    pub popup: Option<(String, Vec<String>)>,
    /// The occupant selected in the task detail's "why it waited" list (`o`).
    pub why_occupant: usize,
    pub status: Option<Status>,
    pub help_scroll: usize,
    pub quit: bool,
    /// Rows the table has on screen (for half-page moves); set by the renderer's caller.
    pub page_rows: usize,
    /// What the session analyses; a window or CPU change edits it and asks for a reload.
    pub sources: Sources,
    request: Option<Sources>,
    /// `y` was pressed: the driver puts the drawn frame on the clipboard.
    pub copy_requested: bool,
    restore: Restore,
}

impl App {
    pub(crate) fn new(sources: Sources, restore: Restore) -> App {
        let view = restore.view.unwrap_or(if sources.runs.len() > 1 {
            View::Compare
        } else {
            View::Overview
        });
        let stages = vec![Stage::Waiting; crate::loading::paths(&sources).len()];
        let loading = crate::loading::progress_counters(&sources);
        let mut compare = CompareState::default();
        if let Some(t) = restore.threshold_pct {
            compare.threshold_pct = t;
        }
        let mut app = App {
            view,
            history: Vec::new(),
            mode: Mode::Normal,
            data: None,
            jobs: jobs::Jobs::default(),
            stages,
            loading,
            generation: 0,
            failed: None,
            run: 0,
            tasks: TaskList::default(),
            triples: TripleList::default(),
            derived: derived::Derived::default(),
            compare,
            timeline: TimelineState::default(),
            cursor: [0; 9],
            popup: None,
            why_occupant: 0,
            status: None,
            help_scroll: 0,
            quit: false,
            page_rows: 20,
            sources,
            request: None,
            copy_requested: false,
            restore,
        };
        if let Some(group) = app.restore.group {
            app.tasks.group = group;
        }
        app
    }

    /// The input the single-run views show.
    pub(crate) fn input(&self) -> Option<&Input> {
        self.data.as_ref().and_then(|d| d.inputs.get(self.run))
    }

    /// True while a load or a job runs (first load or a recomputation).
    pub(crate) fn busy(&self) -> bool {
        !self.stages.is_empty() || self.jobs.pending()
    }

    fn apply_restore(&mut self) {
        let r = std::mem::take(&mut self.restore);
        if let Some(sort) = r.sort {
            self.command(&format!("sort {sort}"));
        }
        if let Some(filter) = r.filter {
            self.set_task_filter(&filter);
        }
        if let Some(base) = r.base {
            self.command(&format!("base {base}"));
        }
    }

    fn inputs_len(&self) -> usize {
        self.data.as_ref().map_or(0, |d| d.inputs.len())
    }

    /// Rebuilds the run-specific state for the current input.
    fn refresh_run(&mut self) {
        // A `cpu=` filter names tasks of the old data: find them again, or drop it.
        match self.ran_on(self.tasks.filter.as_ref()) {
            Ok(ran_on) => self.tasks.ran_on = ran_on,
            Err(e) => {
                self.tasks.filter = None;
                self.tasks.ran_on = RanOn::default();
                self.error(format!("filter dropped: {e}"));
            }
        }
        // A regroup in flight was for the old data or run: done here, with its grouping.
        if let Some(group) = self.jobs.wanted_group.take() {
            self.tasks.group = group;
        }
        self.jobs.cancel_regroup();
        let Some(input) = self.data.as_ref().and_then(|d| d.inputs.get(self.run)) else {
            return;
        };
        let report = &input.report;
        self.tasks.regroup(report, self.tasks.group);
        self.triples
            .rebuild(&report.system.wakeup_preemption.triples);
        self.derived = derived::Derived::of(report);
        self.timeline = TimelineState::new(report.window.start_ns, report.window.end_ns);
        self.clamp_cursors();
    }

    fn error(&mut self, text: String) {
        self.status = Some(Status { text, error: true });
    }

    fn note(&mut self, text: String) {
        self.status = Some(Status { text, error: false });
    }

    /// Number of selectable rows of `view`.
    pub(crate) fn rows(&self, view: View) -> usize {
        let Some(input) = self.input() else { return 0 };
        let r = &input.report;
        match view {
            View::Tasks => self.tasks.rows.len(),
            View::Preemptions => self.triples.rows.len(),
            View::Fairness => self.derived.competing.len(),
            View::Compare => self.compare.lines.len(),
            View::Quality => r.quality.lost_events.len(),
            _ => 0,
        }
    }

    fn clamp_cursors(&mut self) {
        for view in View::ALL {
            let n = self.rows(view);
            let c = &mut self.cursor[view.index()];
            *c = (*c).min(n.saturating_sub(1));
        }
    }

    pub(crate) fn selected(&self) -> usize {
        self.cursor[self.view.index()]
    }

    /// One key: typed into the open line, or looked up in the keymap.
    pub(crate) fn key(&mut self, key: Key) {
        match self.mode.clone() {
            Mode::Filter(text) => self.line_key(key, text, true),
            Mode::Command(text) => self.line_key(key, text, false),
            Mode::Help => match key {
                Key::Esc | Key::Char('?') | Key::Char('q') => self.mode = Mode::Normal,
                Key::Char('j') | Key::Down => self.help_scroll += 1,
                Key::Char('k') | Key::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                Key::Ctrl('c') => self.quit(),
                _ => {}
            },
            Mode::Normal => {
                if let Some(action) = keymap::lookup(self.view, key) {
                    self.apply(action);
                }
            }
        }
    }

    fn line_key(&mut self, key: Key, mut text: String, filter: bool) {
        match key {
            Key::Esc => self.mode = Mode::Normal,
            Key::Ctrl('c') => self.quit(),
            Key::Enter => {
                self.mode = Mode::Normal;
                if filter {
                    self.set_filter(&text);
                } else {
                    self.command(&text);
                }
            }
            Key::Backspace => {
                // Backspace on an empty line closes it, as in vim and less.
                if text.pop().is_none() {
                    self.mode = Mode::Normal;
                    return;
                }
                self.mode = if filter {
                    Mode::Filter(text)
                } else {
                    Mode::Command(text)
                };
            }
            Key::Char(c) => {
                text.push(c);
                self.mode = if filter {
                    Mode::Filter(text)
                } else {
                    Mode::Command(text)
                };
            }
            _ => {}
        }
    }

    /// Applies a filter to the table of the view (triples on the preemption view, else
    /// tasks); a malformed one leaves everything as it was.
    pub(crate) fn set_filter(&mut self, text: &str) {
        if self.on_triples() {
            self.set_triple_filter(text);
        } else {
            self.set_task_filter(text);
        }
    }

    /// Applies a filter to the Tasks table.
    fn set_task_filter(&mut self, text: &str) {
        let filter = match Filter::parse_line(text) {
            Ok(f) => f,
            Err(e) => return self.error(format!("filter: {e}")),
        };
        let ran_on = match self.ran_on(filter.as_ref()) {
            Ok(r) => r,
            Err(e) => return self.error(format!("filter: {e}")),
        };
        self.tasks.filter = filter;
        self.tasks.ran_on = ran_on;
        self.rebuild_tasks();
        self.status = None;
    }

    /// The tasks of the CPUs `filter` names (`cpu=N`), from the current run's timeline.
    fn ran_on(&self, filter: Option<&Filter<analysis::TaskRow>>) -> Result<RanOn, String> {
        let cpus = filter.map_or(Vec::new(), Filter::cpus);
        let Some(input) = self.input().filter(|_| !cpus.is_empty()) else {
            return Ok(RanOn::default());
        };
        match &input.timeline {
            Some(Ok(timeline)) => Ok(RanOn::of(timeline, &input.report, &cpus)),
            Some(Err(e)) => Err(format!("cpu= needs the timeline store: {e}")),
            None => Err("cpu= needs the trace's timeline (this run is a JSON report)".into()),
        }
    }

    fn rebuild_tasks(&mut self) {
        if let Some(input) = self.data.as_ref().and_then(|d| d.inputs.get(self.run)) {
            self.tasks.rebuild(&input.report);
        }
        self.clamp_cursors();
    }

    fn show(&mut self, view: View) {
        if view != self.view {
            self.history.push(self.view);
            self.view = view;
            self.popup = None;
        }
    }

    fn move_cursor(&mut self, delta: i64) {
        let n = self.rows(self.view);
        let c = &mut self.cursor[self.view.index()];
        *c = (*c as i64 + delta).clamp(0, n.saturating_sub(1) as i64) as usize;
    }

    pub(crate) fn apply(&mut self, action: Action) {
        self.status = None;
        match action {
            Action::Quit => self.quit(),
            Action::Help => {
                self.mode = Mode::Help;
                self.help_scroll = 0;
            }
            Action::Show(view) => self.show(view),
            Action::NextView | Action::PrevView => {
                let step = if action == Action::NextView { 1 } else { 8 };
                self.show(View::ALL[(self.view.index() + step) % 9]);
            }
            Action::Up => self.move_cursor(-1),
            Action::Down => self.move_cursor(1),
            Action::Top => self.move_cursor(i64::MIN / 2),
            Action::Bottom => self.move_cursor(i64::MAX / 2),
            Action::HalfPageDown => self.move_cursor((self.page_rows / 2).max(1) as i64),
            Action::HalfPageUp => self.move_cursor(-((self.page_rows / 2).max(1) as i64)),
            Action::Back => self.back(),
            Action::Enter => self.enter(),
            Action::Filter => {
                if self.view == View::Tasks || self.on_triples() {
                    self.mode = Mode::Filter(String::new());
                } else {
                    self.note("the filter works on the tasks (2) and preemptions (5) views".into());
                }
            }
            Action::Command => self.mode = Mode::Command(String::new()),
            Action::NextRun | Action::PrevRun => {
                let n = self.inputs_len();
                if n > 1 {
                    let step = if action == Action::NextRun { 1 } else { n - 1 };
                    self.run = (self.run + step) % n;
                    self.refresh_run();
                }
            }
            Action::Copy => {
                self.copy_requested = true;
                self.note("view copied (OSC 52)".into());
            }
            Action::SortLeft | Action::SortRight if self.on_triples() => {
                self.sort_triples_step(if action == Action::SortRight { 1 } else { -1 })
            }
            Action::InvertSort if self.on_triples() => {
                self.triples.descending = !self.triples.descending;
                self.rebuild_triples();
            }
            Action::SortLeft | Action::SortRight => {
                let n = columns::COLUMNS.len();
                let step = if action == Action::SortRight {
                    1
                } else {
                    n - 1
                };
                let sort = (self.tasks.sort + step) % n;
                self.with_report(|tasks, report| tasks.sort_by(report, sort));
            }
            Action::InvertSort => {
                self.tasks.descending = !self.tasks.descending;
                self.rebuild_tasks();
            }
            Action::CycleGroup => {
                let group = match self.group_wanted() {
                    GroupBy::Pid => GroupBy::Process,
                    GroupBy::Process => GroupBy::Name,
                    GroupBy::Name => GroupBy::Pid,
                };
                self.regroup(group);
            }
            Action::Mark => {
                let pid = self.current_task().map(|t| t.pid);
                if let Some(pid) = pid {
                    if !self.tasks.marks.remove(&pid) {
                        self.tasks.marks.insert(pid);
                    }
                    self.move_cursor(1);
                }
            }
            Action::FlaggedOnly => {
                self.compare.flagged_only = !self.compare.flagged_only;
                self.compare.relayout();
                self.clamp_cursors();
            }
            Action::NextBase => {
                let n = self.data.as_ref().map_or(0, |d| d.runs.len());
                if n > 0 {
                    self.compare.base = (self.compare.base + 1) % n;
                    self.recompare();
                }
            }
            Action::ThresholdUp | Action::ThresholdDown => {
                let delta = if action == Action::ThresholdUp {
                    1.0
                } else {
                    -1.0
                };
                self.compare.threshold_pct = (self.compare.threshold_pct + delta).max(0.0);
                self.recompare();
            }
            Action::CursorLeft => self.timeline.move_cursor(-1),
            Action::CursorRight => self.timeline.move_cursor(1),
            Action::PanLeft => self.timeline.pan(-1),
            Action::PanRight => self.timeline.pan(1),
            Action::ZoomIn => self.timeline.zoom(0.5),
            Action::ZoomOut => self.timeline.zoom(2.0),
            Action::ZoomFit => self.timeline.fit(),
            Action::MarkerStart => self.timeline.marker_start = Some(self.timeline.cursor),
            Action::MarkerEnd => self.timeline.marker_end = Some(self.timeline.cursor),
            Action::NextOccupant => self.next_occupant(),
            Action::JumpToOccupant => self.jump_to_occupant(),
            Action::JumpToMaxWait => {
                let wait = self.current_task().and_then(|t| {
                    let d = &t.sched_delay;
                    (d.count > 0).then(|| (t.pid, t.members.clone(), d.max_at_ns, d.max_ns))
                });
                if let Some((pid, members, at, len)) = wait {
                    self.timeline = self.timeline.around_wait(at, len);
                    // Its lane shows on the timeline: the wait is what the jump is for.
                    if members.is_empty() {
                        self.tasks.marks.insert(pid);
                    }
                    self.show(View::Timeline);
                }
            }
        }
    }

    fn with_report(&mut self, f: impl FnOnce(&mut TaskList, &analysis::Report)) {
        if let Some(input) = self.data.as_ref().and_then(|d| d.inputs.get(self.run)) {
            f(&mut self.tasks, &input.report);
        }
        self.clamp_cursors();
    }

    /// The task selected in the Tasks table (also the one the detail view shows).
    pub(crate) fn current_task(&self) -> Option<&analysis::TaskRow> {
        let input = self.input()?;
        self.tasks
            .row(&input.report, self.cursor[View::Tasks.index()])
    }

    fn back(&mut self) {
        if self.popup.take().is_some() {
            return;
        }
        if self.view == View::Tasks && self.tasks.filter.is_some() {
            self.tasks.filter = None;
            self.rebuild_tasks();
            return;
        }
        if self.on_triples() && self.triples.filter.is_some() {
            self.triples.filter = None;
            self.rebuild_triples();
            return;
        }
        if let Some(previous) = self.history.pop() {
            self.view = previous;
        }
    }

    fn enter(&mut self) {
        match self.view {
            View::Tasks if self.current_task().is_some() => {
                // A new task's detail starts at its first occupant.
                self.why_occupant = 0;
                self.show(View::Detail)
            }
            View::Compare => self.popup = self.compare_popup(),
            View::Timeline => match self.timeline.marked_range() {
                Some((a, b)) => self.reanalyse_window(Some((a, b))),
                None => self.note("set both markers first (m, M)".into()),
            },
            View::Quality => {
                let lost = self
                    .input()
                    .and_then(|i| i.report.quality.lost_events.get(self.selected()).copied());
                if let Some(lost) = lost {
                    self.timeline.focus(lost.ts_ns, self.timeline.span() / 8);
                    self.show(View::Timeline);
                }
            }
            _ => {}
        }
    }
}
