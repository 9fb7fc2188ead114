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
//!
//! Here the per-task and per-CPU accounting; the weights in `prio`, the short-term windows
//! in `windows`, the report's fields in `report`.

use crate::scope::Scope;

/// Where a task is, for the runqueue and fairness accounting: running on `cpu`, or
/// runnable on runqueue `cpu`, or neither (`cpu` -1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Presence {
    pub(crate) cpu: i32,
    pub(crate) running: bool,
}

impl Presence {
    pub(crate) const NONE: Presence = Presence {
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

/// Short-term fairness window lengths (metrics.md §7 defaults).
pub(crate) const WINDOWS_NS: [u64; 3] = [10_000_000, 100_000_000, 1_000_000_000];
/// The reported windows and one more for `--series` when its length is none of them.
const MAX_WINDOWS: usize = WINDOWS_NS.len() + 1;

/// One task's fairness accounting. `repr(C)`: what each transition touches first (see
/// [`Task`]), what only joining and leaving a CPU touch after.
#[derive(Debug, Clone)]
#[repr(C)]
pub(crate) struct FairTask {
    /// Where it competes now (-1: nowhere) and with which weight.
    cpu: i32,
    weight: u32,
    running: bool,
    v_join: f64,
    run_since: u64,
    /// Service while competing, and entitlement, settled up to the last transition.
    pub(crate) run_ns: u64,
    pub(crate) ent_ns: f64,
    max_abs_lag_ns: f64,
    /// When the largest lag was reached (one of the task's transitions).
    max_abs_lag_at: u64,
    /// The weight it last competed with.
    last_weight: u32,
    run_at_join: u64,
    /// Per window length: (window id, run and entitlement at the window start).
    win: [(u32, u64, f64); MAX_WINDOWS],
    /// Per CPU (cpu, run, entitlement), for Jain's index per CPU.
    per_cpu: Vec<(u32, u64, f64)>,
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
    /// `weight_sum as f64`, converted once per change rather than at every reading.
    weight_sum_f: f64,
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
            _ => self.v + dt as f64 / self.weight_sum_f,
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
        self.weight_sum_f = self.weight_sum as f64;
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

/// The fairness state of the whole trace.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fairness {
    pub(crate) scale: PrioScale,
    clocks: Vec<CpuClock>,
    pub(crate) short: Vec<ShortTerm>,
    started: bool,
    /// The earliest end of the current windows: [`Fairness::tick`] runs for every event,
    /// and has nothing to do before it.
    next_end: u64,
}

/// Jain's index of `xs`: (Σx)² / (n Σx²); `None` for no values (or all zero).
pub(crate) fn jain(xs: &[f64]) -> Option<f64> {
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
    pub(crate) fn new() -> Fairness {
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
    pub(crate) fn record_windows(&mut self, len_ns: u64) -> usize {
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
    ///
    /// Inlined into the caller, with [`Fairness::rejoin`] (joining and leaving a CPU, at
    /// nearly every sleep and wakeup: about half the calls), so that no case pays a call.
    /// `always`: the plain hint was once dropped by LLVM after an unrelated change of
    /// visibilities, which cost ~1 % of the analyzer's instructions.
    #[inline(always)]
    pub(crate) fn change(
        &mut self,
        slot: u32,
        f: &mut FairTask,
        new: Presence,
        weight: u32,
        now: u64,
        scope: &Scope,
    ) {
        let new_cpu = if weight > 0 { new.cpu } else { -1 };
        if f.cpu < 0 && new_cpu < 0 {
            // Not competing before nor after: nothing to settle (the weight it last
            // competed with stays).
            return;
        }
        if f.cpu == new_cpu && f.weight == weight {
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
        self.rejoin(slot, f, new_cpu, new.running, weight, now, scope);
    }

    /// [`Fairness::change`] when the task leaves its CPU, joins one, or changes weight:
    /// settles it on the CPU it leaves (if any), then joins `new_cpu` (if any, -1: none).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn rejoin(
        &mut self,
        slot: u32,
        f: &mut FairTask,
        new_cpu: i32,
        running: bool,
        weight: u32,
        now: u64,
        scope: &Scope,
    ) {
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
            f.running = running;
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
}

mod prio;
mod report;
mod windows;

pub use prio::PrioScale;
pub(crate) use report::{jain_per_cpu, merge, task_row};
pub use report::{ShortTermFairness, SystemFairness, TaskFairness};
pub(crate) use windows::{ShortTerm, WindowRecord};

#[cfg(test)]
mod tests;
