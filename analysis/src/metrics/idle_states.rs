//! The CPUs' idle states, from `power:cpu_idle` (`docs/metrics.md` §3b): per CPU the time
//! spent in each state the cpuidle driver entered ([`Residency`]), and for the wait causes
//! the state a CPU was leaving while a task waited on it idle ([`IdleSplit`]).
//!
//! Why a concern of its own: the residency is the CPU's number (it holds with no task
//! waiting), and a state is only a label on an idle piece, read at the moment the wait
//! tracker closes one. Keeping the labels here keeps the tracker's hook to one call per idle
//! piece, and a trace without `cpu_idle` costs nothing: the split stays off.
//!
//! The label of an idle piece is the state the CPU last entered since it switched to its
//! idle task — the state it was in, or leaving, when the piece ended (a deeper state takes
//! longer to leave, which is what an idle piece of a wakeup measures). `none` when the idle
//! task entered no state (woken before it reached cpuidle, or polling), `unknown` when the
//! CPU's state is not known (before its first switch to idle, after lost events).

use crate::cpu::Occupant;
use crate::scope::Scope;
use ingest::EventKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What an idle piece is labelled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Label {
    State(u32),
    NoState,
    Unknown,
}

impl Label {
    /// The key of the report's `idle_ns_by_state`.
    fn key(self) -> String {
        match self {
            Label::State(s) => s.to_string(),
            Label::NoState => "none".to_string(),
            Label::Unknown => "unknown".to_string(),
        }
    }
}

/// Time in one idle state on one CPU (a row of `cpus[].idle_states`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleStateRow {
    /// The cpuidle driver's state index (`/sys/devices/system/cpu/cpuN/cpuidle/stateS`).
    pub state: u32,
    /// Time from each entry to the CPU's next `cpu_idle` (its exit), clipped to the window.
    pub ns: u64,
    /// Entries in the window.
    pub count: u64,
}

/// One CPU's residency: the state it is in, and the totals per state.
#[derive(Debug, Clone, Default)]
struct CpuResidency {
    /// (state, entered at) while the CPU is in a state.
    open: Option<(u32, u64)>,
    rows: Vec<IdleStateRow>,
}

impl CpuResidency {
    fn row(&mut self, state: u32) -> &mut IdleStateRow {
        let at = match self.rows.binary_search_by_key(&state, |r| r.state) {
            Ok(at) => at,
            Err(at) => {
                self.rows.insert(
                    at,
                    IdleStateRow {
                        state,
                        ..Default::default()
                    },
                );
                at
            }
        };
        &mut self.rows[at]
    }

    /// Ends the state the CPU is in, at `at`.
    fn close(&mut self, at: u64, scope: &Scope) {
        if let Some((state, since)) = self.open.take() {
            let ns = scope.clip(since, at);
            let row = self.row(state);
            row.ns = row.ns.saturating_add(ns);
        }
    }
}

/// Per CPU the time in each idle state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Residency {
    cpus: Vec<CpuResidency>,
}

impl Residency {
    /// A `cpu_idle` of `cpu` at `ts`: `state` entered, or the one it was in left
    /// ([`EventKind::IDLE_EXIT`]). An entry without the exit of the state before ends that
    /// one here (a missed exit is not time in two states at once).
    pub(crate) fn event(&mut self, cpu: u32, state: u32, ts: u64, scope: &Scope) {
        if cpu as usize >= self.cpus.len() {
            self.cpus.resize_with(cpu as usize + 1, Default::default);
        }
        let c = &mut self.cpus[cpu as usize];
        c.close(ts, scope);
        if state != EventKind::IDLE_EXIT {
            c.open = Some((state, ts));
            if scope.counts(ts, cpu) {
                c.row(state).count += 1;
            }
        }
    }

    /// Events were lost on `cpu`: whether and when it left its state is not known, so the
    /// state it was in is not counted.
    pub(crate) fn lost(&mut self, cpu: u32) {
        if let Some(c) = self.cpus.get_mut(cpu as usize) {
            c.open = None;
        }
    }

    /// Ends the pass at `end`: a state still held counts up to it.
    pub(crate) fn finish(&mut self, end: u64, scope: &Scope) {
        for c in &mut self.cpus {
            c.close(end, scope);
        }
    }

    /// `cpu`'s rows, by state (empty when the trace has no `cpu_idle` for it).
    pub(crate) fn rows(&self, cpu: u32, scope: &Scope) -> Vec<IdleStateRow> {
        if !scope.cpu(cpu) {
            return Vec::new();
        }
        self.cpus
            .get(cpu as usize)
            .map(|c| c.rows.clone())
            .unwrap_or_default()
    }
}

/// Idle time per label, few labels: a short list searched in order.
type ByLabel = Vec<(Label, u64)>;

fn add(by: &mut ByLabel, label: Label, ns: u64) {
    match by.iter_mut().find(|e| e.0 == label) {
        Some(e) => e.1 = e.1.saturating_add(ns),
        None => by.push((label, ns)),
    }
}

/// The idle pieces of the waits split by label: per CPU its label now, per task slot the
/// open wait's split and the ended waits' totals. Driven by the wait tracker (a piece, a
/// wait begun, ended) and by the engine (each `cpu_idle`).
#[derive(Debug, Clone, Default)]
pub(crate) struct IdleSplit {
    /// On from the first `cpu_idle`: until then every label would be a guess.
    on: bool,
    labels: Vec<Label>,
    open: Vec<ByLabel>,
    totals: Vec<ByLabel>,
}

impl IdleSplit {
    #[inline]
    pub(crate) fn on(&self) -> bool {
        self.on
    }

    fn label_mut(&mut self, cpu: u32) -> &mut Label {
        if cpu as usize >= self.labels.len() {
            self.labels.resize(cpu as usize + 1, Label::Unknown);
        }
        &mut self.labels[cpu as usize]
    }

    /// A `cpu_idle` of `cpu`: an entry labels what follows; an exit keeps the label (the
    /// time to the switch is spent leaving that state).
    pub(crate) fn cpu_idle(&mut self, cpu: u32, state: u32) {
        self.on = true;
        if state != EventKind::IDLE_EXIT {
            *self.label_mut(cpu) = Label::State(state);
        }
    }

    /// `cpu` runs `occupant` from now on: its idle task starts in no state; lost events
    /// make the state unknown.
    #[inline]
    pub(crate) fn occupant_changed(&mut self, cpu: u32, occupant: Occupant) {
        match occupant {
            Occupant::Idle => *self.label_mut(cpu) = Label::NoState,
            Occupant::Unknown => *self.label_mut(cpu) = Label::Unknown,
            Occupant::Task(_) => {}
        }
    }

    /// Task `slot` began a new wait (or its wait so far became the enqueue piece).
    #[inline]
    pub(crate) fn reset(&mut self, slot: usize) {
        // Nothing is split before the first `cpu_idle`: no wait has a split to clear.
        if !self.on {
            return;
        }
        if let Some(o) = self.open.get_mut(slot) {
            o.clear();
        }
    }

    /// An idle piece of `ns` of task `slot`'s wait, closed now on `cpu`.
    #[inline]
    pub(crate) fn piece(&mut self, slot: usize, cpu: u32, ns: u64) {
        if !self.on || ns == 0 {
            return;
        }
        let label = self
            .labels
            .get(cpu as usize)
            .copied()
            .unwrap_or(Label::Unknown);
        if slot >= self.open.len() {
            self.open.resize_with(slot + 1, Vec::new);
        }
        add(&mut self.open[slot], label, ns);
    }

    /// Task `slot`'s wait was counted: its split joins the task's totals.
    #[inline]
    pub(crate) fn commit(&mut self, slot: usize) {
        if !self.on {
            return;
        }
        let Some(o) = self.open.get_mut(slot).filter(|o| !o.is_empty()) else {
            return;
        };
        if slot >= self.totals.len() {
            self.totals.resize_with(slot + 1, Vec::new);
        }
        for (label, ns) in o.drain(..) {
            add(&mut self.totals[slot], label, ns);
        }
    }

    /// Task `slot`'s idle wait by label (empty when the trace has no `cpu_idle`).
    pub(crate) fn task(&self, slot: usize) -> BTreeMap<String, u64> {
        let mut sorted = self.totals.get(slot).cloned().unwrap_or_default();
        sorted.sort_unstable();
        sorted.into_iter().map(|(l, ns)| (l.key(), ns)).collect()
    }
}

/// Adds a part's idle time by label to a sum (a grouped row, the system).
pub(crate) fn merge(into: &mut BTreeMap<String, u64>, part: &BTreeMap<String, u64>) {
    for (label, &ns) in part {
        let e = into.entry(label.clone()).or_insert(0);
        *e = e.saturating_add(ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXIT: u32 = EventKind::IDLE_EXIT;

    fn all() -> Scope {
        Scope::new(None, None)
    }

    fn row(state: u32, ns: u64, count: u64) -> IdleStateRow {
        IdleStateRow { state, ns, count }
    }

    #[test]
    fn residency_adds_each_entry_to_its_exit() {
        let mut r = Residency::default();
        let s = all();
        r.event(1, 1, 100, &s);
        r.event(1, EXIT, 150, &s);
        r.event(1, 0, 200, &s);
        r.event(1, EXIT, 210, &s);
        r.event(1, 1, 300, &s);
        r.event(1, EXIT, 330, &s);
        r.event(1, EXIT, 340, &s); // a second exit adds nothing
        r.finish(400, &s);
        assert_eq!(r.rows(1, &s), [row(0, 10, 1), row(1, 80, 2)]);
        assert!(r.rows(0, &s).is_empty());
    }

    /// An entry whose exit was not seen ends at the next entry; lost events drop the state
    /// in force; one still held at the end counts up to it.
    #[test]
    fn missed_exits_lost_events_and_the_end() {
        let mut r = Residency::default();
        let s = all();
        r.event(0, 2, 0, &s);
        r.event(0, 1, 40, &s);
        r.lost(0);
        r.event(0, EXIT, 90, &s);
        r.event(0, 1, 100, &s);
        r.finish(125, &s);
        assert_eq!(r.rows(0, &s), [row(1, 25, 2), row(2, 40, 1)]);
    }

    #[test]
    fn residency_is_clipped_to_the_window() {
        let mut r = Residency::default();
        let s = Scope::new(Some((100, 200)), Some(&[0]));
        r.event(0, 1, 50, &s); // entered before the window: time counted, entry not
        r.event(0, EXIT, 120, &s);
        r.event(0, 1, 190, &s);
        r.event(0, EXIT, 260, &s);
        r.event(1, 1, 150, &s); // a CPU not selected
        r.event(1, EXIT, 160, &s);
        assert_eq!(r.rows(0, &s), [row(1, 20 + 10, 1)]);
        assert!(r.rows(1, &s).is_empty());
    }

    /// A piece is labelled with the state the CPU last entered since it went idle; a
    /// counted wait commits its split, a new wait starts from nothing.
    #[test]
    fn pieces_take_the_state_the_cpu_was_leaving() {
        let mut w = IdleSplit::default();
        w.piece(0, 0, 10);
        w.commit(0);
        assert!(w.task(0).is_empty(), "off until the first cpu_idle");
        w.occupant_changed(0, Occupant::Idle);
        w.cpu_idle(0, 2);
        w.cpu_idle(0, EXIT);
        w.piece(0, 0, 30); // leaving state 2
        w.occupant_changed(0, Occupant::Task(5));
        w.occupant_changed(0, Occupant::Idle);
        w.piece(0, 0, 4); // idle task, no state entered yet
        w.piece(0, 1, 6); // CPU 1 never seen idle
        w.commit(0);
        w.piece(0, 0, 100);
        w.reset(0); // the next wait begins: the open split is dropped
        w.commit(0);
        w.occupant_changed(0, Occupant::Unknown);
        w.piece(1, 0, 7);
        w.commit(1);
        let want = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
            pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect()
        };
        assert_eq!(w.task(0), want(&[("2", 30), ("none", 4), ("unknown", 6)]));
        assert_eq!(w.task(1), want(&[("unknown", 7)]));
        let mut sum = BTreeMap::new();
        merge(&mut sum, &w.task(0));
        merge(&mut sum, &w.task(1));
        assert_eq!(sum.values().sum::<u64>(), 47);
    }
}
