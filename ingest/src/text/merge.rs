//! Combining the parsed chunks in file order: line numbers, statistics, the file's
//! `prev_state` encoding, times of lost markers, timestamp order, metadata, the sink.

use super::chunk::{ChunkOut, Pending, CPU_UNKNOWN};
use super::state::{Encoding, Evidence, StateSrc};
use crate::event::{EventKind, EventSink};
use crate::meta::{Format, IngestStats, Ingested, TraceMeta};
use crate::{Error, Result};
use std::collections::BTreeMap;

/// One chunk of input text; the first chunk of each text region knows its 1-based line.
pub struct Piece<'a> {
    pub text: &'a [u8],
    pub region_first_line: Option<u64>,
}

/// How much of a rejected line goes into messages.
const EXCERPT: usize = 100;

pub fn finish(
    pieces: &[Piece<'_>],
    mut outs: Vec<ChunkOut<'_>>,
    html: bool,
    sink: &mut dyn EventSink,
) -> Result<Ingested> {
    let mut stats = IngestStats::default();
    let mut names: BTreeMap<&[u8], u64> = BTreeMap::new();
    let mut evidence = Evidence::default();
    let mut first_bad: Option<(u64, String)> = None;
    let mut meta = TraceMeta {
        format: Some(Format::Text),
        ..TraceMeta::default()
    };
    let (mut cpus_header, mut cpus_comment, mut max_cpu) = (None, None, None);
    let (mut votes_perf, mut votes_dashed, mut votes_latency, mut padded, mut tc_headers) =
        (0, 0, 0, 0, 0);

    let (mut lost_markers, mut lost_events) = (0u64, 0u64);
    let mut next_line = 1;
    for (piece, out) in pieces.iter().zip(&outs) {
        let first_line = piece.region_first_line.unwrap_or(next_line);
        next_line = first_line + out.lines;
        for (name, n) in &out.names {
            *names.entry(name).or_insert(0) += n;
        }
        for (reason, n) in &out.rejected {
            *stats.rejected.entry(reason.to_string()).or_insert(0) += n;
        }
        for ex in &out.examples {
            let line = first_line + ex.line;
            let text = String::from_utf8_lossy(&ex.text[..ex.text.len().min(EXCERPT)]);
            if first_bad.is_none() {
                first_bad = Some((line, format!("{}: {:?}", ex.reason, text)));
            }
            if stats.reject_examples.len() < 5 {
                stats
                    .reject_examples
                    .push(format!("line {line}: {}: {:?}", ex.reason, text));
            }
        }
        evidence.merge(&out.evidence);
        cpus_header = out.cpus_header.or(cpus_header);
        cpus_comment = cpus_comment.or(out.cpus_comment);
        max_cpu = max_cpu.max(out.max_cpu);
        if let Some(v) = out.version {
            meta.extra.insert(
                "trace-cmd file version".into(),
                String::from_utf8_lossy(v).trim().to_string(),
            );
        }
        if let Some(r) = out.kernel_release {
            meta.kernel_release
                .get_or_insert_with(|| String::from_utf8_lossy(r).into_owned());
        }
        lost_markers += out.lost_markers;
        lost_events += out.lost_events;
        votes_perf += out.votes.perf;
        votes_dashed += out.votes.dashed;
        votes_latency += out.votes.latency;
        padded += out.votes.padded;
        tc_headers += out.trace_cmd_headers;
    }
    stats.events = names
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), v))
        .collect();
    let total_events: u64 = stats.events.values().sum();
    if total_events == 0 {
        return Err(match first_bad {
            Some((line, cause)) => Error::at_line(
                line,
                format!("not a trace text line ({cause}); no event line parsed"),
            ),
            None => Error::whole("trace text without any event lines (only headers or comments)"),
        });
    }

    meta.format_version = flavour(
        html,
        votes_perf,
        votes_dashed,
        votes_latency,
        padded,
        tc_headers,
    );
    if votes_latency > 0 {
        meta.extra.insert(
            "timestamps".into(),
            "latency format: µs since the trace buffer start".into(),
        );
    }
    meta.cpus = cpus_header
        .or(cpus_comment)
        .or(max_cpu.map(|m| m.saturating_add(1)));

    if lost_markers > 0 {
        meta.extra.insert(
            "lost events".into(),
            format!("{lost_markers} markers reporting {lost_events} lost events"),
        );
    }
    let encoding = evidence.encoding();
    let any_raw_state = outs.iter().any(|o| {
        o.events
            .iter()
            .any(|p| matches!(p.state, StateSrc::Value(_)))
    });
    if any_raw_state {
        meta.extra
            .insert("prev_state encoding".into(), encoding.describe());
    }
    resolve_lost_markers(&mut outs);
    stats.out_of_order = emit(outs, encoding, sink);
    Ok(Ingested { meta, stats })
}

fn flavour(
    html: bool,
    perf: u64,
    dashed: u64,
    latency: u64,
    padded: u64,
    tc_headers: u64,
) -> String {
    let name = if html {
        "systrace"
    } else if perf > dashed + latency {
        "perf script"
    } else if latency > dashed {
        "ftrace (latency format)"
    } else if tc_headers > 0 || padded > 0 {
        "trace-cmd report"
    } else {
        "ftrace"
    };
    name.to_string()
}

/// A lost marker is printed just before the first event after the gap: it takes that
/// event's time (and CPU when the marker names none); at the very end, the last event's.
fn resolve_lost_markers(outs: &mut [ChunkOut<'_>]) {
    let mut next: Option<(u64, u32)> = None;
    for out in outs.iter_mut().rev() {
        for p in out.events.iter_mut().rev() {
            if p.needs_time {
                if let Some((ts, cpu)) = next {
                    fill(p, ts, cpu);
                }
            } else {
                next = Some((p.event.ts, p.event.cpu));
            }
        }
    }
    let mut last: Option<(u64, u32)> = None;
    for p in outs.iter_mut().flat_map(|o| o.events.iter_mut()) {
        if p.needs_time {
            let (ts, cpu) = last.unwrap_or((0, 0));
            fill(p, ts, cpu);
        } else {
            last = Some((p.event.ts, p.event.cpu));
        }
    }
}

fn fill(p: &mut Pending, ts: u64, cpu: u32) {
    p.event.ts = ts;
    if p.event.cpu == CPU_UNKNOWN {
        p.event.cpu = cpu;
    }
    p.needs_time = false;
}

/// Feeds the sink in timestamp order; returns how many events arrived out of order.
/// Sorted input (the common case) streams chunk by chunk without another copy; otherwise
/// a stable sort by time keeps each CPU's own order among equal timestamps.
fn emit(outs: Vec<ChunkOut<'_>>, encoding: Encoding, sink: &mut dyn EventSink) -> u64 {
    let mut max_ts = 0;
    let mut out_of_order = 0;
    for p in outs.iter().flat_map(|o| &o.events) {
        if p.event.ts < max_ts {
            out_of_order += 1;
        }
        max_ts = max_ts.max(p.event.ts);
    }
    let mut deliver = |p: &Pending| {
        let mut event = p.event;
        if let (StateSrc::Value(v), EventKind::Switch { prev_state, .. }) =
            (p.state, &mut event.kind)
        {
            *prev_state = encoding.decode(v);
        }
        sink.event(&event);
    };
    if out_of_order == 0 {
        outs.iter().flat_map(|o| &o.events).for_each(&mut deliver);
    } else {
        let mut all: Vec<Pending> = Vec::with_capacity(outs.iter().map(|o| o.events.len()).sum());
        for out in outs {
            all.extend(out.events);
        }
        all.sort_by_key(|p| p.event.ts);
        all.iter().for_each(deliver);
    }
    out_of_order
}
