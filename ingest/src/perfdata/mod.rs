//! `perf.data`, file and pipe mode (formats.md §4), to scheduler events.
//!
//! Two passes over the bytes as given (a memory map or the buffer read from stdin):
//! [`scan`] frames every record once, takes in metadata as it comes (attrs, ids, tracing
//! data, features; pipe mode carries them in-stream), unpacks `perf record -z` data and keeps
//! a 16-byte key (time, place, attr) per event-bearing record; the keys are then fully
//! sorted and [`emit`] decodes each record in place, in time order, into the sink.
//!
//! Ordering: perf writes per-CPU buffers round by round, so records are only ordered within
//! a CPU. We sort all keys at once rather than flushing at FINISHED_ROUND markers: it is
//! correct whatever the markers say (pipe captures, `perf inject`, old perf without them),
//! costs 16 bytes per record (a fraction of the record itself), and sorting a few million
//! nearly-sorted keys takes milliseconds. Equal times keep stream order, as in perf.
//!
//! Why not the `linux-perf-data` crate: we need byte-level access to sample fields in place
//! (zero-copy through a sort that only moves keys), the RAW payload handed straight to the
//! shared ftrace decoder, tolerant per-record rejects with offsets instead of a stop on the
//! first error, the tracing data parsed by our own `ftrace` module, and the topology/cache
//! features; the container framing itself is small (header, attrs, records, features).

pub mod attr;
pub mod bytes;
pub mod compressed;
pub mod emit;
pub mod features;
pub mod header;
pub mod ids;
pub mod records;
pub mod sample;
pub mod scan;

use crate::ftrace::{parse_tracing_data, Decoder, TracingData};
use crate::meta::{Format, TraceMeta};
use crate::{EventSink, Ingested, Result};
use header::Mode;
use scan::Scan;

/// Reads a whole perf.data (file or pipe mode, either byte order) and feeds its events to
/// `sink` in time order.
pub fn read(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    let header = header::parse(bytes)?;
    let mut scan = Scan::new(header.endian, header.mode);
    if header.mode == Mode::File {
        scan.features = features::read_file_features(bytes, &header)?;
        scan.read_file_attrs(bytes, &header)?;
        scan.name_attrs_from_event_desc();
    }
    scan.scan_input(bytes, header.data)?;

    let tracing = match scan.tracing_data.or(scan.features.tracing_data) {
        Some((at, raw)) => Some(parse_tracing_data(raw, at)?),
        None => None,
    };
    let mut meta = describe(&header, &scan, tracing.as_ref())?;
    let decoder = tracing
        .as_ref()
        .map(|t| Decoder::new(&t.formats, t.endian, meta.kernel_release.as_deref()));

    let mut keys = std::mem::take(&mut scan.keys);
    // The stream is a concatenation of time-sorted runs (one per CPU buffer per round): the
    // standard stable sort finds and merges such runs in O(n log runs). Keys are unique, so
    // stability does not change the result.
    keys.sort();
    let formats = tracing.as_ref().map_or(&[][..], |t| &t.formats[..]);
    let mut emitter = emit::Emitter::new(
        header.endian,
        &scan.attrs,
        &scan.ids,
        decoder.as_ref(),
        formats,
    );
    let unpacked = scan.unpacker.as_ref().map_or(&[][..], |u| &u.out[..]);
    let mut stats = std::mem::take(&mut scan.stats);
    sink.meta(&meta);
    emitter.run(&keys, bytes, unpacked, sink, &mut stats);
    emitter.count_into(&mut stats);

    let extra = &mut meta.extra;
    extra.insert("perf.records".into(), scan.records_seen.to_string());
    extra.insert("perf.finished_rounds".into(), scan.rounds.to_string());
    if scan.compressed_records > 0 {
        extra.insert(
            "perf.compressed_records".into(),
            scan.compressed_records.to_string(),
        );
        extra.insert("perf.unpacked_bytes".into(), unpacked.len().to_string());
    }
    extra.insert("perf.lost_events".into(), emitter.lost.to_string());
    extra.insert("perf.lost_records".into(), emitter.lost_records.to_string());
    extra.insert("perf.comm_records".into(), emitter.comm_records.to_string());
    extra.insert("perf.fork_records".into(), emitter.fork_records.to_string());
    extra.insert("perf.exit_records".into(), emitter.exit_records.to_string());
    if emitter.cpu_unknown > 0 {
        extra.insert(
            "perf.samples_without_cpu".into(),
            emitter.cpu_unknown.to_string(),
        );
    }
    Ok(Ingested { meta, stats })
}

/// TraceMeta from the header, the features and the attrs.
fn describe(
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
