//! Normalized events → a Perfetto trace, streaming: an [`EventSink`] that keeps
//! one bounded `FtraceEventBundle` per CPU and writes it out when it is full.
//!
//! What goes where: sched events become `FtraceEvent`s of their CPU's bundle (or,
//! with `compact_sched`, switch/waking arrays where [`Running`] proves the reader
//! will infer the same previous task and waker); task names become `ProcessTree`
//! threads; lost events become `lost_events` on the CPU's next bundle; the kernel
//! release and CPU count become `SystemInfo` at the end (they are known only once
//! the input is read). All packets are on one trusted sequence, timestamps in the
//! default BOOTTIME trace clock, announced by a first `ClockSnapshot`.
//!
//! Not expressible: the count of lost events (Perfetto marks loss, not its size)
//! and the time of a loss mark (it is read back at the next event of the CPU);
//! `Other` events (no name or fields to write: the first one before any sched event and the
//! last one after them are kept as empty `print` events, so the window is the same);
//! tgid-less names keep no tgid.

use super::compact::{self, Lane, Running};
use super::events::{encode, encode_prev_state};
use super::proto::{
    self, Clock, ClockSnapshot, FtraceEvent, FtraceEventBundle, ProcessTree, SystemInfo, Thread,
    TracePacket, Utsname,
};
use crate::event::{Comm, Event, EventKind, EventSink, Marks};
use crate::meta::TraceMeta;
use prost::Message;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The sequence all our packets are on (any non-zero id works for one writer).
const SEQUENCE_ID: u32 = 1;
/// Task names per `ProcessTree` packet (bounds the names held in memory).
const MAX_NAMES_PER_PACKET: usize = 8192;
/// `TracePacket.sequence_flags`: SEQ_INCREMENTAL_STATE_CLEARED.
const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;

#[derive(Debug, Clone, Copy)]
pub struct WriterOptions {
    /// Write switches and wakings in the `compact_sched` encoding where lossless.
    pub compact_sched: bool,
    /// Events per bundle before it is written out (bounds memory: one bundle per CPU).
    pub max_bundle_events: usize,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            compact_sched: false,
            max_bundle_events: 1024,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct WriteStats {
    pub packets: u64,
    pub bytes: u64,
    /// Events written as regular `FtraceEvent`s, by ftrace name... and compact ones.
    pub regular_events: u64,
    pub compact_switches: u64,
    pub compact_wakings: u64,
    pub task_names: u64,
    pub lost_marks: u64,
    /// Events Perfetto (or our subset) cannot hold, by reason.
    pub not_written: BTreeMap<&'static str, u64>,
    /// Things the reader of the output should know (e.g. a release left out).
    pub notes: Vec<String>,
}

/// The bundle being filled for one CPU.
#[derive(Debug, Default)]
struct CpuBundle {
    events: Vec<FtraceEvent>,
    compact: compact::Builder,
    len: usize,
    /// (timestamp, lane) of the last event added: keeps the reader's merge order.
    last: Option<(u64, Lane)>,
    /// End timestamp of the previous bundle written for this CPU.
    previous_end: Option<u64>,
    lost_pending: bool,
    running: Running,
}

/// Writes a Perfetto trace to `out` as events arrive; call [`Writer::finish`] at the end.
pub struct Writer<W: Write> {
    out: W,
    opts: WriterOptions,
    cpus: BTreeMap<u32, CpuBundle>,
    /// Task names waiting to be written, all from one timestamp.
    names: Vec<Thread>,
    names_ts: u64,
    started: bool,
    /// Whether a sched event was written yet, and the latest non-sched event after the last
    /// one: the trace's window runs from its first to its last event of any kind, so the
    /// first and the last non-sched events that bound it are kept (as empty `print` events).
    sched_written: bool,
    window_end: Option<Event>,
    /// `FtraceEventBundle.ftrace_clock` for the trace clock the reader announced (none: boot).
    ftrace_clock: Option<i32>,
    error: Option<io::Error>,
    buf: Vec<u8>,
    stats: WriteStats,
    /// The marker texts of the read whose events come in ([`EventSink::marks`]).
    marks: Marks,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W, opts: WriterOptions) -> Writer<W> {
        Writer {
            out,
            opts: WriterOptions {
                max_bundle_events: opts.max_bundle_events.max(1),
                ..opts
            },
            cpus: BTreeMap::new(),
            names: Vec::new(),
            names_ts: 0,
            started: false,
            sched_written: false,
            window_end: None,
            ftrace_clock: None,
            error: None,
            buf: Vec::new(),
            stats: WriteStats::default(),
            marks: Marks::default(),
        }
    }

    /// Writes what is buffered, the `SystemInfo` from `meta`, and flushes `out`.
    pub fn finish(mut self, meta: &TraceMeta) -> io::Result<(W, WriteStats)> {
        if !self.started {
            self.start(0);
        }
        self.flush_names();
        if let Some(end) = self.window_end.take() {
            // Counted as not written when it came; it is, after all.
            if let Some(n) = self.stats.not_written.get_mut("other (non-sched) event") {
                *n -= 1;
            }
            self.add_print(&end);
        }
        let cpus: Vec<u32> = self.cpus.keys().copied().collect();
        for cpu in cpus {
            if self.cpus[&cpu].len > 0 || self.cpus[&cpu].lost_pending {
                self.flush_cpu(cpu);
            }
        }
        let info = self.system_info(meta);
        self.packet(TracePacket {
            system_info: Some(info),
            ..Default::default()
        });
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok((self.out, self.stats))
    }

    fn system_info(&mut self, meta: &TraceMeta) -> SystemInfo {
        let mut uts = Utsname {
            sysname: Some(b"Linux".to_vec()),
            ..Default::default()
        };
        if let Some(release) = &meta.kernel_release {
            // We write prev_state in the >= 4.14 encoding; naming an older kernel would
            // make readers (ours, trace_processor) decode it the old way.
            if release_before_4_14(release) {
                uts.version = Some(
                    format!("kernel {release}; prev_state written in the 4.14+ encoding")
                        .into_bytes(),
                );
                self.stats.notes.push(format!(
                    "kernel release {release} (< 4.14) written as utsname.version, not release: \
                     prev_state values are in the 4.14+ encoding"
                ));
            } else {
                uts.release = Some(release.clone().into_bytes());
            }
        }
        SystemInfo {
            utsname: Some(uts),
            num_cpus: meta.cpus,
        }
    }

    /// The first packet: clears incremental state and ties the trace clock (BOOTTIME)
    /// to MONOTONIC so that tools that want a clock snapshot have one.
    fn start(&mut self, ts: u64) {
        self.started = true;
        let clock = |id| Clock {
            clock_id: Some(id),
            timestamp: Some(ts),
        };
        self.packet(TracePacket {
            timestamp: Some(ts),
            sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
            clock_snapshot: Some(ClockSnapshot {
                clocks: vec![clock(proto::CLOCK_BOOTTIME), clock(proto::CLOCK_MONOTONIC)],
                primary_trace_clock: Some(proto::CLOCK_BOOTTIME as i32),
            }),
            ..Default::default()
        });
    }

    fn packet(&mut self, mut packet: TracePacket) {
        packet.trusted_packet_sequence_id = Some(SEQUENCE_ID);
        if packet.timestamp.is_some() {
            packet.timestamp_clock_id = Some(proto::CLOCK_BOOTTIME);
        }
        self.buf.clear();
        // `Trace.packet` (field 1, length-delimited): key, length, message.
        prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, &mut self.buf);
        packet
            .encode_length_delimited(&mut self.buf)
            .expect("a Vec grows as needed");
        self.stats.packets += 1;
        self.stats.bytes += self.buf.len() as u64;
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(&self.buf) {
                self.error = Some(e);
            }
        }
    }

    fn flush_names(&mut self) {
        if self.names.is_empty() {
            return;
        }
        let threads = std::mem::take(&mut self.names);
        self.packet(TracePacket {
            timestamp: Some(self.names_ts),
            process_tree: Some(ProcessTree {
                processes: Vec::new(),
                threads,
            }),
            ..Default::default()
        });
    }

    fn flush_cpu(&mut self, cpu: u32) {
        let b = self.cpus.get_mut(&cpu).expect("flushed CPUs have a bundle");
        let bundle = FtraceEventBundle {
            cpu: Some(cpu),
            event: std::mem::take(&mut b.events),
            lost_events: std::mem::take(&mut b.lost_pending).then_some(true),
            compact_sched: b.compact.take(),
            previous_bundle_end_timestamp: b.previous_end,
            ftrace_clock: self.ftrace_clock,
            ..Default::default()
        };
        if let Some((ts, _)) = b.last.take() {
            b.previous_end = Some(ts);
        }
        b.len = 0;
        self.packet(TracePacket {
            ftrace_events: Some(bundle),
            ..Default::default()
        });
    }

    fn add(&mut self, e: &Event) {
        let compact = self.opts.compact_sched;
        let b = self.cpus.entry(e.cpu).or_default();
        // Decide the lane: compact only where the reader infers exactly these values.
        let lane = match e.kind {
            EventKind::Switch { prev, .. }
                if compact && b.running.prev() == prev && e.current_pid == prev.pid =>
            {
                Lane::CompactSwitch
            }
            EventKind::Waking { .. } if compact && b.running.pid() == e.current_pid => {
                Lane::CompactWaking
            }
            _ => Lane::Regular,
        };
        self.sched_written = true;
        self.window_end = None;
        self.make_room(e, lane);
        let b = self.cpus.get_mut(&e.cpu).expect("made room above");
        match (lane, e.kind) {
            (
                Lane::CompactSwitch,
                EventKind::Switch {
                    prev_state, next, ..
                },
            ) => {
                b.compact.switch(e.ts, encode_prev_state(prev_state), next);
                self.stats.compact_switches += 1;
            }
            (Lane::CompactWaking, EventKind::Waking { task, target_cpu }) => {
                b.compact.waking(e.ts, task, target_cpu);
                self.stats.compact_wakings += 1;
            }
            _ => {
                let Some(event) = encode(e, &self.marks) else {
                    unreachable!("add() is only called for sched events and markers")
                };
                b.events.push(event);
                self.stats.regular_events += 1;
            }
        }
        if let EventKind::Switch { next, .. } = e.kind {
            b.running.switched_to(next);
        }
        b.len += 1;
        b.last = Some((e.ts, lane));
    }

    /// Makes room in the bundle of `e`'s CPU for it in `lane`. Events of one CPU arrive in time
    /// order; a step back (a clock glitch the source kept) only costs a bundle boundary,
    /// never a reordering.
    fn make_room(&mut self, e: &Event, lane: Lane) {
        let b = self.cpus.entry(e.cpu).or_default();
        let misordered = matches!(b.last, Some(last) if (e.ts, lane) < last);
        if misordered || b.len >= self.opts.max_bundle_events {
            self.flush_cpu(e.cpu);
        }
    }

    /// A non-sched event written as an empty `print`: it holds no fields we could write, but
    /// it keeps the time the trace's window reaches.
    fn add_print(&mut self, e: &Event) {
        self.make_room(e, Lane::Regular);
        let b = self.cpus.get_mut(&e.cpu).expect("made room above");
        b.events.push(FtraceEvent {
            timestamp: Some(e.ts),
            pid: u32::try_from(e.current_pid).ok(),
            event: Some(proto::FtraceEventKind::Print(Default::default())),
            ..Default::default()
        });
        b.len += 1;
        b.last = Some((e.ts, Lane::Regular));
        self.stats.regular_events += 1;
    }
}

fn release_before_4_14(release: &str) -> bool {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let num = |p: Option<&str>| p.and_then(|s| s.parse::<u32>().ok());
    match (num(parts.next()), num(parts.next())) {
        (Some(major), Some(minor)) => (major, minor) < (4, 14),
        _ => false,
    }
}

impl<W: Write> EventSink for Writer<W> {
    /// The trace clock, when the reader knows it up front (trace.dat): Perfetto's
    /// `FtraceClock` numbers; boot (and unknown) is Perfetto's default, left unset.
    fn meta(&mut self, meta: &TraceMeta) {
        self.ftrace_clock = match meta.clock.as_deref() {
            Some("global") => Some(2),
            Some("local") => Some(3),
            Some("mono_raw") => Some(4),
            _ => None,
        };
    }

    fn marks(&mut self, marks: &Marks) {
        self.marks = marks.clone();
    }

    fn event(&mut self, e: &Event) {
        if !self.started {
            self.start(e.ts);
        }
        match e.kind {
            EventKind::TaskName { pid, tgid, comm } => {
                if !self.names.is_empty()
                    && (self.names_ts != e.ts || self.names.len() >= MAX_NAMES_PER_PACKET)
                {
                    self.flush_names();
                }
                self.names_ts = e.ts;
                self.names.push(thread(pid, tgid, comm));
                self.stats.task_names += 1;
            }
            EventKind::Lost { .. } => {
                if self.cpus.get(&e.cpu).is_some_and(|b| b.len > 0) {
                    self.flush_cpu(e.cpu);
                }
                let b = self.cpus.entry(e.cpu).or_default();
                if b.lost_pending {
                    // Two marks with nothing between them read back as one.
                    *self
                        .stats
                        .not_written
                        .entry("lost mark right after another")
                        .or_insert(0) += 1;
                }
                b.lost_pending = true;
                b.running.forget();
                self.stats.lost_marks += 1;
            }
            EventKind::Other if !self.sched_written => {
                // The first non-sched event before any sched one starts the window.
                self.sched_written = true;
                self.add_print(e);
            }
            EventKind::Other => {
                *self
                    .stats
                    .not_written
                    .entry("other (non-sched) event")
                    .or_insert(0) += 1;
                self.window_end = Some(*e);
            }
            _ => self.add(e),
        }
    }
}

fn thread(pid: i32, tgid: i32, comm: Comm) -> Thread {
    Thread {
        tid: Some(pid),
        name: Some(comm.as_bytes().to_vec()),
        tgid: (tgid != -1).then_some(tgid),
    }
}
