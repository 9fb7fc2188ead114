//! `perf.data`, file and pipe mode (formats.md §4), to scheduler events.
//!
//! One pass over the record stream, as perf's own reader does it: [`pass`] frames each
//! record from a [`source::Source`] (a memory map, or standard input as a stream), [`scan`]
//! takes in metadata as it comes (attrs, ids, tracing data, features; pipe mode carries them
//! in-stream), unpacks `perf record -z` data and queues a 16-byte key (time, place, attr) per
//! event-bearing record; at each FINISHED_ROUND the [`rounds`] queue hands the round that
//! became safe to emit, sorted, to [`emit`], which decodes each record in place into the
//! sink, and the input before the oldest waiting record is given up. Memory stays at about
//! two rounds of records whatever the size of the trace, and records are decoded while
//! their bytes are still in the cache. All of that runs on a second thread, which hands the
//! caller's sink the decoded events in ordered batches ([`crate::relay`]), so that reading one
//! round overlaps the analysis of the one before (`ReadOptions::one_thread`: all on the
//! caller's thread, with the same events and ledger).
//!
//! Why not the `linux-perf-data` crate: we need byte-level access to sample fields in place
//! (zero-copy through a sort that only moves keys), the RAW payload handed straight to the
//! shared ftrace decoder, tolerant per-record rejects with offsets instead of a stop on the
//! first error, the tracing data parsed by our own `ftrace` module, the topology/cache
//! features, and a pipe-mode stream read round by round; the container framing itself is
//! small (header, attrs, records, features).

mod attr;
mod bytes;
mod compressed;
mod emit;
mod features;
mod growing;
mod header;
mod ids;
mod pass;
mod records;
mod rounds;
mod sample;
mod scan;
mod source;
pub(crate) mod wrapped;

pub use growing::Growing;

use crate::ftrace::TracingData;
use crate::meta::{Format, TraceMeta};
use crate::progress::Tracker;
use crate::source::{KeepAll, Release};
use crate::{EventSink, Ingested, Result};
use header::Mode;
use scan::Scan;
use std::io::Read;

/// Reads a whole perf.data (file or pipe mode, either byte order) held in memory and feeds
/// its events to `sink` in time order.
pub fn read(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    read_opts(bytes, sink, Default::default())
}

/// [`read`] under a run's `options` (`--strict`, `--max-inflate`).
pub fn read_opts(
    bytes: &[u8],
    sink: &mut dyn EventSink,
    options: crate::ReadOptions,
) -> Result<Ingested> {
    crate::read_alone(options, sink, |sink, tracker| {
        read_tracked(bytes, &KeepAll, sink, tracker)
    })
}

/// [`read`], telling `release` which input ranges have been consumed and counting the framed
/// records in `progress` (stopping when it is cancelled).
pub(crate) fn read_tracked(
    bytes: &[u8],
    release: &dyn Release,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let header = header::parse(bytes)?;
    let mut scan = Scan::new(header.endian, progress.options());
    if header.mode == Mode::File {
        scan.features = features::read_file_features(bytes, &header)?;
        scan.read_file_attrs(bytes, &header)?;
        scan.name_attrs_from_event_desc();
    }
    let data = header.data.slice(bytes, "data", 40)?;
    let end = header.data.offset as usize + data.len();
    let read = |sink: &mut dyn EventSink| {
        let mut source = source::Mapped::new(bytes, end, release);
        emit_rounds(&header, scan, &mut source, sink, progress)
    };
    if progress.options().one_thread {
        read(sink)
    } else {
        // Framing, ordering and decoding on a second thread, the sink on this one: the
        // analysis is the larger half, and it gets a core of its own.
        crate::relay::run(read, sink)
    }
}

/// The one pass over `source`: every round framed, ordered and decoded into `sink` on the
/// calling thread, then the ledger and the metadata.
fn emit_rounds(
    header: &header::Header,
    scan: Scan,
    source: &mut impl source::Source,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let mut emitting = pass::Emitting {
        emitter: emit::Emitter::default(),
        sink,
        stats: crate::IngestStats::default(),
    };
    let pass = pass::run(header, scan, source, &mut emitting, progress)?;
    let pass::Emitting {
        emitter,
        sink,
        stats,
    } = emitting;
    pass.finish(emitter, stats, sink)
}

/// True when `prefix` (at least 16 bytes) starts a pipe-mode perf.data: the one kind of
/// perf.data that can be read as a stream.
pub fn is_pipe_header(prefix: &[u8]) -> bool {
    header::parse(prefix.get(..16).unwrap_or(prefix)).is_ok_and(|h| h.mode == Mode::Pipe)
}

/// Reads a pipe-mode perf.data (`perf record -o -`) from `reader` as it arrives, holding
/// only the records of the rounds not emitted yet. `prefix` holds the input's first bytes,
/// already read to detect the format.
pub fn read_stream(
    prefix: Vec<u8>,
    reader: impl Read,
    sink: &mut dyn EventSink,
) -> Result<Ingested> {
    crate::read_alone(Default::default(), sink, |sink, tracker| {
        read_stream_tracked(prefix, reader, sink, tracker)
    })
}

/// [`read_stream`], counting the bytes framed in `progress` (and stopping a cancelled read).
pub(crate) fn read_stream_tracked(
    prefix: Vec<u8>,
    reader: impl Read,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let mut source = source::Streamed::new(prefix, reader);
    let head = source::Source::get(&mut source, 0, header::PIPE_HEADER_SIZE as usize)?;
    let header = header::parse(head)?;
    if header.mode != Mode::Pipe {
        return Err(crate::Error::at(
            8,
            "a file-mode perf.data cannot be read as a stream (it points back and forth): give the file name",
        ));
    }
    let scan = Scan::new(header.endian, progress.options());
    let mut ingested = emit_rounds(&header, scan, &mut source, sink, progress)?;
    ingested.meta.extra.insert(
        "perf.stream_peak_buffered_bytes".into(),
        source::Source::peak_held(&source).to_string(),
    );
    Ok(ingested)
}

/// TraceMeta from the header, the features and the attrs.
pub(crate) fn describe(
    header: &header::Header,
    scan: &Scan,
    tracing: Option<&TracingData>,
) -> Result<TraceMeta> {
    let f = &scan.features;
    let mut meta = TraceMeta {
        format: Some(Format::PerfData),
        format_version: match header.mode {
            Mode::File => "file".to_string(),
            Mode::Pipe => "pipe".to_string(),
        },
        kernel_release: f.osrelease.clone(),
        cpus: f.cpus_available.or(f.cpus_online),
        ..TraceMeta::default()
    };
    if scan.compressed_records > 0 || f.compression.is_some() {
        meta.format_version.push_str(" (zstd)");
    }
    // perf's default clock is perf_clock (sched_clock, the ftrace "local" clock); -k picks one.
    let clockid = scan
        .attrs
        .iter()
        .find(|a| a.attr.use_clockid())
        .map(|a| a.attr.clockid)
        .or(f.clockid);
    meta.clock = Some(clockid.map_or_else(|| "perf".to_string(), attr::clock_name));
    let extra = &mut meta.extra;
    let mut put = |key: &str, value: Option<String>| {
        if let Some(v) = value {
            extra.insert(key.to_string(), v);
        }
    };
    put("hostname", f.hostname.clone());
    put("perf_version", f.perf_version.clone());
    put("arch", f.arch.clone());
    put("cpu_desc", f.cpu_desc.clone());
    put("cpuid", f.cpuid.clone());
    put("cmdline", f.cmdline.clone());
    put("cpus_online", f.cpus_online.map(|n| n.to_string()));
    put("total_mem_kb", f.total_mem_kb.map(|n| n.to_string()));
    put(
        "clock_resolution_ns",
        f.clock_resolution_ns.map(|n| n.to_string()),
    );
    put(
        "compression",
        f.compression.map(|(kind, level)| {
            if kind == 1 {
                format!("zstd level {level}")
            } else {
                format!("type {kind} level {level}")
            }
        }),
    );
    put(
        "sample_time",
        f.sample_time.map(|(a, b)| format!("{a}..{b}")),
    );
    put("tracing_data_version", tracing.map(|t| t.version.clone()));
    if !f.hybrid.is_empty() {
        let text: Vec<String> = f.hybrid.iter().map(|(p, c)| format!("{p}={c}")).collect();
        put("hybrid_pmus", Some(text.join(" ")));
    }
    let names: Vec<String> = scan
        .attrs
        .iter()
        .map(|a| {
            a.name
                .clone()
                .unwrap_or_else(|| format!("type{}:{:#x}", a.attr.kind, a.attr.config))
        })
        .collect();
    put("perf.events", Some(names.join(",")));
    meta.topology = f.topology(header.endian)?;
    Ok(meta)
}
