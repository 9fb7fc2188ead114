//! Perfetto trace → normalized events: walks the packets (with their offsets),
//! expands regular and `compact_sched` ftrace events per CPU, collects task names,
//! kernel release and loss markers, then sorts per CPU and merges all CPUs by time.
//!
//! Bundles of different CPUs are written when each CPU's buffer is read, so the
//! file is not in time order across CPUs, and nothing bounds how far apart they
//! are; like trace_processor we therefore hold the decoded events (small `Copy`
//! values) and sort at the end. `prev_state` is decoded at the end too, because
//! the `SystemInfo` that names the kernel may come after the events.

use super::compact::{self, Lane, Running};
use super::events::{self, Decoded};
use super::proto::{self, FtraceEventBundle, TracePacket};
use super::wire;
use crate::error::{Error, Result};
use crate::event::{Comm, Event, EventKind, EventSink};
use crate::ftrace::PrevStateDecoder;
use crate::meta::{Format, IngestStats, Ingested, TraceMeta};
use crate::progress::Tracker;
use prost::Message;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::io::Read;

/// Decompressed `compressed_packets` larger than this are refused (zip bombs).
const MAX_DECOMPRESSED: u64 = 1 << 30;
/// CPU numbers above this are taken as corruption rather than allocated for.
const MAX_CPU: u32 = 1 << 16;

/// Packet bytes read between two reports to the progress (and looks at its cancellation flag).
const REPORT_EVERY: u64 = 256 << 10;

/// Reads a whole Perfetto trace held in memory and feeds its events to `sink` in time order.
pub fn read(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    crate::read_alone(Default::default(), sink, |sink, tracker| {
        read_tracked(bytes, sink, tracker)
    })
}

/// [`read`], reporting the packets read to `progress` every [`REPORT_EVERY`] bytes (and
/// stopping there when it is cancelled).
pub(crate) fn read_tracked(
    bytes: &[u8],
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let mut reader = Reader {
        marks: progress.marks().clone(),
        ..Reader::default()
    };
    let mut report_at = REPORT_EVERY;
    let framing = wire::for_each_packet(bytes, 0, &mut |offset, packet| {
        if offset >= report_at {
            progress.reached(offset)?;
            report_at = offset + REPORT_EVERY;
        }
        reader.packet(offset, packet, None)
    })?;
    if reader.packets == 0 {
        return Err(Error::at(0, "Perfetto trace without any TracePacket"));
    }
    if let Some(at) = framing.truncated_tail {
        reader.stats.reject("truncated last TracePacket", || {
            format!("offset {at}: last packet cut short by the end of the file")
        });
    }
    if framing.foreign_fields > 0 {
        reader.extra(
            "top_level_fields_skipped",
            framing.foreign_fields.to_string(),
        );
    }
    Ok(reader.finish(sink))
}

/// An event whose `prev_state` may still need decoding.
#[derive(Debug, Clone, Copy)]
struct Pending {
    event: Event,
    raw_prev_state: Option<i64>,
}

/// One CPU's events in file order.
#[derive(Debug, Default)]
struct CpuLog {
    events: Vec<Pending>,
    running: Running,
    max_ts: u64,
    /// Some event came before a later one of the file: the log needs sorting.
    unsorted: bool,
    /// The latest time per packet sequence. Order is judged per sequence: several ftrace data
    /// sources (one for sched, one for idle / frequency) write bundles of the same CPU that
    /// interleave in the file, each in order on its own.
    seq_max: Vec<(u32, u64)>,
    out_of_order: u64,
}

impl CpuLog {
    fn push(&mut self, p: Pending, seq: u32) {
        let ts = p.event.ts;
        if ts < self.max_ts {
            self.unsorted = true;
        } else {
            self.max_ts = ts;
        }
        match self.seq_max.iter_mut().find(|(s, _)| *s == seq) {
            Some((_, max)) if ts < *max => self.out_of_order += 1,
            Some((_, max)) => *max = ts,
            None => self.seq_max.push((seq, ts)),
        }
        self.events.push(p);
    }
}

#[derive(Default)]
struct Reader {
    packets: u64,
    cpus: BTreeMap<u32, CpuLog>,
    names: Vec<Event>,
    stats: IngestStats,
    meta: TraceMeta,
    ftrace_clock: Option<i32>,
    compact_bundles: u64,
    lost_marks: u64,
    prev_unknown: u64,
    /// Packet sequences seen so far (see `previous_packet_dropped`).
    sequences: std::collections::HashSet<u32>,
    /// Per CPU overrun at START_OF_TRACE and the last END_OF_TRACE.
    overrun: BTreeMap<u64, (Option<u64>, Option<u64>)>,
    /// The read's marker table.
    marks: crate::Marks,
}

impl Reader {
    fn extra(&mut self, key: &str, value: String) {
        self.meta.extra.insert(key.to_string(), value);
    }

    /// `inner` is the offset inside decompressed data when `offset` is that of the
    /// compressed packet holding this one.
    fn packet(&mut self, offset: u64, bytes: &[u8], inner: Option<u64>) -> Result<()> {
        let n = self.packets;
        self.packets += 1;
        let at = |cause: String| match inner {
            None => Error::at(offset, format!("TracePacket #{n}: {cause}")),
            Some(i) => Error::at(
                offset,
                format!("in compressed packets, inner offset {i}: TracePacket #{n}: {cause}"),
            ),
        };
        let packet = TracePacket::decode(bytes).map_err(|e| at(e.to_string()))?;
        if let Some(b) = &packet.ftrace_events {
            self.bundle(b, packet.trusted_packet_sequence_id.unwrap_or(0))
                .map_err(at)?;
        }
        if let Some(tree) = &packet.process_tree {
            self.process_tree(tree, packet.timestamp.unwrap_or(0));
        }
        if let Some(info) = &packet.system_info {
            self.system_info(info);
        }
        if let Some(stats) = &packet.ftrace_stats {
            for c in &stats.cpu_stats {
                let slot = self.overrun.entry(c.cpu.unwrap_or(0)).or_default();
                match stats.phase {
                    Some(proto::FTRACE_STATS_START) => slot.0 = c.overrun,
                    Some(proto::FTRACE_STATS_END) => slot.1 = c.overrun,
                    _ => {}
                }
            }
        }
        let seq = packet.trusted_packet_sequence_id.unwrap_or(0);
        // Perfetto sets the flag on the first packet of every sequence by design: only a later
        // packet of the same sequence carrying it means packets were lost.
        let first_of_sequence = self.sequences.insert(seq);
        if packet.previous_packet_dropped == Some(true) && !first_of_sequence {
            self.stats
                .reject("packets dropped by the tracing service", || {
                    format!("offset {offset}: packets lost before this one (sequence {seq})")
                });
        }
        for (data, zstd) in [
            (&packet.compressed_packets, false),
            (&packet.zstd_compressed_packets, true),
        ] {
            let Some(data) = data else { continue };
            if inner.is_some() {
                return Err(at("compressed packets nested in compressed packets".into()));
            }
            let plain = decompress(data, zstd).map_err(at)?;
            wire::for_each_packet(&plain, 0, &mut |i, p| self.packet(offset, p, Some(i)))
                .map_err(|e| at(format!("inside compressed packets: {e}")))?;
        }
        Ok(())
    }

    fn bundle(&mut self, b: &FtraceEventBundle, seq: u32) -> std::result::Result<(), String> {
        let Some(cpu) = b.cpu else {
            let n = b.event.len();
            self.stats.reject("ftrace bundle without cpu", || {
                format!("bundle of {n} events without a cpu number: skipped")
            });
            return Ok(());
        };
        if cpu > MAX_CPU {
            return Err(format!(
                "ftrace bundle for cpu {cpu}: not a plausible CPU number"
            ));
        }
        if let Some(clock) = b.ftrace_clock {
            self.ftrace_clock = Some(clock);
        }
        let (switches, wakings) = match &b.compact_sched {
            Some(c) => {
                self.compact_bundles += 1;
                compact::decode(c)?
            }
            None => (Vec::new(), Vec::new()),
        };
        let log = self.cpus.entry(cpu).or_default();
        let first_ts = [
            switches.first().map(|s| s.ts),
            wakings.first().map(|w| w.ts),
            b.event.iter().find_map(|e| e.timestamp),
        ]
        .into_iter()
        .flatten()
        .min();
        if b.lost_events == Some(true) {
            self.lost_marks += 1;
            let ts = first_ts
                .or(b.previous_bundle_end_timestamp)
                .unwrap_or(log.max_ts);
            log.running.forget();
            log.push(
                Pending {
                    event: Event {
                        ts,
                        cpu,
                        current_pid: -1,
                        kind: EventKind::Lost { count: None },
                    },
                    raw_prev_state: None,
                },
                seq,
            );
        }
        // Merge the three lanes by (timestamp, lane); each lane is in its own order.
        let (mut si, mut wi, mut ei) = (0, 0, 0);
        loop {
            let heads = [
                switches.get(si).map(|s| (s.ts, Lane::CompactSwitch)),
                wakings.get(wi).map(|w| (w.ts, Lane::CompactWaking)),
                b.event
                    .get(ei)
                    .map(|e| (e.timestamp.unwrap_or(0), Lane::Regular)),
            ];
            let Some((ts, lane)) = heads.into_iter().flatten().min() else {
                break;
            };
            let pending = match lane {
                Lane::CompactSwitch => {
                    let s = switches[si];
                    si += 1;
                    let prev = log.running.prev();
                    if prev.pid == -1 {
                        self.prev_unknown += 1;
                    }
                    log.running.switched_to(s.next);
                    self.stats.count_event("sched_switch");
                    Pending {
                        event: Event {
                            ts,
                            cpu,
                            current_pid: prev.pid,
                            kind: EventKind::Switch {
                                prev,
                                prev_state: crate::PrevState::Runnable,
                                next: s.next,
                            },
                        },
                        raw_prev_state: Some(s.prev_state),
                    }
                }
                Lane::CompactWaking => {
                    let w = wakings[wi];
                    wi += 1;
                    self.stats.count_event("sched_waking");
                    Pending {
                        event: Event {
                            ts,
                            cpu,
                            current_pid: log.running.pid(),
                            kind: EventKind::Waking {
                                task: w.task,
                                target_cpu: w.target_cpu,
                            },
                        },
                        raw_prev_state: None,
                    }
                }
                Lane::Regular => {
                    let e = &b.event[ei];
                    ei += 1;
                    if e.timestamp.is_none() {
                        self.stats.reject("ftrace event without timestamp", || {
                            format!("cpu {cpu}: event without timestamp skipped")
                        });
                        continue;
                    }
                    let Decoded {
                        name,
                        current_pid,
                        kind,
                        raw_prev_state,
                    } = events::decode(e, &self.marks);
                    if let EventKind::Switch { next, .. } = kind {
                        log.running.switched_to(next);
                    }
                    self.stats.count_event(name);
                    Pending {
                        event: Event {
                            ts,
                            cpu,
                            current_pid,
                            kind,
                        },
                        raw_prev_state,
                    }
                }
            };
            log.push(pending, seq);
        }
        Ok(())
    }

    fn process_tree(&mut self, tree: &proto::ProcessTree, ts: u64) {
        let mut name = |pid: i32, tgid: i32, comm: Comm| {
            self.names.push(Event {
                ts,
                cpu: 0,
                current_pid: -1,
                kind: EventKind::TaskName { pid, tgid, comm },
            })
        };
        for p in &tree.processes {
            let (Some(pid), Some(argv0)) = (p.pid, p.cmdline.first()) else {
                continue;
            };
            // cmdline[0] is argv[0]; the kernel's comm is its last path component.
            let base = argv0.rsplit(|&b| b == b'/').next().unwrap_or(argv0);
            name(pid, pid, Comm::from_bytes(&base[..base.len().min(15)]));
        }
        for t in &tree.threads {
            if let Some(tid) = t.tid {
                name(
                    tid,
                    t.tgid.unwrap_or(-1),
                    Comm::from_bytes(t.name.as_deref().unwrap_or_default()),
                );
            }
        }
    }

    fn system_info(&mut self, info: &proto::SystemInfo) {
        let text = |b: &Option<Vec<u8>>| {
            b.as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        if let Some(u) = &info.utsname {
            if let Some(release) = text(&u.release) {
                self.meta.kernel_release = Some(release);
            }
            for (key, value) in [
                ("sysname", &u.sysname),
                ("uname_version", &u.version),
                ("machine", &u.machine),
            ] {
                if let Some(v) = text(value) {
                    self.extra(key, v);
                }
            }
        }
        if let Some(n) = info.num_cpus {
            self.meta.cpus = Some(n);
        }
    }

    fn finish(mut self, sink: &mut dyn EventSink) -> Ingested {
        let decoder = PrevStateDecoder::for_kernel(None, self.meta.kernel_release.as_deref());
        let mut out_of_order = 0;
        let mut logs: Vec<Vec<Pending>> = Vec::with_capacity(self.cpus.len() + 1);
        // Stream 0: task names (first at equal timestamps); then one per CPU.
        logs.push(
            std::mem::take(&mut self.names)
                .into_iter()
                .map(|event| Pending {
                    event,
                    raw_prev_state: None,
                })
                .collect(),
        );
        logs[0].sort_by_key(|p| p.event.ts);
        for log in std::mem::take(&mut self.cpus).into_values() {
            let mut events = log.events;
            out_of_order += log.out_of_order;
            if log.unsorted {
                events.sort_by_key(|p| p.event.ts); // stable: keeps file order at equal times
            }
            logs.push(events);
        }
        let max_cpu = logs
            .iter()
            .skip(1)
            .filter_map(|l| l.first())
            .map(|p| p.event.cpu)
            .max();

        // Every packet has been read: the kernel release and CPU count (SystemInfo may come
        // last in the file) can be told to the sink before the first event.
        let mut known = self.meta.clone();
        known.format = Some(Format::Perfetto);
        known.clock = Some(clock_name(self.ftrace_clock).into());
        sink.meta(&known);

        let mut next = vec![0usize; logs.len()];
        let key = |i: usize, p: &Pending| Reverse((p.event.ts, i.min(1), p.event.cpu, i));
        let mut heap: BinaryHeap<_> = logs
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.first().map(|p| key(i, p)))
            .collect();
        while let Some(Reverse((_, _, _, i))) = heap.pop() {
            let mut p = logs[i][next[i]];
            next[i] += 1;
            if let (Some(raw), EventKind::Switch { prev_state, .. }) =
                (p.raw_prev_state, &mut p.event.kind)
            {
                *prev_state = decoder.decode(raw as u64);
            }
            sink.event(&p.event);
            if let Some(p) = logs[i].get(next[i]) {
                heap.push(key(i, p));
            }
        }

        self.stats.out_of_order = out_of_order;
        let mut meta = std::mem::take(&mut self.meta);
        meta.format = Some(Format::Perfetto);
        meta.format_version = if self.compact_bundles > 0 {
            "protobuf (compact_sched)".into()
        } else {
            "protobuf".into()
        };
        if meta.cpus.is_none() {
            meta.cpus = max_cpu.map(|c| c + 1);
        }
        meta.clock = Some(clock_name(self.ftrace_clock).into());
        let mut put = |k: &str, v: u64| {
            if v > 0 {
                meta.extra.insert(k.to_string(), v.to_string());
            }
        };
        put("compact_sched_bundles", self.compact_bundles);
        put("lost_event_marks", self.lost_marks);
        put("compact_switch_prev_unknown", self.prev_unknown);
        for (cpu, (start, end)) in &self.overrun {
            let lost = end.unwrap_or(0).saturating_sub(start.unwrap_or(0));
            put(&format!("ftrace_overrun_cpu{cpu}"), lost);
        }
        Ingested {
            meta,
            stats: self.stats,
            ..Default::default()
        }
    }
}

fn decompress(data: &[u8], zstd: bool) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let res = if zstd {
        zstd::stream::read::Decoder::new(data)
            .and_then(|d| d.take(MAX_DECOMPRESSED + 1).read_to_end(&mut out))
    } else {
        flate2::read::ZlibDecoder::new(data)
            .take(MAX_DECOMPRESSED + 1)
            .read_to_end(&mut out)
    };
    res.map_err(|e| format!("cannot decompress packets: {e}"))?;
    if out.len() as u64 > MAX_DECOMPRESSED {
        return Err(format!(
            "compressed packets expand beyond {MAX_DECOMPRESSED} bytes"
        ));
    }
    Ok(out)
}

/// The trace clock of `FtraceEventBundle.ftrace_clock` (Perfetto's `FtraceClock`; unset: boot).
fn clock_name(ftrace_clock: Option<i32>) -> &'static str {
    match ftrace_clock.unwrap_or(0) {
        0 => "boot",
        2 => "global",
        3 => "local",
        4 => "mono_raw",
        _ => "unknown",
    }
}
