//! trace-cmd `trace.dat`, versions 6 and 7 (formats.md §1): layout parsing
//! ([`v6`], [`v7`]), decompression ([`compress`]), per-CPU page streams ([`stream`])
//! and their time-ordered merge ([`merge`]). Only the top instance is analysed.

pub(crate) mod compress;
pub mod layout;
mod merge;
mod options;
mod stream;
pub mod v6;
pub mod v7;

use crate::error::{Error, Result};
use crate::ftrace::tracing_data::read_initial_header;
use crate::ftrace::{Decoder, Endian, PageDecoder};
use crate::meta::{Format, Ingested, TraceMeta};
use crate::progress::Tracker;
use crate::source::{KeepAll, Release};
use crate::EventSink;
use layout::Layout;
use options::TsAdjust;
use stream::{CpuStream, Shared};

/// Reads a whole trace.dat held in memory and feeds its events to `sink` in time order.
pub fn read(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    crate::read_alone(Default::default(), sink, |sink, tracker| {
        read_tracked(bytes, &KeepAll, sink, tracker)
    })
}

/// [`read`], telling `release` which file ranges each CPU's decoding has left behind and
/// counting each fill of a CPU's pages in `progress` (stopping there once it is cancelled).
pub(crate) fn read_tracked(
    bytes: &[u8],
    release: &dyn Release,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let (_, _, _, version, _) = read_initial_header(bytes, 0)?;
    let layout = match version.as_str() {
        "6" => v6::parse(bytes)?,
        "7" => v7::parse(bytes)?,
        other => {
            return Err(Error::at(
                10,
                format!("trace.dat version {other:?} is not supported (only 6 and 7)"),
            ))
        }
    };
    let kernel_release = layout.options.kernel_release();
    let meta = meta(&layout, kernel_release.clone());
    read_layout(
        &layout,
        kernel_release.as_deref(),
        meta,
        release,
        sink,
        progress,
    )
}

/// Reads the CPU pages that `layout` points at (of a trace.dat, or of a schedviz capture laid
/// out the same way) into `sink`, in time order, under `meta`.
pub(crate) fn read_layout(
    layout: &Layout,
    kernel_release: Option<&str>,
    meta: TraceMeta,
    release: &dyn Release,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let decoder = Decoder::new(
        &layout.formats,
        layout.endian,
        kernel_release,
        progress.marks(),
    );
    let shared = Shared {
        decoder: &decoder,
        pages: PageDecoder::new(layout.endian, layout.header_page),
        page_size: layout.page_size,
        adjust: TsAdjust {
            tsc2nsec: layout.options.tsc2nsec,
            offset: layout.options.ts_offset,
        },
        release,
        inflate: std::sync::Arc::new(progress.budget()),
        progress,
    };
    let mut streams = layout
        .cpus
        .iter()
        .map(|c| CpuStream::new(c, &shared, layout.endian))
        .collect::<Result<Vec<_>>>()?;
    sink.meta(&meta);
    merge::run(&mut streams, &shared, &layout.cmdlines, sink)?;
    let mut ingested = Ingested {
        meta,
        ..Default::default()
    };
    tally(&streams, &decoder, &mut ingested);
    Ok(ingested)
}

fn meta(layout: &Layout, kernel_release: Option<String>) -> TraceMeta {
    let o = &layout.options;
    let mut meta = TraceMeta {
        format: Some(Format::TraceDat),
        format_version: match layout.version {
            6 => "6".to_string(),
            v => format!("{v} ({})", layout.codec.name()),
        },
        kernel_release,
        cpus: Some(o.cpu_count.unwrap_or(layout.cpus_in_file)),
        clock: o.clock.clone(),
        extra: Default::default(),
        topology: None,
    };
    let mut put = |k: &str, v: String| {
        meta.extra.insert(k.to_string(), v);
    };
    if let Some(v) = &o.tracecmd_version {
        put("trace_cmd_version", v.clone());
    }
    if let Some(u) = &o.uname {
        put("uname", u.clone());
    }
    put(
        "endian",
        if layout.endian == Endian::Little {
            "little"
        } else {
            "big"
        }
        .into(),
    );
    put(
        "kernel_long_size",
        layout.header_page.commit_size.to_string(),
    );
    put("user_long_size", layout.user_long_size.to_string());
    put("page_size", layout.page_size.to_string());
    put("cpus_with_data", layout.cpus.len().to_string());
    if !o.other_instances.is_empty() {
        put("instances_not_analysed", o.other_instances.join(", "));
    }
    if !o.ignored.is_empty() {
        put("options_ignored", o.ignored.join(", "));
    }
    if let Some((mult, shift)) = o.tsc2nsec {
        put("tsc2nsec", format!("mult {mult} shift {shift}"));
    }
    if o.ts_offset != 0 {
        put("ts_offset_ns", o.ts_offset.to_string());
    }
    for stat in &o.cpustats {
        // "CPU: 0\nentries: ...\noverrun: N\n..." (instances start with "\nBuffer: name").
        let cpu = stat
            .lines()
            .find_map(|l| l.strip_prefix("CPU:"))
            .map(str::trim);
        let overrun = stat
            .lines()
            .find_map(|l| l.strip_prefix("overrun:"))
            .map(str::trim);
        if let (Some(cpu), Some(overrun)) = (cpu, overrun) {
            if overrun != "0" {
                put(&format!("cpustat_cpu{cpu}_overrun"), overrun.to_string());
            }
        }
    }
    meta
}

fn tally(streams: &[CpuStream], decoder: &Decoder, ingested: &mut Ingested) {
    let stats = &mut ingested.stats;
    let (mut lost_pages, mut lost_events, mut partial) = (0, 0, 0);
    for s in streams {
        let c = &s.counts;
        for (i, &n) in c.names.iter().enumerate() {
            if n > 0 {
                *stats
                    .events
                    .entry(decoder.event_name(i as u32).to_string())
                    .or_insert(0) += n;
            }
        }
        for (&id, &n) in &c.unknown_ids {
            *stats.rejected.entry("unknown event id".into()).or_insert(0) += n;
            if stats.reject_examples.len() < 5 {
                stats.reject_examples.push(format!(
                    "CPU {}: {n} records with unknown event id {id}",
                    s.cpu
                ));
            }
        }
        for (&(name, reason), &n) in &c.malformed {
            *stats.rejected.entry(reason.to_string()).or_insert(0) += n;
            if stats.reject_examples.len() < 5 {
                stats.reject_examples.push(format!(
                    "CPU {}: {n} {} records: {reason}",
                    s.cpu,
                    decoder.event_name(name)
                ));
            }
        }
        stats.out_of_order += c.out_of_order;
        stats.skipped.extend(c.skipped.iter().cloned());
        lost_pages += c.lost_pages;
        lost_events += c.lost_events;
        partial += c.partial_pages;
    }
    if partial > 0 {
        stats
            .rejected
            .insert("partial page at end of CPU data".into(), partial);
    }
    if lost_pages > 0 {
        ingested
            .meta
            .extra
            .insert("lost_event_marks".into(), lost_pages.to_string());
        ingested
            .meta
            .extra
            .insert("lost_events_known".into(), lost_events.to_string());
    }
}
