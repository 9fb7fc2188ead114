//! One task's intervals (the analysis' timeline store) cut into bursts and blocks.
//!
//! Running time accumulates into the current burst until a blocking switch-out (or exit,
//! lost track, trace end) closes it; sleeping time accumulates into the current block until
//! a wakeup. A runnable wait is the kernel's latency, not demand, and is dropped. Every
//! running interval lands in exactly one burst, so the bursts sum to the analysis' runtime.
//! Who woke a block is kept as a pid and a time here: which burst of the waker that was is
//! resolved once every task is cut ([`crate::extract`]), through the [`RunPiece`]s.

use analysis::timeline_store::{EndReason, IntervalView, ThreadState};
use analysis::SwitchReason;
use std::collections::BTreeMap;

/// A block whose waker is not resolved yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OpenBlock {
    pub(crate) ns: u64,
    /// The waking task (0: an interrupt on an idle CPU); None: not known.
    pub(crate) waker: Option<i32>,
    /// When the wakeup happened.
    pub(crate) at_ns: u64,
    /// Ended by lost track rather than a wakeup.
    pub(crate) lost: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    Burst(u64),
    Block(OpenBlock),
}

/// One running interval: which burst it belongs to and how much of that burst ran before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunPiece {
    pub(crate) start_ns: u64,
    pub(crate) end_ns: u64,
    pub(crate) burst: u32,
    pub(crate) into_ns: u64,
    /// Where it ran, when the trace says.
    pub(crate) cpu: Option<u32>,
    /// This interval closed its burst.
    pub(crate) ends_burst: bool,
}

/// How the intervals ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    Exit(u64),
    Running,
    Asleep,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segmented {
    pub(crate) pieces: Vec<Piece>,
    pub(crate) runs: Vec<RunPiece>,
    pub(crate) start_ns: u64,
    pub(crate) first_ns: u64,
    pub(crate) last_ns: u64,
    pub(crate) ending: Ending,
    pub(crate) runtime_ns: u64,
    /// Running time per CPU.
    pub(crate) cpus: BTreeMap<u32, u64>,
}

enum State {
    /// Nothing known yet (or only unknown time).
    Before,
    /// Running or runnable: `acc` of CPU time so far in this burst.
    Burst {
        acc: u64,
    },
    Block(OpenBlock),
}

/// Cuts `intervals` (one task's, in time order).
pub(crate) fn segment(intervals: impl Iterator<Item = IntervalView>) -> Segmented {
    let mut s = Segmented {
        pieces: Vec::new(),
        runs: Vec::new(),
        start_ns: u64::MAX,
        first_ns: u64::MAX,
        last_ns: 0,
        ending: Ending::Asleep,
        runtime_ns: 0,
        cpus: BTreeMap::new(),
    };
    let mut state = State::Before;
    let mut bursts = 0u32;
    for v in intervals {
        s.first_ns = s.first_ns.min(v.start_ns);
        s.last_ns = s.last_ns.max(v.end_ns());
        match v.state {
            ThreadState::Running => {
                let acc = match state {
                    State::Burst { acc } => acc,
                    State::Block(b) => {
                        s.pieces.push(Piece::Block(b));
                        0
                    }
                    State::Before => 0,
                };
                s.start_ns = s.start_ns.min(v.start_ns);
                s.runtime_ns += v.dur_ns;
                if let Some(cpu) = v.cpu {
                    *s.cpus.entry(cpu).or_default() += v.dur_ns;
                }
                let closes = !matches!(
                    v.end,
                    EndReason::SwitchedOut(SwitchReason::Preempt | SwitchReason::WakeupPreempt)
                        | EndReason::SwitchedIn
                        | EndReason::Woken
                );
                s.runs.push(RunPiece {
                    start_ns: v.start_ns,
                    end_ns: v.end_ns(),
                    burst: bursts,
                    into_ns: acc,
                    cpu: v.cpu,
                    ends_burst: closes,
                });
                let acc = acc + v.dur_ns;
                state = State::Burst { acc };
                if closes {
                    s.pieces.push(Piece::Burst(acc));
                    bursts += 1;
                    state = match v.end {
                        EndReason::SwitchedOut(SwitchReason::Exit) => {
                            s.ending = Ending::Exit(v.end_ns());
                            State::Before
                        }
                        EndReason::TraceEnd => {
                            s.ending = Ending::Running;
                            State::Before
                        }
                        EndReason::LostTrack => State::Block(OpenBlock {
                            ns: 0,
                            waker: None,
                            at_ns: v.end_ns(),
                            lost: true,
                        }),
                        _ => State::Block(OpenBlock {
                            ns: 0,
                            waker: None,
                            at_ns: v.end_ns(),
                            lost: false,
                        }),
                    };
                }
            }
            ThreadState::Sleeping | ThreadState::Blocked | ThreadState::Unknown => {
                let unknown = v.state == ThreadState::Unknown;
                state = match state {
                    State::Block(mut b) => {
                        b.ns += v.dur_ns;
                        b.lost |= unknown;
                        State::Block(b)
                    }
                    // Unknown time before anything is known says nothing.
                    State::Before if unknown => State::Before,
                    State::Before => {
                        s.start_ns = s.start_ns.min(v.start_ns);
                        State::Block(OpenBlock {
                            ns: v.dur_ns,
                            waker: None,
                            at_ns: v.end_ns(),
                            lost: false,
                        })
                    }
                    // Off the CPU in the middle of a burst without a switch-out: the state
                    // was lost, the burst ends here.
                    State::Burst { acc } => {
                        if acc > 0 {
                            s.pieces.push(Piece::Burst(acc));
                            if let Some(last) = s.runs.last_mut() {
                                last.ends_burst = true;
                            }
                            bursts += 1;
                        }
                        State::Block(OpenBlock {
                            ns: v.dur_ns,
                            waker: None,
                            at_ns: v.end_ns(),
                            lost: true,
                        })
                    }
                };
                if s.ending == Ending::Running {
                    s.ending = Ending::Asleep;
                }
            }
            ThreadState::RunnableWakeup | ThreadState::RunnablePreempted => {
                s.start_ns = s.start_ns.min(v.start_ns);
                state = match state {
                    State::Block(mut b) => {
                        b.waker = v.waker_pid;
                        b.at_ns = v.start_ns;
                        s.pieces.push(Piece::Block(b));
                        State::Burst { acc: 0 }
                    }
                    State::Before => State::Burst { acc: 0 },
                    burst => burst,
                };
                if v.end == EndReason::TraceEnd {
                    s.ending = Ending::Running;
                }
            }
        }
    }
    // A burst still open (runnable at the end after running): it ran, so it counts.
    if let State::Burst { acc } = state {
        if acc > 0 {
            s.pieces.push(Piece::Burst(acc));
        }
        if !matches!(s.ending, Ending::Exit(_)) {
            s.ending = Ending::Running;
        }
    }
    if s.start_ns == u64::MAX {
        s.start_ns = s.first_ns;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use EndReason::*;
    use ThreadState::*;

    fn iv(start_ns: u64, dur_ns: u64, state: ThreadState, end: EndReason) -> IntervalView {
        IntervalView {
            start_ns,
            dur_ns,
            state,
            cpu: (state == Running).then_some(2),
            end,
            waker_pid: None,
            latency_timed: true,
        }
    }

    fn woken_by(mut v: IntervalView, waker: i32) -> IntervalView {
        v.waker_pid = Some(waker);
        v
    }

    #[test]
    fn preemptions_do_not_split_a_burst_blocks_do() {
        let ivs = [
            iv(100, 10, Running, SwitchedOut(SwitchReason::Preempt)),
            iv(110, 5, RunnablePreempted, SwitchedIn),
            iv(115, 20, Running, SwitchedOut(SwitchReason::WakeupPreempt)),
            iv(135, 5, RunnablePreempted, SwitchedIn),
            iv(140, 7, Running, SwitchedOut(SwitchReason::Block)),
            iv(147, 50, Sleeping, Woken),
            woken_by(iv(197, 3, RunnableWakeup, SwitchedIn), 9),
            iv(200, 4, Running, SwitchedOut(SwitchReason::Exit)),
        ];
        let s = segment(ivs.into_iter());
        let block = OpenBlock {
            ns: 50,
            waker: Some(9),
            at_ns: 197,
            lost: false,
        };
        assert_eq!(
            s.pieces,
            vec![Piece::Burst(37), Piece::Block(block), Piece::Burst(4)]
        );
        assert_eq!(s.runtime_ns, 41);
        assert_eq!(s.ending, Ending::Exit(204));
        assert_eq!(s.start_ns, 100);
        let into: Vec<(u32, u64, bool)> = s
            .runs
            .iter()
            .map(|r| (r.burst, r.into_ns, r.ends_burst))
            .collect();
        assert_eq!(
            into,
            vec![(0, 0, false), (0, 10, false), (0, 30, true), (1, 0, true)]
        );
        assert_eq!(s.cpus, BTreeMap::from([(2, 41)]));
    }

    #[test]
    fn a_task_first_seen_asleep_starts_with_its_block() {
        let ivs = [
            iv(0, 80, Sleeping, Woken),
            woken_by(iv(80, 2, RunnableWakeup, SwitchedIn), 0),
            iv(82, 10, Running, TraceEnd),
        ];
        let s = segment(ivs.into_iter());
        assert_eq!(s.start_ns, 0);
        assert!(matches!(
            s.pieces[0],
            Piece::Block(OpenBlock {
                ns: 80,
                waker: Some(0),
                ..
            })
        ));
        assert_eq!(s.pieces[1], Piece::Burst(10));
        assert_eq!(s.ending, Ending::Running);
    }

    #[test]
    fn lost_track_ends_a_burst_as_a_lost_block() {
        let ivs = [
            iv(0, 10, Running, LostTrack),
            iv(10, 30, Unknown, SwitchedIn),
            iv(40, 5, Running, SwitchedOut(SwitchReason::Block)),
            iv(45, 100, Sleeping, TraceEnd),
        ];
        let s = segment(ivs.into_iter());
        assert_eq!(s.runtime_ns, 15);
        assert_eq!(s.pieces.len(), 3);
        assert!(matches!(
            s.pieces[1],
            Piece::Block(OpenBlock {
                ns: 30,
                lost: true,
                ..
            })
        ));
        assert_eq!(s.ending, Ending::Asleep, "the trailing sleep is no phase");
    }
}
