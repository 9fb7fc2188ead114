//! The byte form of one interval in a task's log: 1 header byte, then LEB128 varints.
//!
//! The store holds tens of millions of intervals (28 M for a 23 M-event trace), so each one
//! is written in as few bytes as its values need (3–5 on real traces, against 16 for a
//! fixed layout):
//!
//! - a task's intervals are contiguous (each transition ends one state and starts the next
//!   at the same instant), so no start is written: an interval starts where the one before
//!   it ended ([`Context::start_ns`]), and only its duration is stored;
//! - the CPU is written only when it differs from the one implied: for running and
//!   runnable intervals the task's last CPU, for the others none;
//! - waker and "untimed" are written only when present (runnable after a wakeup).
//!
//! Header bits, low to high: state (3; 7 is a gap), end reason (3), CPU written (1), waker
//! word written (1). Then, in this order: the duration, the CPU + 1 (0 = none) if written,
//! and the waker word `(waker + 1) << 1 | untimed` (waker + 1 = 0: none) if written.
//!
//! Hand-written rather than a varint crate: the hot path appends to our own `Vec<u8>` and
//! decodes from a slice with a cursor, which is a dozen lines; the crates' `io::Write` or
//! fixed-buffer APIs would add a copy per value.

use super::{EndReason, Fields, IntervalView, SwitchReason, ThreadState};

const STATE_MASK: u8 = 0b111;
const GAP: u8 = 7;
const END_SHIFT: u32 = 3;
const CPU_WRITTEN: u8 = 1 << 6;
const WAKER_WRITTEN: u8 = 1 << 7;

/// Where the next interval starts, and the CPU a running or runnable interval has when its
/// header says none is written. The writer and the reader advance it the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Context {
    pub(super) start_ns: u64,
    pub(super) cpu: Option<u32>,
}

impl Context {
    pub(super) fn at(start_ns: u64) -> Context {
        Context {
            start_ns,
            cpu: None,
        }
    }

    /// The CPU an interval of state `code` has unless one is written.
    fn implied_cpu(&self, code: u8) -> Option<u32> {
        // Running, runnable after a wakeup, runnable after a preemption.
        if code <= 2 {
            self.cpu
        } else {
            None
        }
    }

    fn advance(&mut self, dur_ns: u64, cpu: Option<u32>) {
        self.start_ns += dur_ns;
        if cpu.is_some() {
            self.cpu = cpu;
        }
    }
}

fn state_code(s: Option<ThreadState>) -> u8 {
    match s {
        Some(ThreadState::Running) => 0,
        Some(ThreadState::RunnableWakeup) => 1,
        Some(ThreadState::RunnablePreempted) => 2,
        Some(ThreadState::Sleeping) => 3,
        Some(ThreadState::Blocked) => 4,
        Some(ThreadState::Unknown) => 5,
        None => GAP,
    }
}

fn state_of(code: u8) -> Option<ThreadState> {
    Some(match code {
        0 => ThreadState::Running,
        1 => ThreadState::RunnableWakeup,
        2 => ThreadState::RunnablePreempted,
        3 => ThreadState::Sleeping,
        4 => ThreadState::Blocked,
        5 => ThreadState::Unknown,
        _ => return None,
    })
}

fn end_code(e: EndReason) -> u8 {
    match e {
        EndReason::SwitchedIn => 0,
        EndReason::SwitchedOut(r) => 1 + r.index() as u8,
        EndReason::Woken => 5,
        EndReason::LostTrack => 6,
        EndReason::TraceEnd => 7,
    }
}

fn end_of(code: u8) -> EndReason {
    match code {
        0 => EndReason::SwitchedIn,
        c @ 1..=4 => EndReason::SwitchedOut(SwitchReason::ALL[c as usize - 1]),
        5 => EndReason::Woken,
        6 => EndReason::LostTrack,
        _ => EndReason::TraceEnd,
    }
}

#[inline]
fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at `*pos`. The bytes are the store's own, written by [`put`], so a
/// truncated varint is a bug here, not bad input.
#[inline]
fn get(bytes: &[u8], pos: &mut usize) -> u64 {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = bytes[*pos];
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// Appends the interval of `dur_ns` starting at `ctx.start_ns`, and moves `ctx` past it.
#[inline]
pub(super) fn write(out: &mut Vec<u8>, ctx: &mut Context, dur_ns: u64, f: &Fields) {
    let code = state_code(f.state);
    let cpu_written = f.cpu != ctx.implied_cpu(code);
    let waker = f.waker.filter(|&w| w >= 0);
    let waker_written = waker.is_some() || f.untimed;
    let mut header = code | end_code(f.end) << END_SHIFT;
    if cpu_written {
        header |= CPU_WRITTEN;
    }
    if waker_written {
        header |= WAKER_WRITTEN;
    }
    out.push(header);
    put(out, dur_ns);
    if cpu_written {
        put(out, f.cpu.map_or(0, |c| u64::from(c) + 1));
    }
    if waker_written {
        let w = waker.map_or(0, |w| w as u64 + 1);
        put(out, w << 1 | u64::from(f.untimed));
    }
    ctx.advance(dur_ns, f.cpu);
}

/// The interval at `*pos` (starting at `ctx.start_ns`), `None` for a gap; moves `*pos` and
/// `ctx` past it.
#[inline]
pub(super) fn read(bytes: &[u8], pos: &mut usize, ctx: &mut Context) -> Option<IntervalView> {
    let header = bytes[*pos];
    *pos += 1;
    let code = header & STATE_MASK;
    let dur_ns = get(bytes, pos);
    let cpu = if header & CPU_WRITTEN != 0 {
        get(bytes, pos).checked_sub(1).map(|c| c as u32)
    } else {
        ctx.implied_cpu(code)
    };
    let (waker, untimed) = if header & WAKER_WRITTEN != 0 {
        let w = get(bytes, pos);
        ((w >> 1).checked_sub(1).map(|w| w as i32), w & 1 == 1)
    } else {
        (None, false)
    };
    let start_ns = ctx.start_ns;
    ctx.advance(dur_ns, cpu);
    Some(IntervalView {
        start_ns,
        dur_ns,
        state: state_of(code)?,
        cpu,
        end: end_of(header >> END_SHIFT & 0b111),
        waker_pid: waker,
        latency_timed: !untimed,
    })
}

/// The view [`read`] gives of the interval `write` makes of `f` (`None`: a gap), without
/// the bytes: what a drained log keeps.
#[inline]
pub(super) fn view(start_ns: u64, dur_ns: u64, f: &Fields) -> Option<IntervalView> {
    Some(IntervalView {
        start_ns,
        dur_ns,
        state: f.state?,
        cpu: f.cpu,
        end: f.end,
        waker_pid: f.waker.filter(|&w| w >= 0),
        latency_timed: !f.untimed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(state: Option<ThreadState>, end: EndReason, cpu: Option<u32>) -> Fields {
        Fields {
            state,
            end,
            cpu,
            waker: None,
            untimed: false,
        }
    }

    #[test]
    fn varints_round_trip_at_every_length_edge() {
        let mut values = vec![0, 1, 0x7f, 0x80, 0x3fff, 0x4000, u64::MAX - 1, u64::MAX];
        values.extend((1..64).map(|b| 1u64 << b));
        values.extend((1..64).map(|b| (1u64 << b) - 1));
        let mut out = Vec::new();
        for &v in &values {
            put(&mut out, v);
        }
        // 0..=127 take one byte, u64::MAX ten.
        let mut one = Vec::new();
        put(&mut one, 0x7f);
        put(&mut one, u64::MAX);
        assert_eq!(one.len(), 1 + 10);
        let mut pos = 0;
        for &v in &values {
            assert_eq!(get(&out, &mut pos), v);
        }
        assert_eq!(pos, out.len());
    }

    #[test]
    fn every_field_survives_and_the_implied_cpu_costs_nothing() {
        use EndReason::*;
        use ThreadState::*;
        let cases = [
            // The first running interval writes its CPU (none is implied yet).
            (
                fields(
                    Some(Running),
                    SwitchedOut(SwitchReason::WakeupPreempt),
                    Some(3),
                ),
                0,
                3,
            ),
            // Runnable on the same CPU: implied. Waker 0 (an interrupt) and untimed written.
            (
                Fields {
                    waker: Some(0),
                    untimed: true,
                    ..fields(Some(RunnablePreempted), SwitchedIn, Some(3))
                },
                1,
                3,
            ),
            (
                Fields {
                    waker: Some(i32::MAX),
                    ..fields(Some(RunnableWakeup), SwitchedIn, Some(3))
                },
                u64::from(u32::MAX),
                1 + 5 + 5,
            ),
            // A negative waker is none; a wakeup with no waker writes no waker word.
            (
                Fields {
                    waker: Some(-4),
                    ..fields(Some(RunnableWakeup), LostTrack, Some(3))
                },
                7,
                2,
            ),
            // Sleeping has no CPU: none implied, none written.
            (fields(Some(Sleeping), Woken, None), 0x80, 3),
            // A CPU where none is implied is written, and the largest CPU number survives.
            (fields(Some(Blocked), Woken, Some(u32::MAX)), 1, 2 + 5),
            // A running interval without a CPU is written as none.
            (fields(Some(Running), TraceEnd, None), 2, 3),
            // After it, the last CPU known is still the implied one.
            (
                fields(Some(RunnableWakeup), SwitchedIn, Some(u32::MAX)),
                5,
                2,
            ),
            (fields(Some(Unknown), TraceEnd, None), 1 << 40, 1 + 6),
            (
                fields(Some(Running), SwitchedOut(SwitchReason::Exit), Some(16_382)),
                0,
                1 + 1 + 2,
            ),
        ];
        let start = u64::MAX - (1 << 41);
        let mut out = Vec::new();
        let mut ctx = Context::at(start);
        for (f, dur, bytes) in &cases {
            let before = out.len();
            write(&mut out, &mut ctx, *dur, f);
            assert_eq!(out.len() - before, *bytes, "{f:?}");
        }
        let (mut pos, mut rctx, mut t) = (0, Context::at(start), start);
        for (f, dur, _) in &cases {
            let v = read(&out, &mut pos, &mut rctx).unwrap();
            // What a drained log keeps without the bytes is what they read back as.
            assert_eq!(view(t, *dur, f), Some(v), "{f:?}");
            let waker = f.waker.filter(|&w| w >= 0);
            assert_eq!(
                (
                    v.start_ns,
                    v.dur_ns,
                    Some(v.state),
                    v.end,
                    v.cpu,
                    v.waker_pid,
                    v.latency_timed
                ),
                (t, *dur, f.state, f.end, f.cpu, waker, !f.untimed)
            );
            t += dur;
        }
        assert_eq!((pos, rctx, ctx.start_ns), (out.len(), ctx, t));
    }

    #[test]
    fn a_gap_reads_as_none_and_still_moves_the_start() {
        let mut out = Vec::new();
        let mut ctx = Context::at(10);
        write(&mut out, &mut ctx, 5, &fields(None, EndReason::Woken, None));
        let zero = fields(Some(ThreadState::Sleeping), EndReason::Woken, None);
        write(&mut out, &mut ctx, 0, &zero);
        let (mut pos, mut rctx) = (0, Context::at(10));
        assert_eq!(read(&out, &mut pos, &mut rctx), None);
        assert_eq!(view(10, 5, &fields(None, EndReason::Woken, None)), None);
        let v = read(&out, &mut pos, &mut rctx).unwrap();
        assert_eq!(
            (v.start_ns, v.dur_ns, v.state),
            (15, 0, ThreadState::Sleeping)
        );
    }
}
