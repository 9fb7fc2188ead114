//! Walks a round's sorted keys, decodes each record in place and hands events to the
//! sink. Tracepoint samples go through `ftrace::Decoder` (RAW data starts at common_type);
//! sample TIME/CPU/TID give the event's time, CPU and current task. Side-band records give
//! task names (COMM, FORK), lost-event markers (LOST, LOST_SAMPLES) and, only when the
//! matching tracepoint was not recorded, Fork/Exit events. Counting uses dense arrays
//! indexed by decoder name or attr, so nothing is allocated per sample.

use super::attr::TYPE_TRACEPOINT;
use super::bytes::{prefetch, u32_at, u64_at, Endian};
use super::ids::IdMap;
use super::records;
use super::rounds::Key;
use super::scan::{record_at, AttrEntry, SEG_INPUT};
use crate::ftrace::{Decoded, Decoder, EventFormat};
use crate::{Comm, Event, EventKind, EventSink, IngestStats};
use std::collections::HashMap;

/// Records are prefetched this many keys ahead of the one being decoded (~1 µs of work).
const PREFETCH_KEYS_AHEAD: usize = 8;

/// What the stream has said about itself by the time a round is emitted.
#[derive(Clone, Copy)]
pub(super) struct Session<'s> {
    pub endian: Endian,
    pub attrs: &'s [AttrEntry],
    pub ids: &'s IdMap,
    pub decoder: Option<&'s Decoder>,
}

/// Bytes of one segment (input or unpacked) that keys point into, from offset `base` on.
#[derive(Clone, Copy)]
pub(super) struct Segment<'b> {
    pub base: usize,
    pub bytes: &'b [u8],
}

#[derive(Default)]
pub(super) struct Emitter {
    /// Samples per decoder event name.
    pub by_name: Vec<u64>,
    /// Non-tracepoint samples per attr.
    pub by_attr: Vec<u64>,
    /// Fork/Exit events come from the tracepoints when these were recorded.
    pub fork_traced: bool,
    pub exit_traced: bool,
    comms: HashMap<i32, Comm>,
    pub lost: u64,
    pub lost_records: u64,
    pub comm_records: u64,
    pub fork_records: u64,
    pub exit_records: u64,
    /// Samples without a CPU field whose CPU came from ID_INDEX or was unknown (0).
    pub cpu_unknown: u64,
    /// Time of the latest record emitted.
    last_ts: u64,
    /// Loss records with time 0: perf writes its LOST_SAMPLES summaries at the end of a session
    /// without a time. They are emitted after everything else ([`Emitter::finish`]), at the last
    /// time of the trace, so they count in the ledger without moving the trace's start to 0.
    deferred_lost: Vec<(Option<u32>, i32, u64)>,
    /// Events reported lost by timed loss records, per CPU (loss records are rare).
    timed_lost: Vec<(Option<u32>, u64)>,
}

/// True when a tracepoint attr records the event `name` (format found by attr.config).
pub(super) fn traces(attrs: &[AttrEntry], formats: &[EventFormat], name: &str) -> bool {
    attrs.iter().any(|a| {
        a.attr.kind == TYPE_TRACEPOINT
            && formats
                .iter()
                .any(|f| f.id as u64 == a.attr.config && f.name == name)
    })
}

impl Emitter {
    /// Takes in the session's event formats (once the tracing data is known).
    pub(super) fn prepare(&mut self, session: &Session, formats: &[EventFormat]) {
        self.by_name
            .resize(session.decoder.map_or(0, |d| d.event_count()), 0);
        self.fork_traced = traces(session.attrs, formats, "sched_process_fork");
        self.exit_traced = traces(session.attrs, formats, "sched_process_exit");
    }

    /// Emits what had to wait for the end of the stream: the part of perf's end-of-session
    /// loss summaries that no timed loss record reported.
    ///
    /// When the kernel cannot write a sample it counts it twice: in the ring buffer's lost
    /// count, which it writes as a timed PERF_RECORD_LOST once there is room again, and in the
    /// event's own lost-sample count, which perf reads at the end and writes as time-0
    /// LOST_SAMPLES records, one per event and CPU. The summaries of a CPU thus repeat its
    /// timed records and add only what was lost too late to be reported in the stream.
    pub(super) fn finish(&mut self, sink: &mut dyn EventSink) {
        let mut summaries: Vec<(Option<u32>, i32, u64)> = Vec::new();
        for (cpu, current_pid, count) in std::mem::take(&mut self.deferred_lost) {
            match summaries.iter_mut().find(|s| s.0 == cpu) {
                Some(s) => s.2 += count,
                None => summaries.push((cpu, current_pid, count)),
            }
        }
        let all_timed: u64 = self.timed_lost.iter().map(|t| t.1).sum();
        for (cpu, current_pid, count) in summaries {
            let timed = match cpu {
                Some(_) => self
                    .timed_lost
                    .iter()
                    .find(|t| t.0 == cpu)
                    .map_or(0, |t| t.1),
                None => all_timed,
            };
            let unreported = count.saturating_sub(timed);
            if unreported == 0 {
                continue;
            }
            self.lost += unreported;
            sink.event(&Event {
                ts: self.last_ts,
                cpu: cpu.unwrap_or(0),
                current_pid,
                kind: EventKind::Lost {
                    count: Some(unreported),
                },
            });
        }
    }

    /// Emits the records of `keys` (sorted) from their segments.
    pub(super) fn run(
        &mut self,
        keys: &[Key],
        session: &Session,
        input: Segment,
        unpacked: Segment,
        sink: &mut dyn EventSink,
        stats: &mut IngestStats,
    ) {
        if self.by_attr.len() < session.attrs.len() {
            self.by_attr.resize(session.attrs.len(), 0);
        }
        let segment = |key: &Key| {
            if key.segment() == SEG_INPUT {
                input
            } else {
                unpacked
            }
        };
        for (i, key) in keys.iter().enumerate() {
            if let Some(ahead) = keys.get(i + PREFETCH_KEYS_AHEAD) {
                let seg = segment(ahead);
                prefetch(seg.bytes, ahead.offset().wrapping_sub(seg.base));
            }
            let seg = segment(key);
            let Some((kind, body)) = record_at(
                session.endian,
                seg.bytes,
                key.offset().wrapping_sub(seg.base),
            ) else {
                // Keys are made from framed records still held; this cannot fail.
                continue;
            };
            let attr = &session.attrs[key.attr()];
            self.last_ts = self.last_ts.max(key.ts);
            match kind {
                records::SAMPLE => self.sample(key, session, attr, body, sink, stats),
                _ => self.side_band(key, session, attr, kind, body, sink, stats),
            }
        }
    }

    #[inline]
    fn sample(
        &mut self,
        key: &Key,
        session: &Session,
        attr: &AttrEntry,
        body: &[u8],
        sink: &mut dyn EventSink,
        stats: &mut IngestStats,
    ) {
        let sample = match attr.format.parse(session.endian, body) {
            Ok(s) => s,
            Err(field) => {
                let offset = key.offset();
                stats.reject("malformed perf sample", || {
                    format!("perf sample at offset {offset}: field {field} runs past the record")
                });
                return;
            }
        };
        let cpu = match sample.cpu {
            Some(cpu) => cpu,
            None => {
                self.cpu_unknown += 1;
                sample
                    .id
                    .and_then(|id| session.ids.get(id))
                    .and_then(|i| i.cpu)
                    .unwrap_or(0)
            }
        };
        let ts = sample.time.unwrap_or(key.ts);
        let tid = sample.tid.map(|t| t as i32);
        match (
            attr.attr.kind == TYPE_TRACEPOINT,
            sample.raw,
            session.decoder,
        ) {
            (true, Some(raw), Some(decoder)) => match decoder.decode(raw) {
                Decoded::Event {
                    name,
                    current_pid,
                    kind,
                } => {
                    self.by_name[name as usize] += 1;
                    sink.event(&Event {
                        ts,
                        cpu,
                        current_pid: tid.unwrap_or(current_pid),
                        kind,
                    });
                }
                Decoded::Unknown { id } => {
                    let offset = key.offset();
                    stats.reject("tracepoint id without format", || {
                        format!("perf sample at offset {offset}: common_type {id} has no format in the tracing data")
                    });
                }
                Decoded::Malformed { name, reason } => {
                    let offset = key.offset();
                    let event = decoder.event_name(name).to_string();
                    stats.reject("malformed tracepoint payload", || {
                        format!("perf sample at offset {offset} ({event}): {reason}")
                    });
                }
            },
            (true, _, _) => {
                let offset = key.offset();
                stats.reject("tracepoint sample without RAW data or tracing data", || {
                    format!("perf sample at offset {offset}: no RAW payload or no event formats")
                });
            }
            _ => {
                self.by_attr[key.attr()] += 1;
                sink.event(&Event {
                    ts,
                    cpu,
                    current_pid: tid.unwrap_or(-1),
                    kind: EventKind::Other,
                });
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn side_band(
        &mut self,
        key: &Key,
        session: &Session,
        attr: &AttrEntry,
        kind: u32,
        body: &[u8],
        sink: &mut dyn EventSink,
        stats: &mut IngestStats,
    ) {
        let e = session.endian;
        let trailer = attr.format.trailer(e, body).unwrap_or_default();
        let cpu = trailer.cpu.filter(|&c| c != u32::MAX).or_else(|| {
            trailer
                .id
                .and_then(|id| session.ids.get(id))
                .and_then(|i| i.cpu)
        });
        let current_pid = trailer.tid.map_or(-1, |t| t as i32);
        let mut emit = |kind: EventKind, cpu: Option<u32>| {
            sink.event(&Event {
                ts: key.ts,
                cpu: cpu.unwrap_or(0),
                current_pid,
                kind,
            })
        };
        let u32f = |off: usize| u32_at(e, body, off).map(|v| v as i32);
        match kind {
            records::COMM => {
                let (Some(pid), Some(tid)) = (u32f(0), u32f(4)) else {
                    return short(stats, key, "COMM");
                };
                self.comm_records += 1;
                let name_end = body.len() - attr.format.trailer_len.min(body.len());
                let comm = Comm::from_bytes(body.get(8..name_end).unwrap_or(&[]));
                self.comms.insert(tid, comm);
                emit(
                    EventKind::TaskName {
                        pid: tid,
                        tgid: pid,
                        comm,
                    },
                    cpu,
                );
            }
            records::FORK | records::EXIT => {
                let (Some(pid), Some(_ppid), Some(tid), Some(ptid)) =
                    (u32f(0), u32f(4), u32f(8), u32f(12))
                else {
                    return short(stats, key, "FORK/EXIT");
                };
                // Records synthesized for tasks alive at start have time 0: names only.
                let real = u64_at(e, body, 16).is_some_and(|t| t != 0);
                if kind == records::FORK {
                    self.fork_records += 1;
                    // A new task starts with its parent's name (perf does the same).
                    let comm = self.comms.get(&ptid).copied().unwrap_or_default();
                    self.comms.insert(tid, comm);
                    emit(
                        EventKind::TaskName {
                            pid: tid,
                            tgid: pid,
                            comm,
                        },
                        cpu,
                    );
                    if real && !self.fork_traced {
                        emit(
                            EventKind::Fork {
                                parent_pid: ptid,
                                child_pid: tid,
                                child_comm: comm,
                            },
                            cpu,
                        );
                    }
                } else {
                    self.exit_records += 1;
                    if real && !self.exit_traced {
                        emit(EventKind::Exit { pid: tid }, cpu);
                    }
                }
            }
            records::LOST | records::LOST_SAMPLES => {
                let off = if kind == records::LOST { 8 } else { 0 };
                let Some(lost) = u64_at(e, body, off) else {
                    return short(stats, key, "LOST");
                };
                let cpu = cpu.or_else(|| {
                    if kind == records::LOST {
                        u64_at(e, body, 0)
                            .and_then(|id| session.ids.get(id))
                            .and_then(|i| i.cpu)
                    } else {
                        None
                    }
                });
                self.lost_records += 1;
                if key.ts == 0 {
                    // perf writes these summaries with CPU 0 in the sample id whatever the
                    // CPU; the id itself says which CPU's buffer it counts (ID_INDEX).
                    let id_cpu = trailer
                        .id
                        .and_then(|id| session.ids.get(id))
                        .and_then(|i| i.cpu);
                    self.deferred_lost.push((id_cpu.or(cpu), current_pid, lost));
                } else {
                    self.lost += lost;
                    match self.timed_lost.iter_mut().find(|t| t.0 == cpu) {
                        Some(t) => t.1 += lost,
                        None => self.timed_lost.push((cpu, lost)),
                    }
                    emit(EventKind::Lost { count: Some(lost) }, cpu);
                }
            }
            _ => {}
        }
    }

    /// `IngestStats.events`: tracepoint samples under the event name as `perf script` prints
    /// it without the system ("sched_switch"), other samples under their attr name.
    pub(super) fn count_into(&self, session: &Session, stats: &mut IngestStats) {
        if let Some(decoder) = session.decoder {
            for (i, &n) in self.by_name.iter().enumerate() {
                if n > 0 {
                    *stats
                        .events
                        .entry(decoder.event_name(i as u32).to_string())
                        .or_insert(0) += n;
                }
            }
        }
        for (i, &n) in self.by_attr.iter().enumerate() {
            if n > 0 {
                let a = &session.attrs[i];
                let name = a.name.clone().unwrap_or_else(|| {
                    format!("perf_type{}_config{:#x}", a.attr.kind, a.attr.config)
                });
                *stats.events.entry(name).or_insert(0) += n;
            }
        }
    }
}

fn short(stats: &mut IngestStats, key: &Key, what: &str) {
    let offset = key.offset();
    stats.reject("truncated perf side-band record", || {
        format!("perf {what} record at offset {offset} is too short")
    });
}
