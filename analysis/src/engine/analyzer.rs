//! The one-pass analysis: an [`EventSink`] that keeps every task's timeline and every
//! CPU's occupant, checks each switch against what the CPUs were believed to run
//! (context-switch bugs, metrics.md §9), applies lost events, and builds the [`Report`].
//!
//! O(1) work per event: tasks live in a dense vector found through a pid-indexed slot
//! table; lost events are applied lazily (a task remembers the CPU and lost count of its
//! last transition, and is brought up to date the next time an event names it).

use crate::cpu::{Cpu, Lost, Occupant};
use crate::drain::Draining;
use crate::interval::SwitchReason;
use crate::metrics::fairness::{Fairness, PrioScale};
use crate::metrics::idle_states::Residency;
use crate::metrics::placement::CpuMap;
use crate::metrics::preemption::Triples;
use crate::metrics::records::Recorder;
use crate::metrics::runqueue::Runqueues;
use crate::metrics::wait_causes::Waits;
use crate::scope::Scope;
use crate::series::{Count, SeriesCounts};
use crate::series_sums::IntervalSums;
use crate::timeline::{State, Task, WakeKind, WakeStart};
use crate::Config;
use ingest::topology::Topology;
use ingest::{Event, EventKind, EventSink, TaskRef, TraceMeta};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Larger CPU numbers are rejected rather than sizing tables by a corrupt field.
pub(crate) const MAX_CPUS: u32 = 1 << 14;
/// A gap between consecutive events this long (one hour) is a corrupt timestamp, not a quiet
/// system: even an idle machine runs a kworker or a timer every few seconds, and each of those
/// is a sched_switch.
pub(crate) const TIME_JUMP_NS: u64 = 3_600_000_000_000;

pub struct Analyzer {
    pub(crate) config: Config,
    pub(crate) scope: Scope,
    pub(crate) tasks: Vec<Task>,
    pub(crate) dense_slots: Vec<u32>,
    pub(crate) sparse_slots: FxHashMap<i32, u32>,
    pub(crate) cpus: Vec<Cpu>,
    pub(crate) first_ts: Option<u64>,
    pub(crate) last_ts: u64,
    pub(crate) waking_seen: bool,
    /// Events per kind (indexed by `EventKind::index`), used when the reader gives no counts.
    pub(crate) kind_counts: [u64; EventKind::NAMES.len()],
    /// Waits started by waking / wakeup / wakeup_new, and wakeups that could not be timed.
    pub(crate) started_by: [u64; 4],
    pub(crate) rejected: BTreeMap<&'static str, u64>,
    /// Time of the event being processed.
    pub(crate) now: u64,
    pub(crate) runqueues: Runqueues,
    pub(crate) fairness: Fairness,
    /// Topology in use and where it came from (trace, file, host).
    pub(crate) topology: Option<(Topology, String)>,
    /// Wakeup preemptions per (waker, wakee, victim) name.
    pub(crate) triples: Triples,
    /// The prio scale changed after tasks were made: their cached fairness weights may be
    /// stale, so every task lookup re-applies them (see [`Analyzer::task`]).
    pub(crate) weights_unsettled: bool,
    /// The timeline store's bookkeeping when `Config::timeline` asks for it.
    pub(crate) store: Option<crate::timeline_store::StoreState>,
    /// `--series` counts per window.
    pub(crate) series: Option<Box<SeriesCounts>>,
    /// The series' interval sums made in the pass from the kept store's logs
    /// (`series_pass`); `None` before the first store check, or drained, or past the limit.
    pub(crate) series_sums: Option<IntervalSums>,
    /// Whether the kept store's logs are summed for the series in the pass (always, but for
    /// the test that holds the result equal to the finished store's sums).
    pub(crate) sum_series_in_pass: bool,
    /// Suspect gaps between consecutive events (the first [`crate::report::TIME_JUMPS_KEPT`]).
    pub(crate) time_jumps: Vec<crate::report::TimeJump>,
    /// Per-event records when `Config::records` asks for them.
    pub(crate) records: Option<Box<crate::metrics::records::Recorder>>,
    /// Where intervals and records go as they come ([`Analyzer::drain_into`]).
    pub(crate) drain: Option<Box<Draining>>,
    /// Which CPUs each task may use, when anything says (`Config::affinity`).
    pub(crate) affinity: Option<crate::affinity::Affinity>,
    /// Each task's nice as the recording sampled it (`Config::recording`).
    pub(crate) recorded_nice: Option<crate::recording::Niceness>,
    /// Every wait's pieces by what its runqueue's CPU ran (`metrics::wait_causes`).
    pub(crate) waits: Waits,
    /// Time in each idle state per CPU (`metrics::idle_states`).
    pub(crate) idle_states: Residency,
}

impl Analyzer {
    pub fn new(config: Config) -> Analyzer {
        let scope = config.scope_from(0);
        // The series take their durations from the store: on with them, at its default limit.
        let store = config
            .timeline
            .or(config.series.map(|_| Default::default()))
            .map(crate::timeline_store::StoreState::new);
        let series = config.series.map(|len| Box::new(SeriesCounts::new(len)));
        let config_records = config.records;
        let config_affinity = config.affinity.as_deref().cloned();
        let recorded_nice = config
            .recording
            .as_deref()
            .map(|(_, r)| crate::recording::Niceness::new(r));
        let mut fairness = Fairness::new();
        if let Some(len) = config.series {
            fairness.record_windows(len.max(1));
        }
        Analyzer {
            config,
            scope,
            tasks: Vec::new(),
            dense_slots: Vec::new(),
            sparse_slots: FxHashMap::default(),
            cpus: Vec::new(),
            first_ts: None,
            last_ts: 0,
            waking_seen: false,
            kind_counts: [0; EventKind::NAMES.len()],
            started_by: [0; 4],
            rejected: BTreeMap::new(),
            now: 0,
            runqueues: Runqueues::default(),
            fairness,
            topology: None,
            triples: Triples::default(),
            weights_unsettled: false,
            store,
            series,
            series_sums: None,
            sum_series_in_pass: true,
            time_jumps: Vec::new(),
            records: config_records.map(|limit| Box::new(Recorder::new(limit))),
            drain: None,
            affinity: config_affinity,
            recorded_nice,
            waits: Waits::default(),
            idle_states: Residency::default(),
        }
        .with_topology()
    }

    /// Uses the topology given in the configuration, if any.
    fn with_topology(mut self) -> Analyzer {
        if let Some((t, source)) = self.config.topology.clone() {
            self.use_topology(t, source);
        }
        self
    }

    fn use_topology(&mut self, t: Topology, source: String) {
        let map = CpuMap::new(&t);
        let llc_of: Vec<Option<u32>> = (0..t.cpus.len() as u32).map(|c| map.llc(c)).collect();
        self.waits.set_llcs(&llc_of);
        self.runqueues.set_llcs(llc_of, t.llcs.len());
        self.topology = Some((t, source));
    }

    fn note_time_jump(&mut self, cpu: u32, ts: u64) {
        if self.time_jumps.len() < crate::report::TIME_JUMPS_KEPT {
            self.time_jumps.push(crate::report::TimeJump {
                cpu,
                from_ns: self.last_ts,
                to_ns: ts,
            });
        }
    }

    fn reject(&mut self, reason: &'static str) {
        *self.rejected.entry(reason).or_insert(0) += 1;
    }

    fn epoch(&self, cpu: u32) -> u32 {
        self.cpus[cpu as usize].epoch()
    }

    /// A task believed to run on `cpu` was seen elsewhere: it left `cpu` unobserved
    /// some time after it was last confirmed there.
    fn detach(&mut self, slot: usize, cpu: u32) {
        let c = &mut self.cpus[cpu as usize];
        let at = c.confirmed;
        let pid = self.tasks[slot].pid;
        self.tasks[slot].lose_track(at, cpu, c.epoch(), &self.scope);
        if c.occupant == Occupant::Task(pid) {
            c.lose_track(at, &self.scope);
            self.cpu_changed(cpu);
        }
        self.observe(slot);
        self.observe_cpu(cpu);
    }

    fn on_switch(
        &mut self,
        ts: u64,
        cpu: u32,
        prev: &TaskRef,
        state: ingest::PrevState,
        next: &TaskRef,
    ) {
        let ci = cpu as usize;
        if self.scope.counts(ts, cpu) {
            self.cpus[ci].switches += 1;
            self.count_in_series(Count::Switch, ts, cpu);
        }
        let prev_slot = (prev.pid > 0).then(|| self.task(prev));
        let next_slot = (next.pid > 0).then(|| self.task(next));
        let mut bug = false;

        // 1. prev must be what this CPU was last seen to run.
        let believed = self.cpus[ci].occupant;
        if believed != Occupant::Unknown && !believed.is(prev.pid) {
            bug = true;
            let from = self.cpus[ci].confirmed;
            if let Occupant::Task(a) = believed {
                if let Some(s) = self.find(a) {
                    let epoch = self.epoch(cpu);
                    self.tasks[s].lose_track(from, cpu, epoch, &self.scope);
                    self.observe(s);
                }
            }
            self.cpus[ci].lose_track(from, &self.scope);
            self.cpu_changed(cpu);
            if let Some(p) = prev_slot {
                match self.tasks[p].state {
                    State::Running { cpu: other } if other != cpu => self.detach(p, other),
                    _ => {
                        let epoch = self.epoch(cpu);
                        self.tasks[p].lose_track(from, cpu, epoch, &self.scope)
                    }
                }
            }
        }
        // 2. next must not be running on another CPU.
        if let Some(n) = next_slot {
            if let State::Running { cpu: other } = self.tasks[n].state {
                if other != cpu {
                    bug = true;
                    self.detach(n, other);
                }
            }
        }
        if bug && self.scope.contains(ts) {
            self.cpus[ci].bugs += 1;
        }

        // 3. Go on from the switch as observed.
        let epoch = self.epoch(cpu);
        let wakeup_preempt = match (prev_slot, next_slot) {
            (Some(p), Some(n)) if state.is_runnable() => self.is_wakeup_preemption(cpu, p, n),
            _ => false,
        };
        if wakeup_preempt && self.scope.counts(ts, cpu) {
            self.count_wakeup_preemption(cpu, prev_slot.unwrap(), next_slot.unwrap());
        }
        let mut prev_reason = None;
        if let Some(p) = prev_slot {
            let reason =
                self.tasks[p].switch_out(ts, cpu, epoch, state, wakeup_preempt, &self.scope);
            debug_assert!(SwitchReason::ALL.contains(&reason));
            prev_reason = Some(reason);
            self.wait_began(p, ts);
            self.observe(p);
        }
        if let Some(n) = next_slot {
            let t = &self.tasks[n];
            // As `Task::switch_in` counts a wakeup ended here as local.
            if t.woken() && t.waker_cpu == cpu && self.scope.counts(ts, cpu) {
                self.cpus[ci].local_wakeups += 1;
            }
            if self.records.is_some() {
                self.record_wait(n, ts, cpu);
            }
            let sampled = self.tasks[n].switch_in(ts, cpu, epoch, &self.scope);
            self.wait_ended(n, ts, cpu, sampled, prev.pid, prev_reason);
            self.observe(n);
        }
        self.cpus[ci].set(Occupant::of_pid(next.pid), ts, &self.scope);
        self.cpu_changed(cpu);
        self.observe_cpu(cpu);
    }

    #[allow(clippy::too_many_arguments)]
    fn on_wake(
        &mut self,
        kind: WakeKind,
        ts: u64,
        cpu: u32,
        current_pid: i32,
        task: &TaskRef,
        target: i32,
    ) {
        if task.pid <= 0 {
            return;
        }
        let slot = self.task(task);
        let waker = if current_pid >= 0 {
            current_pid
        } else {
            match self.cpus[cpu as usize].occupant {
                Occupant::Task(p) => p,
                Occupant::Idle => 0,
                Occupant::Unknown => -1,
            }
        };
        let epoch = self.epoch(cpu);
        let was_woken = self.tasks[slot].woken();
        let started = self.tasks[slot].wake(
            kind,
            ts,
            cpu,
            epoch,
            target,
            waker,
            self.waking_seen,
            &self.scope,
        );
        if started != WakeStart::None {
            self.wait_began(slot, ts);
        }
        self.note_target(slot);
        self.observe(slot);
        if was_woken && kind == WakeKind::Wakeup {
            self.waits.enqueued(slot, ts);
        }
        if self.scope.contains(ts) {
            match started {
                WakeStart::Timed(WakeKind::Waking) => self.started_by[0] += 1,
                WakeStart::Timed(WakeKind::Wakeup) => self.started_by[1] += 1,
                WakeStart::Timed(WakeKind::WakeupNew) => self.started_by[2] += 1,
                WakeStart::Untimed => self.started_by[3] += 1,
                WakeStart::None => {}
            }
        }
    }

    fn on_lost(&mut self, ts: u64, cpu: u32, count: Option<u64>) {
        let c = &mut self.cpus[cpu as usize];
        let from = c.last_event.unwrap_or(ts);
        c.lost.push(Lost { ts, count, from });
        self.idle_states.lost(cpu);
        if self.scope.counts(ts, cpu) {
            self.count_in_series(Count::Lost, ts, cpu);
        }
        let c = &mut self.cpus[cpu as usize];
        if c.occupant != Occupant::Unknown {
            c.lose_track(from, &self.scope);
            self.cpu_changed(cpu);
        }
        self.observe_cpu(cpu);
    }

    /// A counted event for `--series`, when it is on.
    #[inline]
    pub(crate) fn count_in_series(&mut self, what: Count, ts: u64, cpu: u32) {
        if let Some(s) = &mut self.series {
            let origin = self.first_ts.unwrap_or(ts).max(self.scope.start);
            s.count(what, ts, origin, cpu);
        }
    }

    /// `power:cpu_idle`: the CPU it names (the kernel's `cpu_id`, which is the CPU it ran on).
    fn on_cpu_idle(&mut self, ts: u64, state: u32, cpu_id: u32) {
        if cpu_id >= MAX_CPUS {
            self.reject("cpu_idle: cpu_id out of range");
            return;
        }
        self.idle_states.event(cpu_id, state, ts, &self.scope);
        self.waits.cpu_idle(cpu_id, state);
    }

    fn count_kind(&mut self, kind: &EventKind) {
        self.kind_counts[kind.index()] += 1;
    }
}

impl EventSink for Analyzer {
    fn meta(&mut self, meta: &TraceMeta) {
        let scale = PrioScale::of_release(meta.kernel_release.as_deref());
        if scale != self.fairness.scale && !self.tasks.is_empty() {
            self.weights_unsettled = true;
        }
        self.fairness.scale = scale;
        if let (Some(a), Some(n)) = (&mut self.affinity, meta.cpus) {
            a.set_cpu_count(n);
        }
        // metrics.md §6: the trace's own topology comes first.
        if let Some(t) = &meta.topology {
            if self.first_ts.is_none() && t.cpus.iter().any(|p| p.llc.is_some()) {
                self.use_topology(t.clone(), "trace".to_string());
            }
        }
    }

    fn event(&mut self, ev: &Event) {
        if let EventKind::TaskName { pid, tgid, comm } = ev.kind {
            // Names are metadata, not scheduling: readers may stamp them with a time outside the
            // trace (perf synthesizes COMM records at time 0), so they touch neither the window
            // nor any CPU's state.
            self.count_kind(&ev.kind);
            self.note_task_name(pid, tgid, comm);
            return;
        }
        let cpu = ev.cpu;
        if cpu >= MAX_CPUS {
            self.reject("cpu number out of range");
            return;
        }
        let mut ts = ev.ts;
        if ts < self.last_ts {
            // The reader sorts; an event still out of order is processed at the last time.
            self.reject("event before the previous one (processed at the previous time)");
            ts = self.last_ts;
        }
        if self.first_ts.is_some() && ts - self.last_ts >= TIME_JUMP_NS {
            self.note_time_jump(cpu, ts);
        }
        if self.first_ts.is_none() && self.config.time_relative {
            self.scope = self.config.scope_from(ts);
        }
        let first = *self.first_ts.get_or_insert(ts);
        self.last_ts = ts;
        self.now = ts;
        if self.store.is_some() {
            self.check_store();
        }
        let origin = first.max(self.scope.start);
        self.fairness
            .tick(ts, origin, self.tasks.as_mut_slice(), &self.scope);
        if cpu as usize >= self.cpus.len() {
            self.cpus.resize_with(cpu as usize + 1, Cpu::new);
        }
        self.count_kind(&ev.kind);
        let c = &mut self.cpus[cpu as usize];
        if c.last_event.is_none() {
            c.since = ts;
            c.confirmed = ts;
        }
        if !matches!(ev.kind, EventKind::Switch { .. } | EventKind::Lost { .. })
            && (ev.current_pid < 0 || c.occupant.is(ev.current_pid))
        {
            c.confirmed = ts;
        }
        match ev.kind {
            EventKind::Switch {
                ref prev,
                prev_state,
                ref next,
            } => self.on_switch(ts, cpu, prev, prev_state, next),
            EventKind::Waking {
                ref task,
                target_cpu,
            } => {
                self.waking_seen = true;
                self.on_wake(WakeKind::Waking, ts, cpu, ev.current_pid, task, target_cpu)
            }
            EventKind::Wakeup {
                ref task,
                target_cpu,
            } => self.on_wake(WakeKind::Wakeup, ts, cpu, ev.current_pid, task, target_cpu),
            EventKind::WakeupNew {
                ref task,
                target_cpu,
            } => self.on_wake(
                WakeKind::WakeupNew,
                ts,
                cpu,
                ev.current_pid,
                task,
                target_cpu,
            ),
            EventKind::Migrate {
                ref task, dest_cpu, ..
            } => {
                if task.pid > 0 {
                    let slot = self.task(task);
                    let counted = self.scope.counts(ts, cpu);
                    self.tasks[slot].migrate(dest_cpu, counted);
                    self.observe(slot);
                }
            }
            EventKind::Fork {
                child_pid,
                child_comm,
                ..
            } => {
                if child_pid > 0 {
                    let slot = match self.find(child_pid) {
                        // A pid seen before is being reused: a new task.
                        Some(s) if self.tasks[s].seen() => self.new_task(child_pid),
                        Some(s) => s,
                        None => self.new_task(child_pid),
                    };
                    self.tasks[slot].note_comm(child_comm);
                }
            }
            EventKind::Exit { pid } => {
                if let Some(s) = (pid > 0).then(|| self.find(pid)).flatten() {
                    self.tasks[s].exited = true;
                }
            }
            // Handled before the window logic above.
            EventKind::TaskName { .. } => {}
            EventKind::Lost { count } => self.on_lost(ts, cpu, count),
            EventKind::Free { .. } | EventKind::Other | EventKind::Print { .. } => {}
            EventKind::CpuIdle { state, cpu_id } => self.on_cpu_idle(ts, state, cpu_id),
        }
        self.cpus[cpu as usize].last_event = Some(ts);
    }
}
