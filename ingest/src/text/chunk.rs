//! Parsing one slice of whole lines into a small vector of events plus local tallies.
//! Slices are parsed in parallel and combined in file order by `merge`.

use super::line::{classify, Line};
use super::prefix::Style;
use super::state::{Evidence, StateSrc};
use crate::event::{Event, EventKind};
use std::collections::HashMap;

/// Lost markers get the time (and, if not printed, the CPU) of the event after them.
pub(super) const CPU_UNKNOWN: u32 = u32::MAX;

/// An event whose `prev_state` or timestamp may still need the whole file to be known.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    pub event: Event,
    pub state: StateSrc,
    /// A lost-events marker: time and maybe CPU come from the next event line.
    pub needs_time: bool,
}

/// How many lines looked like each producer, to name the flavour.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Votes {
    pub dashed: u64,
    pub perf: u64,
    pub latency: u64,
    /// Event names followed by alignment padding (trace-cmd report).
    pub padded: u64,
}

impl std::ops::AddAssign for Votes {
    fn add_assign(&mut self, other: Votes) {
        self.dashed += other.dashed;
        self.perf += other.perf;
        self.latency += other.latency;
        self.padded += other.padded;
    }
}

/// A rejected line, numbered within its chunk (0-based).
#[derive(Debug)]
pub(super) struct RejectExample<'a> {
    pub line: u64,
    pub reason: &'static str,
    pub text: &'a [u8],
}

/// Everything learnt from one chunk.
#[derive(Debug, Default)]
pub(super) struct ChunkOut<'a> {
    pub events: Vec<Pending>,
    pub lines: u64,
    /// Events per name; a short list (traces have few distinct events), searched from
    /// the most recent hit, beats hashing every line's name.
    pub names: Vec<(&'a [u8], u64)>,
    pub rejected: HashMap<&'static str, u64>,
    pub examples: Vec<RejectExample<'a>>,
    pub cpus_header: Option<u32>,
    /// `#P:N` of the ftrace header.
    pub cpus_comment: Option<u32>,
    pub version: Option<&'a [u8]>,
    /// `# nop latency trace v1.1.5 on 6.18.44-fc-v769` (latency-format header).
    pub kernel_release: Option<&'a [u8]>,
    /// Lost-event markers and the events they report (when they say how many).
    pub lost_markers: u64,
    pub lost_events: u64,
    pub trace_cmd_headers: u64,
    pub max_cpu: Option<u32>,
    pub votes: Votes,
    pub evidence: Evidence,
}

/// Examples kept per chunk: enough for the first few of the whole file.
const EXAMPLES: usize = 5;

pub(super) fn parse_chunk(text: &[u8]) -> ChunkOut<'_> {
    let mut out = ChunkOut {
        events: Vec::with_capacity(text.len() / 100),
        ..ChunkOut::default()
    };
    let mut start = 0;
    while start < text.len() {
        let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i);
        let line = &text[start..end];
        start = end + 1;
        let line_no = out.lines;
        out.lines += 1;
        match classify(line) {
            Line::Skip => {
                if line.first() == Some(&b'#') {
                    out.cpus_comment = out.cpus_comment.or(cpus_from_comment(line));
                    out.kernel_release = out.kernel_release.or(release_from_comment(line));
                }
            }
            Line::Cpus(n) => {
                out.cpus_header = Some(n);
                out.trace_cmd_headers += 1;
            }
            Line::Version(v) => {
                out.version = Some(v);
                out.trace_cmd_headers += 1;
            }
            Line::CpuEmpty => out.trace_cmd_headers += 1,
            Line::Lost { cpu, count } => {
                out.lost_markers += 1;
                out.lost_events += count.unwrap_or(0);
                out.events.push(Pending {
                    event: Event {
                        ts: 0,
                        cpu: cpu.unwrap_or(CPU_UNKNOWN),
                        current_pid: -1,
                        kind: EventKind::Lost { count },
                    },
                    state: StateSrc::Done,
                    needs_time: true,
                })
            }
            Line::Event {
                prefix,
                kind,
                state,
            } => {
                count_name(&mut out.names, prefix.name);
                out.max_cpu = Some(out.max_cpu.map_or(prefix.cpu, |m| m.max(prefix.cpu)));
                match prefix.style {
                    Style::Dashed => out.votes.dashed += 1,
                    Style::Perf => out.votes.perf += 1,
                    Style::Latency => out.votes.latency += 1,
                }
                out.votes.padded += u64::from(prefix.padded);
                if let StateSrc::Value(v) = state {
                    out.evidence.note(v);
                }
                out.events.push(Pending {
                    event: Event {
                        ts: prefix.ts,
                        cpu: prefix.cpu,
                        current_pid: prefix.pid,
                        kind,
                    },
                    state,
                    needs_time: false,
                });
            }
            Line::Reject(reason) => {
                *out.rejected.entry(reason).or_insert(0) += 1;
                if out.examples.len() < EXAMPLES {
                    out.examples.push(RejectExample {
                        line: line_no,
                        reason,
                        text: line,
                    });
                }
            }
        }
    }
    out
}

fn count_name<'a>(names: &mut Vec<(&'a [u8], u64)>, name: &'a [u8]) {
    match names.iter_mut().find(|(n, _)| *n == name) {
        Some((_, count)) => *count += 1,
        None => names.push((name, 1)),
    }
}

/// `# nop latency trace v1.1.5 on 6.18.44-fc-v769` -> `6.18.44-fc-v769`.
fn release_from_comment(line: &[u8]) -> Option<&[u8]> {
    let at = memchr::memmem::find(line, b" latency trace v")?;
    let on = memchr::memmem::find(&line[at..], b" on ")? + at + 4;
    let release = line[on..].split(|&b| b == b' ').next()?;
    (!release.is_empty()).then_some(release)
}

/// `# entries-in-buffer/entries-written: 0/0   #P:2` -> 2.
fn cpus_from_comment(line: &[u8]) -> Option<u32> {
    let at = memchr::memmem::find(line, b"#P:")?;
    let digits: &[u8] = &line[at + 3..];
    let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    super::prefix::parse_u64(&digits[..n]).and_then(|v| u32::try_from(v).ok())
}
