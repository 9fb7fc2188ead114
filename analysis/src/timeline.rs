//! The per-task state machine of `docs/metrics.md` §2–3: one task's state, the
//! interval it has been in since its last transition, and the metrics that each
//! transition completes (runtime, sleep, unknown time, slices, waits, switches).
//!
//! Every method is O(1) and allocation-free apart from amortized sample pushes.
//! Cross-CPU consistency (context-switch bugs, lost events) is decided by the
//! analyzer, which then calls [`Task::lose_track`] here.

use crate::interval::{EndReason, Fields, SwitchReason, TaskLog, ThreadState};
use crate::metrics::fairness::{FairSlots, FairTask, Presence};
use crate::metrics::latency::TaskSamples;
use crate::metrics::placement::{PairKind, TaskAffinity};
use crate::metrics::preemption::Enqueue;
use crate::scope::Scope;
use ingest::{Comm, PrevState};

/// How the current wait of a runnable task started, i.e. which sample it will give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Started by a wakeup (waking, else wakeup, else wakeup_new): a wakeup latency.
    Wakeup,
    /// Started by a switch-out in R/R+: a preemption wait.
    Preempt,
    /// Start not observed (the trace has `sched_waking` but this wakeup's was missing).
    Untimed,
}

/// metrics.md §2 states. `Unseen` is the time before a task's first event (never counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Unseen,
    Running { cpu: u32 },
    Runnable { rq_cpu: i32, wait: Wait },
    Sleeping,
    Blocked,
    Dead,
    Unknown,
}

/// Which wakeup event this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

/// What a wakeup event did to a task (for the data-quality ledger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WakeStart {
    /// Nothing: the task was running, already waiting, or unknown.
    None,
    /// Started a wait that will be timed from this event.
    Timed(WakeKind),
    /// Made the task runnable, but its wait start is not known (missing waking).
    Untimed,
}

/// [`Task::affinity_rule`] before its name was matched against the `--affinity` rules.
pub(crate) const RULE_UNDECIDED: u32 = u32::MAX;
/// No rule, or no set.
pub(crate) const RULE_NONE: u32 = u32::MAX - 1;

/// One task (one pid lifetime) and everything measured about it so far.
///
/// `repr(C)` keeps the fields in the order written: what every switch and wakeup of the
/// task reads and writes comes first, in a few adjacent cache lines, and what is rarely
/// touched comes last. With thousands of tasks of hundreds of bytes each, the first touch
/// of a task is among the hottest instructions of the analyzer (profiles): fewer cache
/// lines per event help more than fewer instructions.
#[derive(Debug, Clone)]
#[repr(C)]
pub(crate) struct Task {
    pub(crate) pid: i32,
    pub(crate) prio: i32,
    pub(crate) comm: Comm,
    pub(crate) state: State,
    /// When the current state began.
    pub(crate) since: u64,
    /// The timeline store's intervals of this task (`Config::timeline`), else None: one
    /// untaken branch per transition when the store is off.
    pub(crate) log: Option<Box<TaskLog>>,
    /// CPU and per-CPU lost-event count at the last transition (lazy lost handling).
    pub(crate) trans_cpu: u32,
    pub(crate) trans_epoch: u32,
    /// CPU of the task's previous slice (for migrations).
    pub(crate) last_run_cpu: Option<u32>,
    /// Presence last applied to the runqueue and fairness accounting.
    pub(crate) presence: Presence,
    /// Weight it competes with in fairness (0: left out), valid while `presence` is.
    pub(crate) fair_weight: u32,
    /// pid of the task that last woke this one, -1 when unknown.
    pub(crate) waker: i32,
    /// Current wakeup: runqueue CPU and time of the enqueue (the last wakeup event that
    /// set it), CPU where the wakeup fired (the waker's), and whether the runqueue's CPU
    /// was running another task then (§5).
    wake_cpu: i32,
    pub(crate) waker_cpu: u32,
    wake_ts: u64,
    pub(crate) target_busy: bool,
    /// A `sched_waking` seen while the task was still on its CPU (it raced its own sleep).
    pending_waking: bool,
    /// `--fair-set` membership cache: 0 not decided (name changed), 1 in, 2 out.
    pub(crate) fair_member: u8,
    pub(crate) exited: bool,
    pub(crate) runtime_ns: u64,
    pub(crate) sleep_ns: u64,
    pub(crate) unknown_ns: u64,
    pub(crate) wakeups: u64,
    pub(crate) reasons: [u64; 4],
    pub(crate) migrations: u64,
    /// Wakeups ended on a busy target CPU (the §5 ratio's denominator).
    pub(crate) busy_target_wakeups: u64,
    /// Slices and waits, exact (the latency concern's).
    pub(crate) samples: TaskSamples,
    pub(crate) fair: FairTask,
    pub(crate) affinity: TaskAffinity,
    // Rarely touched.
    pub(crate) tgid: i32,
    /// Every distinct name the task had, in order of appearance (renames, exec).
    pub(crate) comms: Vec<Comm>,
    /// `sched_migrate_task` events of the task (the kernel's `se.nr_migrations` counts these,
    /// including moves between runqueues while the task waits, which `migrations` does not).
    pub(crate) runqueue_moves: u64,
    /// Wakeup preemptions this task caused (as wakee) and suffered (as victim).
    pub(crate) preempt_caused: u64,
    pub(crate) preempt_suffered: u64,
    /// The `--affinity` rule of the task's name ([`crate::affinity::Affinity::rule_for`]):
    /// [`RULE_UNDECIDED`] until asked (and after a rename), [`RULE_NONE`] when none names it.
    pub(crate) affinity_rule: u32,
    /// The allowed set its current wait was counted with in the runqueues ([`RULE_NONE`]:
    /// unconstrained), so that the wait leaves them as it entered.
    pub(crate) wait_set: u32,
    /// Slices since it last moved to another CPU, and when it moved (the report names a
    /// task that looks pinned from these, when its affinity is unknown).
    pub(crate) settled_slices: u64,
    pub(crate) settled_since: u64,
}

impl Task {
    pub(crate) fn new(pid: i32) -> Task {
        Task {
            pid,
            tgid: -1,
            comm: Comm::default(),
            comms: Vec::new(),
            prio: -1,
            state: State::Unseen,
            since: 0,
            log: None,
            trans_cpu: u32::MAX,
            trans_epoch: 0,
            last_run_cpu: None,
            pending_waking: false,
            waker: -1,
            exited: false,
            runtime_ns: 0,
            sleep_ns: 0,
            unknown_ns: 0,
            migrations: 0,
            runqueue_moves: 0,
            wakeups: 0,
            reasons: [0; 4],
            samples: TaskSamples::default(),
            presence: Presence::NONE,
            fair_weight: 0,
            fair_member: 0,
            affinity_rule: RULE_UNDECIDED,
            wait_set: RULE_NONE,
            settled_slices: 0,
            settled_since: 0,
            fair: FairTask::default(),
            wake_cpu: -1,
            wake_ts: 0,
            waker_cpu: 0,
            target_busy: false,
            preempt_caused: 0,
            preempt_suffered: 0,
            busy_target_wakeups: 0,
            affinity: TaskAffinity::default(),
        }
    }

    /// Where the task is now, for the runqueue and fairness accounting.
    #[inline]
    pub(crate) fn presence(&self) -> Presence {
        match self.state {
            State::Running { cpu } => Presence {
                cpu: cpu as i32,
                running: true,
            },
            State::Runnable { rq_cpu, .. } if rq_cpu >= 0 => Presence {
                cpu: rq_cpu,
                running: false,
            },
            _ => Presence::NONE,
        }
    }

    /// Whether the task waits after a wakeup (timed or not), not after a preemption.
    #[inline]
    pub(crate) fn woken(&self) -> bool {
        matches!(
            self.state,
            State::Runnable {
                wait: Wait::Wakeup | Wait::Untimed,
                ..
            }
        )
    }

    /// The enqueue of its wakeup while the task waits after one (wakeup preemption, §5).
    #[inline]
    pub(crate) fn wakeup_enqueue(&self) -> Option<Enqueue> {
        self.woken().then_some(Enqueue {
            cpu: self.wake_cpu,
            ts: self.wake_ts,
        })
    }

    /// Since when the task has run on `cpu`, if it runs there.
    #[inline]
    pub(crate) fn running_since(&self, cpu: u32) -> Option<u64> {
        (self.state == State::Running { cpu }).then_some(self.since)
    }

    /// Records the task's current name; a different non-empty name is a rename (returns
    /// whether it was one).
    #[inline]
    pub(crate) fn note_comm(&mut self, comm: Comm) -> bool {
        let renamed = comm != self.comm && !comm.is_empty();
        if renamed {
            self.comm = comm;
            self.fair_member = 0;
            self.affinity_rule = RULE_UNDECIDED;
            // Names change rarely (exec, prctl): a linear search over a handful is fine.
            if !self.comms.contains(&comm) {
                self.comms.push(comm);
            }
        }
        renamed
    }

    /// Whether anything at all happened to this task (pid-reuse check).
    pub(crate) fn seen(&self) -> bool {
        self.state != State::Unseen
    }

    /// Ends the current state's interval at `now`, adding it to the matching total (and
    /// to the timeline store, when it is on, with what ended it). Once or twice per event:
    /// inline, without a call's register saves.
    #[inline(always)]
    fn close_interval(&mut self, now: u64, scope: &Scope, end: EndReason) {
        if let Some(log) = &mut self.log {
            if let Some(fields) = interval_fields(self.state, self.waker, end) {
                log.close(self.since, now, fields);
            }
        }
        let len = scope.clip(self.since, now);
        match self.state {
            State::Running { cpu } if scope.cpu(cpu) => {
                self.runtime_ns += len;
                self.affinity.add_runtime(cpu, len);
            }
            State::Sleeping | State::Blocked => self.sleep_ns += len,
            State::Unknown => self.unknown_ns += len,
            _ => {}
        }
    }

    fn enter(&mut self, state: State, now: u64, cpu: u32, epoch: u32) {
        self.state = state;
        self.since = now;
        self.trans_cpu = cpu;
        self.trans_epoch = epoch;
    }

    /// From `at` on, the task's state is not known (lost events, a missed switch).
    /// `epoch` is the current lost count of `cpu`, so the same loss is not applied twice.
    pub(crate) fn lose_track(&mut self, at: u64, cpu: u32, epoch: u32, scope: &Scope) {
        if matches!(self.state, State::Unseen | State::Dead | State::Unknown) {
            self.trans_cpu = cpu;
            self.trans_epoch = epoch;
            return;
        }
        let at = at.max(self.since);
        self.close_interval(at, scope, EndReason::LostTrack);
        self.pending_waking = false;
        self.enter(State::Unknown, at, cpu, epoch);
    }

    /// `cpu` switched this task out at `now` in `prev_state`; `wakeup_preempt` when a
    /// task woken onto `cpu` took it (§5). Returns the switch-out reason.
    pub(crate) fn switch_out(
        &mut self,
        now: u64,
        cpu: u32,
        epoch: u32,
        prev_state: PrevState,
        wakeup_preempt: bool,
        scope: &Scope,
    ) -> SwitchReason {
        let counted = scope.counts(now, cpu);
        match self.state {
            State::Running { cpu: c } if c == cpu => {
                // A complete slice: its start is the observed switch-in.
                if counted {
                    self.samples.slices.push(now - self.since, now);
                }
            }
            // First event (or a new life of a reused pid): earlier time is not counted.
            State::Unseen | State::Dead => {}
            // Switched out without an observed switch-in here: since its last known
            // transition the task ran, waited or slept in an unknown mix.
            _ => self.state = State::Unknown,
        }
        let reason = match SwitchReason::of(prev_state) {
            SwitchReason::Preempt if wakeup_preempt => SwitchReason::WakeupPreempt,
            r => r,
        };
        self.close_interval(now, scope, EndReason::SwitchedOut(reason));
        if counted {
            self.reasons[reason.index()] += 1;
        }
        let next = match prev_state {
            PrevState::Runnable | PrevState::Preempted => State::Runnable {
                rq_cpu: cpu as i32,
                wait: Wait::Preempt,
            },
            // The waking already happened while the task was finishing its switch-out
            // (ttwu waits for it to leave the CPU): it is runnable from here.
            PrevState::Sleeping | PrevState::Blocked if self.pending_waking => {
                if scope.contains(now) {
                    self.wakeups += 1;
                }
                self.wake_cpu = cpu as i32;
                self.wake_ts = now;
                self.target_busy = false;
                State::Runnable {
                    rq_cpu: cpu as i32,
                    wait: Wait::Wakeup,
                }
            }
            PrevState::Sleeping => State::Sleeping,
            PrevState::Blocked => State::Blocked,
            PrevState::Dead => State::Dead,
        };
        self.pending_waking = false;
        self.last_run_cpu = Some(cpu);
        self.enter(next, now, cpu, epoch);
        reason
    }

    /// `cpu` switched this task in at `now`. Returns whether that ended a wait that gives a
    /// sched delay sample (a timed wait, counted): the wait causes split exactly those.
    pub(crate) fn switch_in(&mut self, now: u64, cpu: u32, epoch: u32, scope: &Scope) -> bool {
        let counted = scope.counts(now, cpu);
        let mut sampled = false;
        match self.state {
            // Same CPU again without a switch-out (duplicate record): nothing changes.
            State::Running { cpu: c } if c == cpu => return false,
            State::Runnable { wait, .. } if counted => {
                sampled = wait != Wait::Untimed;
                let waited = now.saturating_sub(self.since);
                // A wakeup latency is sampled by `wakeup_ended` (as local or remote).
                if wait == Wait::Preempt {
                    self.samples.preemption_wait.push(waited, now);
                } else {
                    self.wakeup_ended(cpu, (wait == Wait::Wakeup).then_some((waited, now)));
                }
            }
            // Switched in without an observed wakeup: when it woke is not known, so the
            // whole interval is unknown rather than sleep.
            State::Sleeping | State::Blocked => self.state = State::Unknown,
            _ => {}
        }
        if counted {
            if let Some(prev) = self.last_run_cpu {
                self.affinity.count(PairKind::Slice, prev, cpu);
                if prev != cpu {
                    self.migrations += 1;
                }
            }
            if self.last_run_cpu != Some(cpu) {
                self.settled_slices = 0;
                self.settled_since = now;
            }
            self.settled_slices += 1;
        }
        self.close_interval(now, scope, EndReason::SwitchedIn);
        self.pending_waking = false;
        self.last_run_cpu = Some(cpu);
        self.enter(State::Running { cpu }, now, cpu, epoch);
        sampled
    }

    /// Placement and busy-target counts of a wakeup wait that ends on `cpu`.
    fn wakeup_ended(&mut self, cpu: u32, latency: Option<(u64, u64)>) {
        if let Some(prev) = self.last_run_cpu {
            self.affinity.count(PairKind::WakePrev, prev, cpu);
        }
        self.affinity.wakeup_ended(self.waker_cpu, cpu);
        if let Some((value, at)) = latency {
            self.samples
                .push_wakeup_latency(self.waker_cpu == cpu, value, at);
        }
        if self.target_busy {
            self.busy_target_wakeups += 1;
        }
    }

    /// A wakeup event for this task at `now` on `cpu`. `waking_trace` tells whether the
    /// trace has `sched_waking` (then a plain wakeup does not start a timed wait).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn wake(
        &mut self,
        kind: WakeKind,
        now: u64,
        cpu: u32,
        epoch: u32,
        target_cpu: i32,
        waker: i32,
        waking_trace: bool,
        scope: &Scope,
    ) -> WakeStart {
        match self.state {
            State::Running { .. } => {
                // waking of a task still on its CPU: it is about to sleep and will be
                // runnable the moment it leaves; a wakeup here means ttwu found it still
                // queued and it keeps running.
                self.pending_waking = kind == WakeKind::Waking;
                if self.pending_waking {
                    self.waker_cpu = cpu;
                }
                WakeStart::None
            }
            State::Runnable {
                ref mut rq_cpu,
                wait,
            } => {
                if kind != WakeKind::Waking && target_cpu >= 0 {
                    *rq_cpu = target_cpu;
                    if wait != Wait::Preempt {
                        // The enqueue of the wakeup whose waking started the wait.
                        self.wake_cpu = target_cpu;
                        self.wake_ts = now;
                    }
                }
                WakeStart::None
            }
            State::Unknown => {
                // Still unknown until the next observed switch (metrics.md §2).
                if scope.contains(now) {
                    self.wakeups += 1;
                }
                WakeStart::None
            }
            State::Unseen | State::Sleeping | State::Blocked | State::Dead => {
                let timed = match kind {
                    WakeKind::Waking | WakeKind::WakeupNew => true,
                    WakeKind::Wakeup => !waking_trace,
                };
                self.close_interval(now, scope, EndReason::Woken);
                if scope.contains(now) {
                    self.wakeups += 1;
                }
                self.waker = waker;
                self.waker_cpu = cpu;
                self.wake_cpu = target_cpu;
                self.wake_ts = now;
                self.target_busy = false;
                let wait = if timed { Wait::Wakeup } else { Wait::Untimed };
                self.enter(
                    State::Runnable {
                        rq_cpu: target_cpu,
                        wait,
                    },
                    now,
                    cpu,
                    epoch,
                );
                if timed {
                    WakeStart::Timed(kind)
                } else {
                    WakeStart::Untimed
                }
            }
        }
    }

    /// The task was moved to another runqueue.
    pub(crate) fn migrate(&mut self, dest_cpu: i32, counted: bool) {
        if counted {
            self.runqueue_moves += 1;
        }
        if let State::Runnable { ref mut rq_cpu, .. } = self.state {
            *rq_cpu = dest_cpu;
        }
    }

    /// Closes the open interval at the end of the trace window.
    pub(crate) fn finish(&mut self, end: u64, scope: &Scope) {
        self.close_interval(end, scope, EndReason::TraceEnd);
        self.since = end;
    }
}

/// The task table gives the fairness windows each task's fairness state by slot.
impl FairSlots for [Task] {
    fn fair(&self, slot: u32) -> &FairTask {
        &self[slot as usize].fair
    }

    fn fair_mut(&mut self, slot: u32) -> &mut FairTask {
        &mut self[slot as usize].fair
    }
}

/// How the timeline store records an interval of `state` (`None`: not an interval, the
/// time before a task's first transition).
fn interval_fields(state: State, waker: i32, end: EndReason) -> Option<Fields> {
    let (state, cpu, waker, untimed) = match state {
        State::Unseen => return None,
        State::Running { cpu } => (Some(ThreadState::Running), Some(cpu), None, false),
        State::Runnable { rq_cpu, wait } => {
            let cpu = u32::try_from(rq_cpu).ok();
            match wait {
                Wait::Preempt => (Some(ThreadState::RunnablePreempted), cpu, None, false),
                Wait::Wakeup | Wait::Untimed => (
                    Some(ThreadState::RunnableWakeup),
                    cpu,
                    (waker >= 0).then_some(waker),
                    wait == Wait::Untimed,
                ),
            }
        }
        State::Sleeping => (Some(ThreadState::Sleeping), None, None, false),
        State::Blocked => (Some(ThreadState::Blocked), None, None, false),
        State::Unknown => (Some(ThreadState::Unknown), None, None, false),
        State::Dead => (None, None, None, false),
    };
    Some(Fields {
        state,
        end,
        cpu,
        waker,
        untimed,
    })
}

#[cfg(test)]
mod tests {
    use crate::stream::{lost, other, switch, waking};
    use ingest::PrevState::{Runnable, Sleeping};

    /// Task 1 runs 100–300, sleeps to 400, waits 400–450 after its waking, runs to 700,
    /// is preempted and waits 700–760, runs to the end at 900.
    #[test]
    fn one_tasks_timeline() {
        let r = crate::analyze_stream(
            &[
                switch(100, 0, 0, Runnable, 1),
                switch(300, 0, 1, Sleeping, 0),
                waking(400, 0, 0, 1, 0),
                switch(450, 0, 0, Runnable, 1),
                switch(700, 0, 1, Runnable, 2),
                switch(760, 0, 2, Sleeping, 1),
                other(900, 0, 1),
            ],
            crate::Config::default(),
        );
        let t = r.tasks.iter().find(|t| t.pid == 1).unwrap();
        assert_eq!((t.runtime_ns, t.sleep_ns), (200 + 250 + 140, 100));
        // Complete slices only: the open one at the end counts in runtime, not in slices.
        assert_eq!((t.slices.count, t.slices.sum_ns), (2, 450));
        assert_eq!((t.switches.voluntary, t.switches.involuntary), (1, 1));
        assert_eq!((t.wakeup_latency.count, t.wakeup_latency.max_ns), (1, 50));
        assert_eq!((t.preemption_wait.count, t.preemption_wait.max_ns), (1, 60));
        assert_eq!(t.sched_delay.sum_ns, 110);
    }

    /// After lost events on its CPU the task is unknown until its next switch (§2).
    #[test]
    fn lost_events_make_the_running_task_unknown() {
        let r = crate::analyze_stream(
            &[
                switch(100, 0, 0, Runnable, 1),
                other(200, 0, 1),
                lost(300, 0, Some(4)),
                switch(500, 0, 1, Sleeping, 0),
            ],
            crate::Config::default(),
        );
        let t = r.tasks.iter().find(|t| t.pid == 1).unwrap();
        // Known to run until its last event before the loss (200), unknown from there.
        assert_eq!((t.runtime_ns, t.unknown_ns), (100, 300));
        assert_eq!(t.slices.count, 0);
    }
}
