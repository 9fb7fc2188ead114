//! Weighted fairness (`docs/metrics.md` §7): each competing task's fluid-share
//! entitlement, its fairness ratio and lag, Jain's index, and short-term Jain's index
//! over consecutive windows — all in the one pass.
//!
//! Entitlement uses a per-CPU virtual clock: `V` grows by `dt / W` where `W` is the sum
//! of the competing weights on that CPU, so a task that competed from `V_join` to `V_now`
//! with weight `w` is entitled to `w × (V_now − V_join)`. A change on a CPU costs O(1)
//! (advance `V`, adjust `W`), never a walk over the other competitors.
//!
//! Lag (entitlement − runtime) is monotone between the task's own transitions (it only
//! grows while the task waits and only shrinks while it runs, since `w / W ≤ 1`), so its
//! extremes are found by checking it at those transitions.

use crate::scope::Scope;

/// Where a task is, for the runqueue and fairness accounting: running on `cpu`, or
/// runnable on runqueue `cpu`, or neither (`cpu` -1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Presence {
    pub cpu: i32,
    pub running: bool,
}

impl Presence {
    pub const NONE: Presence = Presence {
        cpu: -1,
        running: false,
    };
}

/// The tasks' fairness state by slot. A trait rather than the task table itself, so that
/// this module does not depend on the task state machine that embeds its per-task part
/// (for cache locality, the hot fields of a task sit together).
pub(crate) trait FairSlots {
    fn fair(&self, slot: u32) -> &FairTask;
    fn fair_mut(&mut self, slot: u32) -> &mut FairTask;
}

/// The kernel's nice-to-weight table, `sched_prio_to_weight[]` in kernel/sched/core.c:
/// nice -20 .. 19, 1024 at nice 0, each step about 1.25×.
pub const SCHED_PRIO_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, // -20
    29154, 23254, 18705, 14949, 11916, // -15
    9548, 7620, 6100, 4904, 3906, // -10
    3121, 2501, 1991, 1586, 1277, // -5
    1024, 820, 655, 526, 423, // 0
    335, 272, 215, 172, 137, // 5
    110, 87, 70, 56, 45, // 10
    36, 29, 23, 18, 15, // 15
];

/// How a kernel's `prio` (as the sched tracepoints print it) maps to nice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PrioScale {
    /// Mainline CFS / EEVDF: 100..139 = nice -20..19, below 100 real-time.
    #[default]
    Mainline,
    /// Project C PDS: normal prios 152..191, nice 0 = 172 (`MIN_NORMAL_PRIO` 128 +
    /// `NORMAL_PRIO_NUM` 64 − 20); no dynamic adjustment (`MAX_PRIORITY_ADJ` 0).
    Pds,
    /// Project C BMQ: `prio = 120 + nice + boost`, boost in -7..7 and not traced. Taken
    /// at +7 (a CPU-bound task's penalty): exact for CPU hogs, too low a nice for
    /// interactive tasks. An approximation, said in the report.
    Bmq,
}

impl PrioScale {
    pub fn of_release(release: Option<&str>) -> PrioScale {
        let Some(r) = release.map(str::to_ascii_lowercase) else {
            return PrioScale::Mainline;
        };
        let words: Vec<&str> = r.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        if words.contains(&"pds") {
            PrioScale::Pds
        } else if words.contains(&"bmq") {
            PrioScale::Bmq
        } else {
            PrioScale::Mainline
        }
    }

    /// nice of a fair-class task, `None` for real-time, idle-class or unknown prios.
    pub fn nice(self, prio: i32) -> Option<i32> {
        match self {
            PrioScale::Mainline => (100..=139).contains(&prio).then(|| prio - 120),
            PrioScale::Pds => (152..=191).contains(&prio).then(|| prio - 172),
            PrioScale::Bmq => (100..=146)
                .contains(&prio)
                .then(|| (prio - 127).clamp(-20, 19)),
        }
    }

    /// Fairness weight of a task at `prio`; `None` = left out of fairness.
    pub fn weight(self, prio: i32) -> Option<u32> {
        self.nice(prio)
            .map(|n| SCHED_PRIO_TO_WEIGHT[(n + 20) as usize])
    }

    pub fn name(self) -> &'static str {
        match self {
            PrioScale::Mainline => "mainline (prio 100..139 = nice -20..19)",
            PrioScale::Pds => "PDS (prio 152..191 = nice -20..19)",
            PrioScale::Bmq => "BMQ (nice = prio - 127, boost assumed +7: approximate)",
        }
    }
}

/// Short-term fairness window lengths (metrics.md §7 defaults).
pub const WINDOWS_NS: [u64; 3] = [10_000_000, 100_000_000, 1_000_000_000];
/// The reported windows and one more for `--series` when its length is none of them.
const MAX_WINDOWS: usize = WINDOWS_NS.len() + 1;

/// Quiet stretches of up to this many windows are closed one window at a time (1000 s of
/// 10 ms windows, a fraction of a millisecond of work), longer ones in one arithmetic step:
/// the step gives the same index up to the last bit of a float sum, and the reports of
/// ordinary traces stay bit for bit what they were.
const STEADY_ONE_BY_ONE: u64 = 100_000;

/// One task's fairness accounting. `repr(C)`: what each transition touches first (see
/// [`Task`]), what only joining and leaving a CPU touch after.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct FairTask {
    /// Where it competes now (-1: nowhere) and with which weight.
    cpu: i32,
    weight: u32,
    running: bool,
    v_join: f64,
    run_since: u64,
    /// Service while competing, and entitlement, settled up to the last transition.
    pub run_ns: u64,
    pub ent_ns: f64,
    pub max_abs_lag_ns: f64,
    /// When the largest lag was reached (one of the task's transitions).
    pub max_abs_lag_at: u64,
    /// The weight it last competed with.
    pub last_weight: u32,
    run_at_join: u64,
    /// Per window length: (window id, run and entitlement at the window start).
    win: [(u32, u64, f64); MAX_WINDOWS],
    /// Per CPU (cpu, run, entitlement), for Jain's index per CPU.
    pub per_cpu: Vec<(u32, u64, f64)>,
}

impl Default for FairTask {
    fn default() -> FairTask {
        FairTask {
            cpu: -1,
            weight: 0,
            running: false,
            v_join: 0.0,
            run_since: 0,
            run_ns: 0,
            ent_ns: 0.0,
            max_abs_lag_ns: 0.0,
            max_abs_lag_at: 0,
            last_weight: 0,
            per_cpu: Vec::new(),
            run_at_join: 0,
            win: [(0, 0, 0.0); MAX_WINDOWS],
        }
    }
}

#[derive(Debug, Clone, Default)]
struct CpuClock {
    v: f64,
    weight_sum: u64,
    since: u64,
    /// The last reading `(now, v_at(now))` while `v`, `weight_sum` and `since` are
    /// unchanged: both sides of a preemption read the clock at the same time, and the
    /// division is the dearest part of a fairness update. `None` after any change.
    reading: Option<(u64, f64)>,
}

/// Time in `[a, b)` that counts on `cpu` (the `--time` window and `-C` selection).
fn span(scope: &Scope, cpu: u32, a: u64, b: u64) -> u64 {
    if scope.cpu(cpu) {
        scope.clip(a, b)
    } else {
        0
    }
}

impl CpuClock {
    fn v_at(&self, now: u64, cpu: u32, scope: &Scope) -> f64 {
        let dt = span(scope, cpu, self.since, now);
        // `v + 0 / W` is `v`: most calls come at the time of the clock's last change (the
        // other side of the same switch), and skip the division.
        if self.weight_sum == 0 || dt == 0 {
            return self.v;
        }
        match self.reading {
            Some((at, v)) if at == now => v,
            _ => self.v + dt as f64 / self.weight_sum as f64,
        }
    }

    /// [`CpuClock::v_at`], remembered for the next reading at the same time.
    fn read(&mut self, now: u64, cpu: u32, scope: &Scope) -> f64 {
        let v = self.v_at(now, cpu, scope);
        self.reading = Some((now, v));
        v
    }

    /// The clock reads `v` at `now`, and its weight changes by `delta` from there on.
    fn reset(&mut self, v: f64, now: u64, delta: i64) {
        self.v = v;
        self.since = now;
        self.weight_sum = self.weight_sum.wrapping_add_signed(delta);
        self.reading = None;
    }
}

/// Keeps the largest |lag| of `f` and when it was reached.
#[inline]
fn note_lag(f: &mut FairTask, lag: f64, now: u64) {
    if lag.abs() > f.max_abs_lag_ns {
        f.max_abs_lag_ns = lag.abs();
        f.max_abs_lag_at = now;
    }
}

/// Short-term Jain's index over consecutive windows of one length.
#[derive(Debug, Clone, Default)]
pub struct ShortTerm {
    pub len_ns: u64,
    end: u64,
    id: u32,
    members: Vec<u32>,
    pub sum: f64,
    pub count: u64,
    pub min: f64,
    /// `--series`: every closed window's end, Jain's index (None when it does not count)
    /// and each member's lag (entitlement − runtime, by task slot) at its end.
    pub record: Option<Vec<WindowRecord>>,
}

/// One closed short-term window, kept for `--series`.
#[derive(Debug, Clone, Default)]
pub struct WindowRecord {
    pub end_ns: u64,
    pub jain: Option<f64>,
    pub lags: Vec<(u32, f64)>,
}

/// The fairness state of the whole trace.
#[derive(Debug, Clone, Default)]
pub struct Fairness {
    pub scale: PrioScale,
    clocks: Vec<CpuClock>,
    pub short: Vec<ShortTerm>,
    started: bool,
    /// The earliest end of the current windows: [`Fairness::tick`] runs for every event,
    /// and has nothing to do before it.
    next_end: u64,
}

/// Jain's index of `xs`: (Σx)² / (n Σx²); `None` for no values (or all zero).
pub fn jain(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    (n > 0.0 && sq > 0.0).then(|| sum * sum / (n * sq))
}

/// [`Fairness::current`] for a task competing on a CPU whose virtual clock reads `v_now`.
fn current_at(f: &FairTask, v_now: f64, now: u64, scope: &Scope) -> (u64, f64) {
    let ent = f.ent_ns + f.weight as f64 * (v_now - f.v_join);
    let run = f.run_ns
        + if f.running {
            span(scope, f.cpu as u32, f.run_since, now)
        } else {
            0
        };
    (run, ent)
}

impl Fairness {
    pub fn new() -> Fairness {
        Fairness {
            short: WINDOWS_NS
                .iter()
                .map(|&len| ShortTerm {
                    len_ns: len,
                    min: f64::INFINITY,
                    ..ShortTerm::default()
                })
                .collect(),
            ..Fairness::default()
        }
    }

    /// Records every window of `len_ns` (one of [`WINDOWS_NS`], or an extra one that the
    /// report does not show) for `--series`; returns its index in `short`.
    pub fn record_windows(&mut self, len_ns: u64) -> usize {
        let k = match self.short.iter().position(|st| st.len_ns == len_ns) {
            Some(k) => k,
            None => {
                self.short.push(ShortTerm {
                    len_ns,
                    min: f64::INFINITY,
                    ..ShortTerm::default()
                });
                self.short.len() - 1
            }
        };
        self.short[k].record = Some(Vec::new());
        k
    }

    fn clock(&mut self, cpu: u32) -> &mut CpuClock {
        let i = cpu as usize;
        if self.clocks.len() <= i {
            self.clocks.resize(i + 1, CpuClock::default());
        }
        &mut self.clocks[i]
    }

    /// Entitlement and service of `f` at `now` without settling (`f` as of its last change).
    fn current(&self, f: &FairTask, now: u64, scope: &Scope) -> (u64, f64) {
        if f.cpu < 0 {
            return (f.run_ns, f.ent_ns);
        }
        let cpu = f.cpu as u32;
        let v_now = self.clocks[cpu as usize].v_at(now, cpu, scope);
        current_at(f, v_now, now, scope)
    }

    /// A task's presence changed from `old` to `new` at `now` (both with the weight it
    /// competes with, 0 = not competing). O(1) apart from the per-CPU list of the task.
    pub fn change(
        &mut self,
        slot: u32,
        f: &mut FairTask,
        new: Presence,
        weight: u32,
        now: u64,
        scope: &Scope,
    ) {
        let new_cpu = if weight > 0 { new.cpu } else { -1 };
        if f.cpu >= 0 && f.cpu == new_cpu && f.weight == weight {
            // Same CPU, same weight: only running <-> runnable.
            let cpu = f.cpu as u32;
            let v_now = self.clocks[cpu as usize].read(now, cpu, scope);
            let (run, ent) = current_at(f, v_now, now, scope);
            f.run_ns = run;
            f.run_since = now;
            // Entitlement stays lazy (v_join unchanged); lag checked on the unsettled value.
            note_lag(f, ent - run as f64, now);
            f.running = new.running;
            return;
        }
        if f.cpu >= 0 {
            let cpu = f.cpu as u32;
            let clock = &mut self.clocks[cpu as usize];
            // One reading of the clock settles both the task and the clock.
            let v_now = clock.v_at(now, cpu, scope);
            let (run, ent) = current_at(f, v_now, now, scope);
            clock.reset(v_now, now, -i64::from(f.weight));
            let d_ent = ent - f.ent_ns;
            let d_run = run - f.run_at_join;
            match f.per_cpu.iter_mut().rev().find(|e| e.0 == cpu) {
                Some(e) => {
                    e.1 += d_run;
                    e.2 += d_ent;
                }
                None => f.per_cpu.push((cpu, d_run, d_ent)),
            }
            f.run_ns = run;
            f.ent_ns = ent;
            note_lag(f, ent - run as f64, now);
            f.cpu = -1;
        }
        if new_cpu >= 0 {
            let cpu = new_cpu as u32;
            let clock = self.clock(cpu);
            let v_now = clock.v_at(now, cpu, scope);
            clock.reset(v_now, now, i64::from(weight));
            f.v_join = clock.v;
            f.cpu = new_cpu;
            f.weight = weight;
            f.last_weight = weight;
            f.running = new.running;
            f.run_since = now;
            f.run_at_join = f.run_ns;
            for (k, st) in self.short.iter_mut().enumerate() {
                if f.win[k].0 != st.id {
                    st.members.push(slot);
                    f.win[k] = (st.id, f.run_ns, f.ent_ns);
                }
            }
        }
    }

    /// Closes every short-term window that ended at or before `now` (call before
    /// processing an event at `now`). The first window starts at `origin`.
    pub fn tick(
        &mut self,
        now: u64,
        origin: u64,
        tasks: &mut (impl FairSlots + ?Sized),
        scope: &Scope,
    ) {
        if now < self.next_end {
            return;
        }
        if !self.started {
            self.started = true;
            for st in &mut self.short {
                st.end = origin.saturating_add(st.len_ns);
                st.id = 1;
            }
        }
        for k in 0..self.short.len() {
            // A window that would end past u64::MAX never closes (it is the last, open one).
            while now >= self.short[k].end && self.short[k].end != u64::MAX {
                // The window holding the latest events.
                self.close_window(k, 1, tasks, scope);
                let st = &self.short[k];
                if now < st.end || st.end == u64::MAX {
                    continue;
                }
                // Every window from here to the one holding `now` saw no event: the same tasks
                // compete at the same rates in each, so all of them have one outcome. They are
                // closed as one arithmetic step, so a time jump of any size costs O(tasks).
                let steady = (now - st.end) / st.len_ns + 1;
                if steady <= STEADY_ONE_BY_ONE && !st.members.is_empty() {
                    // A short quiet stretch: one by one, the same float sums as ever.
                    continue;
                }
                if st.members.is_empty() {
                    let st = &mut self.short[k];
                    st.end = st.end.saturating_add(steady.saturating_mul(st.len_ns));
                    st.id = st.id.wrapping_add(steady as u32);
                } else {
                    self.close_window(k, steady, tasks, scope);
                }
            }
        }
        self.next_end = self.short.iter().map(|st| st.end).min().unwrap_or(u64::MAX);
    }

    /// Closes the current window of length `k` and, with `repeat > 1`, the `repeat - 1` windows
    /// after it, which must hold no event (then every one of them has the first one's ratios).
    fn close_window(
        &mut self,
        k: usize,
        repeat: u64,
        tasks: &mut (impl FairSlots + ?Sized),
        scope: &Scope,
    ) {
        let first = self.short[k].end;
        let len = self.short[k].len_ns;
        let boundary = first.saturating_add((repeat - 1).saturating_mul(len));
        let members = std::mem::take(&mut self.short[k].members);
        let st_id = self.short[k].id;
        let next_id = st_id.wrapping_add(repeat as u32);
        let mut ratios = Vec::with_capacity(members.len());
        let mut kept = Vec::with_capacity(members.len());
        let recording = self.short[k].record.is_some();
        let mut lags = Vec::new();
        for slot in members {
            let f = tasks.fair(slot);
            let (run, ent) = self.current(f, first, scope);
            if recording {
                lags.push((slot, ent - run as f64));
            }
            let (_, run0, ent0) = f.win[k];
            let d_ent = ent - ent0;
            if d_ent > 0.0 {
                ratios.push((run - run0) as f64 / d_ent);
            }
            let at_end = if repeat > 1 {
                self.current(f, boundary, scope)
            } else {
                (run, ent)
            };
            let f = tasks.fair_mut(slot);
            if f.cpu >= 0 {
                // Still competing: a member of the next window from its boundary on.
                f.win[k] = (next_id, at_end.0, at_end.1);
                kept.push(slot);
            } else {
                // Not competing at the boundary: it is not a member of the next window. Its
                // window id stays the closed one's, so that joining again during the next
                // window makes it a member (with the id of the next window it would never
                // be added again while it only alternates running <-> runnable on one CPU).
                f.win[k] = (st_id, at_end.0, at_end.1);
            }
        }
        let st = &mut self.short[k];
        st.members = kept;
        st.id = next_id;
        st.end = boundary.saturating_add(len);
        // Windows are counted while they end inside `--time` (they all start inside it) —
        // `boundary <= scope.end`. A window with a single competitor is trivially fair: not
        // counted.
        let in_scope = if first > scope.end || !scope.contains(first - 1) {
            0
        } else {
            repeat.min((scope.end - first) / len + 1)
        };
        let counted = (ratios.len() >= 2 && in_scope > 0)
            .then(|| jain(&ratios))
            .flatten();
        if let Some(j) = counted {
            st.sum += j * in_scope as f64;
            st.count += in_scope;
            st.min = st.min.min(j);
        }
        if let Some(record) = &mut st.record {
            // A quiet stretch closed in one step (a time jump) is recorded once, at its
            // last boundary: its windows all have the first one's outcome.
            record.push(WindowRecord {
                end_ns: boundary,
                jain: counted,
                lags,
            });
        }
    }
}

mod report;

pub(crate) use report::{jain_per_cpu, merge, task_row};
pub use report::{ShortTermFairness, SystemFairness, TaskFairness};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{ev, named, other, switch_named};
    use ingest::{EventKind, PrevState, TaskRef};

    #[test]
    fn weights_follow_each_kernels_prio_scale() {
        assert_eq!(PrioScale::Mainline.weight(120), Some(1024));
        assert_eq!(PrioScale::Mainline.weight(125), Some(335));
        assert_eq!(PrioScale::Mainline.weight(99), None, "real-time");
        assert_eq!(PrioScale::Pds.weight(172), Some(1024));
        assert_eq!(PrioScale::Bmq.weight(127), Some(1024), "boost +7 assumed");
        assert_eq!(
            PrioScale::of_release(Some("6.1.192-prjc-pds")),
            PrioScale::Pds
        );
    }

    #[test]
    fn jain_of_equal_shares_is_one_and_falls_with_spread() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), Some(1.0));
        // (1 + 3)^2 / (2 × (1 + 9)) = 16 / 20
        assert_eq!(jain(&[1.0, 3.0]), Some(0.8));
        assert_eq!(jain(&[]), None);
    }

    /// A nice 0 and a nice 5 task share CPU 0 for 20 ms, 10 ms each: the fluid share
    /// entitles them to 20 × 1024/1359 and 20 × 335/1359 ms.
    #[test]
    fn entitlement_follows_the_weights() {
        let t0 = 1_000;
        let ms = 1_000_000;
        let a = named(10, "nice0");
        let b = TaskRef {
            prio: 125,
            ..named(11, "nice5")
        };
        let idle = named(0, "swapper");
        let events = [
            switch_named(t0, 0, idle, PrevState::Runnable, a),
            ev(
                t0,
                0,
                10,
                EventKind::Waking {
                    task: b,
                    target_cpu: 0,
                },
            ),
            switch_named(t0 + 10 * ms, 0, a, PrevState::Runnable, b),
            other(t0 + 20 * ms, 0, 11),
        ];
        let r = crate::analyze_stream(&events, crate::Config::default());
        let row = |pid| r.tasks.iter().find(|t| t.pid == pid).unwrap();
        let fa = row(10).fairness.unwrap();
        let fb = row(11).fairness.unwrap();
        assert_eq!((fa.weight, fb.weight), (1024, 335));
        assert!((fa.entitlement_ns - 20e6 * 1024.0 / 1359.0).abs() < 1e-3);
        assert!((fb.entitlement_ns - 20e6 * 335.0 / 1359.0).abs() < 1e-3);
        assert!((fa.ratio.unwrap() - 1359.0 / 2048.0).abs() < 1e-12);
        assert!((fb.ratio.unwrap() - 1359.0 / 670.0).abs() < 1e-12);
        // The lag is largest at the end: A is owed 15.07 - 10 ms, B over-served by as much.
        let lag = 20e6 * 1024.0 / 1359.0 - 10e6;
        assert!((fa.max_abs_lag_ns - lag).abs() < 1e-3);
        assert!((r.system.fairness.max_abs_lag_ns - lag).abs() < 1e-3);
        let j = jain(&[1359.0 / 2048.0, 1359.0 / 670.0]).unwrap();
        assert!((r.system.fairness.jain.unwrap() - j).abs() < 1e-12);
    }

    #[test]
    fn a_group_is_its_total_runtime_over_its_total_entitlement() {
        let mut g = None;
        let member = |run: u64, ent: f64, lag: f64, at: u64| TaskFairness {
            weight: 1024,
            entitlement_ns: ent,
            runtime_ns: run,
            ratio: Some(run as f64 / ent),
            max_abs_lag_ns: lag,
            max_abs_lag_at_ns: Some(at),
        };
        merge(&mut g, &member(30, 40.0, 5.0, 7));
        merge(&mut g, &member(50, 40.0, 9.0, 3));
        merge(&mut g, &member(50, 40.0, 2.0, 1));
        let g = g.unwrap();
        // The largest lag, with its time; the ratio over the totals.
        assert_eq!(
            (
                g.runtime_ns,
                g.entitlement_ns,
                g.ratio,
                g.max_abs_lag_ns,
                g.max_abs_lag_at_ns
            ),
            (130, 120.0, Some(130.0 / 120.0), 9.0, Some(3))
        );
    }

    /// The short-term Jain bug of issue #10 in miniature: task 20 is not competing at the
    /// 10 ms boundary (it sleeps 2..12 ms), joins again at 12 ms, and from then on only
    /// alternates running <-> runnable with task 10 on cpu0 every ms until 60 ms. Every
    /// one of the six 10 ms windows has both tasks competing with some entitlement, so
    /// all six count. Before the fix task 20 was never a member again: 1 window.
    #[test]
    fn a_task_off_the_cpus_at_a_boundary_competes_again_in_later_windows() {
        use crate::stream::{switch, waking};
        use PrevState::{Runnable, Sleeping};
        const MS: u64 = 1_000_000;
        let mut events = vec![
            waking(0, 0, 0, 10, 0),
            waking(0, 0, 0, 20, 0),
            switch(MS, 0, 0, Runnable, 20),
            switch(2 * MS, 0, 20, Sleeping, 10),
            waking(12 * MS, 0, 10, 20, 0),
            switch(13 * MS, 0, 10, Runnable, 20),
        ];
        for i in 14..=60u64 {
            let (prev, next) = if i % 2 == 0 { (20, 10) } else { (10, 20) };
            events.push(switch(i * MS, 0, prev, Runnable, next));
        }
        let report = crate::analyze_stream(&events, crate::Config::default());
        let short = &report.system.fairness.short_term[0];
        assert_eq!(short.window_ns, 10 * MS);
        assert_eq!(short.windows, 6);
        // 0..10 ms: both compete until 20 sleeps at 2 ms (1 ms entitlement each), then 10
        // alone: 10 ran 8 of 9 ms, 20 ran 1 of 1 ms; Jain (8/9, 1) = 289/290. 10..60 ms:
        // every task ran exactly its entitlement (10 alone 10..12 ms, then 1 ms turns): 1.
        let first = 289.0 / 290.0;
        assert!((short.min.unwrap() - first).abs() < 1e-12, "{short:?}");
        assert!((short.mean.unwrap() - (first + 5.0) / 6.0).abs() < 1e-12);
    }

    /// `--series` records every window of its length, with the members' lags, without
    /// adding a window length to the report.
    #[test]
    fn series_windows_are_recorded_and_not_reported() {
        let mut f = Fairness::new();
        assert_eq!(f.record_windows(10_000_000), 0);
        assert_eq!(f.record_windows(5_000_000), 3);
        assert_eq!(f.short.len(), 4);
        let summary = f.summary(std::iter::empty(), String::new());
        assert_eq!(summary.short_term.len(), 3);
    }
}
