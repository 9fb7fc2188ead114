//! The one pass over the record stream: frame a record, let [`Scan`] take it in, and
//! whenever a FINISHED_ROUND makes a round safe, decode it into the sink ([`Emitting`]) and
//! give up the input before the oldest record still waiting.

use super::bytes::{u16_at, u32_at, u64_at};
use super::emit::{Emitter, Segment, Session};
use super::header::Header;
use super::records;
use super::rounds::Key;
use super::scan::{Scan, SEG_INPUT, SEG_UNPACKED};
use super::source::Source;
use crate::event::Marks;
use crate::ftrace::{parse_tracing_data, Decoder, TracingData};
use crate::meta::TraceMeta;
use crate::progress::Tracker;
use crate::{Error, EventSink, IngestStats, Ingested, Result};
use std::sync::Arc;

/// How far ahead of the record being framed the input is prefetched: a few records' worth
/// beyond the next page.
const PREFETCH_AHEAD: u64 = 4096 + 512;

/// Where the rounds go, in order: the metadata (once, before any round), the session
/// whenever it changed, then the rounds, each decoded into the sink as it comes.
pub(super) struct Emitting<'s> {
    pub emitter: Emitter,
    pub sink: &'s mut dyn EventSink,
    /// Records the emitter rejected.
    pub stats: IngestStats,
}

impl Emitting<'_> {
    fn meta(&mut self, meta: &TraceMeta) {
        self.sink.meta(meta);
    }

    /// The attrs, ids or decoder changed (and before the first round).
    fn session(&mut self, session: &Session, tracing: Option<&Arc<TracingData>>) {
        self.emitter
            .prepare(session, tracing.map_or(&[][..], |t| &t.formats[..]));
    }

    /// One round's keys, sorted, and the segments they point into.
    fn round(&mut self, keys: &[Key], session: &Session, input: Segment, unpacked: Segment) {
        self.emitter
            .run(keys, session, input, unpacked, self.sink, &mut self.stats);
    }
}

/// What is built once the metadata has arrived, before the first event goes out.
#[derive(Default)]
pub(super) struct Ready {
    tracing: Option<Arc<TracingData>>,
    decoder: Option<Arc<Decoder>>,
    /// The metadata went to [`Emitting::meta`] (the final one is rebuilt at the end).
    meta_sent: bool,
    /// `Scan::generation` last handed to [`Emitting::session`].
    session_sent: Option<u64>,
}

/// The reader's state between records; what is left of it at the end goes into
/// [`Pass::finish`].
pub(super) struct Pass<'h> {
    header: &'h Header,
    scan: Scan,
    ready: Ready,
    /// The read's marker table, for the decoder of the RAW samples.
    marks: Marks,
}

/// Input framed between two reports to the progress (and looks at its cancellation flag).
const REPORT_EVERY: u64 = 256 << 10;

/// Reads every record of the data from `header.data.offset` to the end of `source` and
/// decodes the rounds with `rounds`, reporting the framed input to `progress` every
/// [`REPORT_EVERY`] bytes (stopping there when it is cancelled).
pub(crate) fn run<'h>(
    header: &'h Header,
    scan: Scan,
    source: &mut impl Source,
    rounds: &mut Emitting,
    progress: &Tracker,
) -> Result<Pass<'h>> {
    let mut pass = Pass {
        header,
        scan,
        ready: Ready::default(),
        marks: progress.marks().clone(),
    };
    let mut pos = header.data.offset;
    let mut report_at = pos + REPORT_EVERY;
    loop {
        if pos >= report_at {
            progress.reached(pos)?;
            report_at = pos + REPORT_EVERY;
        }
        let len = match record_len(header, source, pos) {
            Ok(len) => len,
            Err(e) => {
                pass.skip_tail(source, pos, e)?;
                break;
            }
        };
        if len == 0 {
            break;
        }
        source.prefetch(pos + PREFETCH_AHEAD);
        let bytes = source.get(pos, len)?;
        let rec = match records::frame(header.endian, bytes, 0, pos) {
            Ok(rec) => rec.expect("a whole record header was read"),
            Err(e) => {
                pass.skip_tail(source, pos, e)?;
                break;
            }
        };
        pass.scan.record(rec, pos as usize)?;
        pos += rec.len as u64;
        if pass.scan.queue.has_due() {
            pass.flush(source, pos, rounds, false)?;
        }
    }
    pass.scan.finish()?;
    pass.flush(source, pos, rounds, true)?;
    Ok(pass)
}

/// How much of an unframable tail is counted (it is held in memory while the last rounds
/// still need the records before it); a longer tail is reported as "at least" this.
const TAIL_COUNTED: u64 = 1 << 20;

impl Pass<'_> {
    /// A record that cannot be framed once events have been read: the rest of the input is
    /// skipped and named in the ledger (a size field corrupt mid-file, or the text perf prints,
    /// appended to a pipe-mode file by `> file 2>&1`), unless `--strict`. Framing cannot resume
    /// after a bad size: every later record is found through the one before it.
    fn skip_tail(&mut self, source: &mut impl Source, pos: u64, e: Error) -> Result<()> {
        // Before the first timed record the input is metadata: nothing would be left to read.
        if self.scan.options.strict || self.scan.timed_records == 0 {
            return Err(e);
        }
        let head = source.get(pos, 256)?.to_vec();
        let mut bytes = head.len() as u64;
        while bytes < TAIL_COUNTED {
            let n = source.get(pos + bytes, 1 << 16)?.len() as u64;
            if n == 0 {
                break;
            }
            bytes += n;
        }
        let at_least = if bytes >= TAIL_COUNTED {
            "at least "
        } else {
            ""
        };
        let texty = head
            .iter()
            .all(|&b| b == b'\n' || b == b'\t' || (0x20..0x7f).contains(&b));
        let reason = if texty {
            let line = String::from_utf8_lossy(&head);
            let line = line.lines().next().unwrap_or_default();
            format!("{at_least}{bytes} bytes of text after the last record: {line:?}")
        } else {
            format!(
                "{at_least}{bytes} bytes after the last whole record: {}",
                e.cause
            )
        };
        self.scan.stats.skipped.push(crate::damage::Skipped {
            cpu: None,
            offset: pos,
            bytes,
            reason,
        });
        Ok(())
    }

    /// After the last round: the loss summaries, the counts and the metadata, with the
    /// emitter that decoded the rounds and what it rejected.
    pub(super) fn finish(
        mut self,
        mut emitter: Emitter,
        emit_stats: IngestStats,
        sink: &mut dyn EventSink,
    ) -> Result<Ingested> {
        let scan = &mut self.scan;
        emitter.finish(sink);
        let mut stats = std::mem::take(&mut scan.stats);
        stats.merge(emit_stats);
        emitter.count_into(&session(scan, &self.ready), &mut stats);
        let tracing = self.ready.tracing.as_deref();
        let mut meta = super::describe(self.header, scan, tracing)?;
        let extra = &mut meta.extra;
        let mut put = |key: &str, value: u64| extra.insert(key.to_string(), value.to_string());
        put("perf.records", scan.records_seen);
        put("perf.finished_rounds", scan.rounds);
        put("perf.records_after_their_round", scan.queue.late);
        put("perf.peak_waiting_records", scan.queue.peak_waiting as u64);
        if scan.compressed_records > 0 {
            put("perf.compressed_records", scan.compressed_records);
            put("perf.unpacked_bytes", scan.unpacked_pos as u64);
        }
        put("perf.lost_events", emitter.lost);
        put("perf.lost_records", emitter.lost_records);
        put("perf.comm_records", emitter.comm_records);
        put("perf.fork_records", emitter.fork_records);
        put("perf.exit_records", emitter.exit_records);
        if emitter.cpu_unknown > 0 {
            put("perf.samples_without_cpu", emitter.cpu_unknown);
        }
        // A record emitted after later ones is out of order for the analysis as well.
        stats.out_of_order += scan.queue.late;
        Ok(Ingested {
            meta,
            stats,
            ..Default::default()
        })
    }
}

/// Bytes of the record at `pos` (0 at the end of the input), header and out-of-band payload
/// included, as its header says; [`records::frame`] checks it against what is there.
fn record_len(header: &Header, source: &mut impl Source, pos: u64) -> Result<usize> {
    let endian = header.endian;
    // The header and the first body word (the payload size of the two records that have one).
    let head = source.get(pos, 16)?;
    if head.len() < 8 {
        if head.is_empty() {
            return Ok(0);
        }
        return Err(Error::at(
            pos,
            format!(
                "{} bytes at the end of the data are not a whole record header",
                head.len()
            ),
        ));
    }
    let kind = u32_at(endian, head, 0).unwrap_or(0);
    let size = u16_at(endian, head, 6).unwrap_or(0) as u64;
    let extra = match kind {
        records::HEADER_TRACING_DATA => u32_at(endian, head, 8).map_or(0, u64::from),
        records::AUXTRACE => u64_at(endian, head, 8).unwrap_or(0),
        _ => 0,
    };
    // At least the header, so that framing reports a bad size rather than the end.
    Ok(usize::try_from(size.saturating_add(extra))
        .unwrap_or(usize::MAX)
        .max(8))
}

fn session<'s>(scan: &'s Scan, ready: &'s Ready) -> Session<'s> {
    Session {
        endian: scan.endian,
        attrs: &scan.attrs,
        ids: &scan.ids,
        decoder: ready.decoder.as_deref(),
    }
}

impl Pass<'_> {
    /// Hands the rounds that are due (`last`: everything left) to `rounds` and gives up the
    /// input that no waiting record needs; `pos` is where the next record starts.
    fn flush(
        &mut self,
        source: &mut impl Source,
        pos: u64,
        rounds: &mut Emitting,
        last: bool,
    ) -> Result<()> {
        self.prepare(rounds)?;
        let Pass { scan, ready, .. } = self;
        scan.freeze_ids();
        if ready.session_sent != Some(scan.generation) {
            rounds.session(&session(scan, ready), ready.tracing.as_ref());
            ready.session_sent = Some(scan.generation);
        }
        let session = Session {
            endian: scan.endian,
            attrs: &scan.attrs,
            ids: &scan.ids,
            decoder: ready.decoder.as_deref(),
        };
        let (base, bytes) = source.window();
        let input = Segment {
            base: base as usize,
            bytes,
        };
        let unpacked = scan.unpacker.as_ref().map_or(
            Segment {
                base: 0,
                bytes: &[],
            },
            |u| Segment {
                base: u.base,
                bytes: &u.out,
            },
        );
        let mut emit = |keys: &[Key]| rounds.round(keys, &session, input, unpacked);
        if last {
            scan.queue.finish(&mut emit);
        } else {
            scan.queue.flush_due(&mut emit);
        }
        let low_input = scan
            .queue
            .lowest_offset(SEG_INPUT)
            .map_or(pos, |o| (o as u64).min(pos));
        source.done_before(low_input);
        if let Some(unpacker) = &mut scan.unpacker {
            let low = scan
                .queue
                .lowest_offset(SEG_UNPACKED)
                .map_or(scan.unpacked_pos, |o| o.min(scan.unpacked_pos));
            unpacker.done_before(low);
        }
        Ok(())
    }

    /// Before the first round: the tracing data, the decoder and the trace's metadata.
    /// Tracing data that only arrives later is taken in then.
    fn prepare(&mut self, rounds: &mut Emitting) -> Result<()> {
        let Pass {
            header,
            scan,
            ready,
            marks,
        } = self;
        if ready.meta_sent && (ready.tracing.is_some() || scan.tracing_data.is_none()) {
            return Ok(());
        }
        if ready.tracing.is_none() {
            let raw = scan
                .tracing_data
                .as_ref()
                .or(scan.features.tracing_data.as_ref());
            if let Some((at, raw)) = raw {
                ready.tracing = Some(Arc::new(parse_tracing_data(raw, *at)?));
                // The session now has a decoder: it must be handed on again.
                ready.session_sent = None;
            }
        }
        let meta = super::describe(header, scan, ready.tracing.as_deref())?;
        if let Some(tracing) = &ready.tracing {
            ready.decoder = Some(Arc::new(Decoder::new(
                &tracing.formats,
                tracing.endian,
                meta.kernel_release.as_deref(),
                marks,
            )));
        }
        if !ready.meta_sent {
            rounds.meta(&meta);
            ready.meta_sent = true;
        }
        Ok(())
    }
}
