//! One CPU's event stream: its pages (raw or chunk-decompressed), decoded a batch
//! at a time into a small buffer of normalized events.
//!
//! Timestamps that go backwards inside one CPU stream are counted and clamped to
//! the previous timestamp: the ring buffer of one CPU is written in event order, so
//! page order is the true order (a backward step is a clock glitch, e.g. an absolute
//! timestamp or an unsynchronised TSC); sorting would reorder causally ordered
//! events (a switch and the wakeup it caused), while clamping keeps both the order
//! and a monotonic global stream for the merge.

use super::compress::Chunks;
use super::layout::{CpuData, CpuSource};
use super::options::TsAdjust;
use crate::error::Result;
use crate::event::{Event, EventKind};
use crate::ftrace::{Decoded, Decoder, PageDecoder, PageItem, PageTally};
use crate::progress::Tracker;
use crate::source::Release;
use std::collections::{BTreeMap, VecDeque};

/// Consumed bytes are given back in steps of this size (fewer madvise calls).
const RELEASE_EVERY: u64 = 4 << 20;

/// What the decoders of all CPUs share (read-only).
pub(super) struct Shared<'d> {
    pub decoder: &'d Decoder,
    pub pages: PageDecoder,
    pub page_size: usize,
    pub adjust: TsAdjust,
    /// Told which file ranges each CPU stream has decoded (offsets index the file bytes).
    pub release: &'d dyn Release,
    /// What the compressed CPU chunks may inflate to, all CPUs together.
    pub inflate: std::sync::Arc<crate::inflate::Budget>,
    /// Moved forward by the bytes of every fill, which also stops a cancelled read.
    pub(crate) progress: &'d Tracker<'d>,
}

/// Per-CPU tallies, summed into `IngestStats` at the end.
#[derive(Debug, Default)]
pub(super) struct Counts {
    /// Events per dense name index of the decoder.
    pub names: Vec<u64>,
    pub unknown_ids: BTreeMap<u32, u64>,
    pub malformed: BTreeMap<(u32, &'static str), u64>,
    pub out_of_order: u64,
    pub lost_pages: u64,
    pub lost_events: u64,
    pub partial_pages: u64,
    /// Corrupt pages stepped over (see [`crate::damage`]).
    pub skipped: Vec<crate::damage::Skipped>,
}

/// What one page adds to its CPU's [`Counts`], held apart until the page is judged: a page
/// found to be garbage leaves the ledger as if it had not been read (names learned, unknown
/// ids, malformed records, out-of-order steps, lost events).
#[derive(Debug, Default)]
struct PageCounts {
    /// The dense name index of each event decoded, in page order.
    names: Vec<u32>,
    unknown_ids: Vec<u32>,
    malformed: Vec<(u32, &'static str)>,
    out_of_order: u64,
    lost_pages: u64,
    lost_events: u64,
    /// What the page's verdict is drawn from.
    tally: PageTally,
}

impl PageCounts {
    fn clear(&mut self) {
        self.names.clear();
        self.unknown_ids.clear();
        self.malformed.clear();
        self.out_of_order = 0;
        self.lost_pages = 0;
        self.lost_events = 0;
        self.tally = PageTally::default();
    }

    /// The page was kept: its counts join the CPU's.
    fn add_to(&self, counts: &mut Counts) {
        for &name in &self.names {
            counts.names[name as usize] += 1;
        }
        for &id in &self.unknown_ids {
            *counts.unknown_ids.entry(id).or_insert(0) += 1;
        }
        for &key in &self.malformed {
            *counts.malformed.entry(key).or_insert(0) += 1;
        }
        counts.out_of_order += self.out_of_order;
        counts.lost_pages += self.lost_pages;
        counts.lost_events += self.lost_events;
    }
}

enum Pages<'a> {
    Raw {
        bytes: &'a [u8],
        offset: u64,
        pos: usize,
    },
    Chunked {
        chunks: Chunks<'a>,
        current: Vec<u8>,
        /// File offset of the current chunk's compressed data (decompressed pages have none).
        current_offset: u64,
        pos: usize,
    },
}

impl<'a> Pages<'a> {
    /// File offset up to which this CPU's data has been consumed.
    fn consumed_to(&self) -> u64 {
        match self {
            Pages::Raw { offset, pos, .. } => *offset + *pos as u64,
            Pages::Chunked { chunks, .. } => chunks.consumed_to(),
        }
    }

    /// The next whole page, the file offset to blame for it, and the first 8 bytes of the page
    /// after it (its timestamp) when they are at hand (not in a chunk still compressed).
    fn next_page(&mut self, page_size: usize, counts: &mut Counts) -> Result<Option<NextPage<'_>>> {
        match self {
            Pages::Raw { bytes, offset, pos } => {
                if *pos + page_size > bytes.len() {
                    if *pos < bytes.len() {
                        counts.partial_pages += 1;
                        *pos = bytes.len();
                    }
                    return Ok(None);
                }
                let at = *pos;
                *pos += page_size;
                Ok(Some((
                    &bytes[at..at + page_size],
                    *offset + at as u64,
                    head_after(bytes, *pos, page_size),
                )))
            }
            Pages::Chunked {
                chunks,
                current,
                current_offset,
                pos,
            } => {
                while *pos + page_size > current.len() {
                    if *pos < current.len() {
                        counts.partial_pages += 1;
                    }
                    match chunks.next_chunk(current) {
                        None => return Ok(None),
                        Some(chunk) => {
                            *current_offset = chunk?;
                            *pos = 0;
                        }
                    }
                }
                let at = *pos;
                *pos += page_size;
                Ok(Some((
                    &current[at..at + page_size],
                    *current_offset,
                    head_after(current, *pos, page_size),
                )))
            }
        }
    }
}

/// A page, the file offset to blame for it, and the timestamp bytes of the page after it.
type NextPage<'p> = (&'p [u8], u64, Option<[u8; 8]>);

/// The first 8 bytes of the whole page at `at` of `bytes`, if there is one.
fn head_after(bytes: &[u8], at: usize, page_size: usize) -> Option<[u8; 8]> {
    let page = bytes.get(at..at.checked_add(page_size)?)?;
    page.first_chunk::<8>().copied()
}

/// A CPU's decoding state and its buffer of decoded, not yet merged events.
pub(super) struct CpuStream<'a> {
    pub cpu: u32,
    pages: Pages<'a>,
    pub buf: VecDeque<Event>,
    /// Timestamp of the last decoded event (after clamping); 0 before the first.
    pub last_ts: u64,
    pub exhausted: bool,
    pub counts: Counts,
    /// File offsets [released_from, consumed_to) are decoded but not yet given back.
    released_from: u64,
    /// File offset up to which the decoded bytes are counted in the progress.
    reported_to: u64,
    /// The counts of the page being decoded (its buffers kept from page to page).
    page_counts: PageCounts,
    /// The events of the page being decoded: they join `buf` only once the page is judged
    /// to hold ring-buffer data, all at once.
    page_events: Vec<Event>,
}

impl<'a> CpuStream<'a> {
    pub(super) fn new(
        data: &CpuData<'a>,
        shared: &Shared,
        endian: crate::ftrace::Endian,
    ) -> Result<CpuStream<'a>> {
        let start = match data.source {
            CpuSource::Raw { offset, .. } | CpuSource::Chunked { offset, .. } => offset,
        };
        let pages = match data.source {
            CpuSource::Raw { bytes, offset } => Pages::Raw {
                bytes,
                offset,
                pos: 0,
            },
            CpuSource::Chunked {
                bytes,
                offset,
                codec,
            } => Pages::Chunked {
                chunks: Chunks::new(bytes, offset, endian, codec, shared.inflate.clone())?,
                current: Vec::new(),
                current_offset: offset,
                pos: 0,
            },
        };
        Ok(CpuStream {
            cpu: data.cpu,
            pages,
            buf: VecDeque::new(),
            last_ts: 0,
            exhausted: false,
            counts: Counts {
                names: vec![0; shared.decoder.event_count()],
                ..Counts::default()
            },
            released_from: start,
            reported_to: start,
            page_counts: PageCounts::default(),
            page_events: Vec::new(),
        })
    }

    /// Decodes up to `max_pages` more pages into `buf`.
    pub(super) fn fill(&mut self, shared: &Shared, max_pages: usize) -> Result<()> {
        let cpu = self.cpu;
        let buf = &mut self.buf;
        let counts = &mut self.counts;
        let last_ts = &mut self.last_ts;
        for _ in 0..max_pages {
            let Some((page, offset, next_head)) = self.pages.next_page(shared.page_size, counts)?
            else {
                self.exhausted = true;
                break;
            };
            // One walk of the page: its events and its counts go aside, and the page is judged
            // at its end. A page whose payload is no ring-buffer data (overwritten, random) is
            // then dropped whole: the records it seemed to hold are not events.
            let last_ts_before = *last_ts;
            let page_events = &mut self.page_events;
            page_events.clear();
            let mut push = |ts: u64, current_pid: i32, kind: EventKind, page: &mut PageCounts| {
                let mut ts = shared.adjust.apply(ts);
                if ts < *last_ts {
                    page.out_of_order += 1;
                    ts = *last_ts;
                }
                *last_ts = ts;
                page_events.push(Event {
                    ts,
                    cpu,
                    current_pid,
                    kind,
                });
            };
            let page_counts = &mut self.page_counts;
            page_counts.clear();
            let decoded = shared
                .pages
                .decode_page(page, offset, &mut |item| match item {
                    PageItem::Record { ts, payload } => match shared.decoder.decode(payload) {
                        Decoded::Event {
                            name,
                            current_pid,
                            kind,
                        } => {
                            page_counts.tally.record(ts, true);
                            page_counts.names.push(name);
                            push(ts, current_pid, kind, page_counts);
                        }
                        Decoded::Unknown { id } => {
                            page_counts.tally.record(ts, false);
                            page_counts.unknown_ids.push(id);
                        }
                        Decoded::Malformed { name, reason } => {
                            page_counts.tally.record(ts, true);
                            page_counts.malformed.push((name, reason));
                        }
                    },
                    PageItem::Lost { ts, count } => {
                        page_counts.lost_pages += 1;
                        page_counts.lost_events += count.unwrap_or(0);
                        push(ts, -1, EventKind::Lost { count }, page_counts);
                    }
                });
            let next_ts = next_head.map(|h| shared.pages.endian.u64_at(&h, 0).unwrap_or(0));
            let verdict = shared
                .pages
                .judge(decoded, &page_counts.tally, offset, next_ts);
            if let Err(e) = verdict {
                // A `print` record of the page has already put its text in the read's marker
                // table: it stays there, unused (a page holds few, the table is bounded).
                *last_ts = last_ts_before;
                if shared.progress.options().strict {
                    return Err(e);
                }
                // The page is skipped from the damage on (from its data, when its records as a
                // whole make no sense), and the CPU reads as after lost events from its last
                // event on.
                let at = match e.location {
                    crate::Location::Offset(o) if o >= offset && o < offset + page.len() as u64 => {
                        o
                    }
                    _ => offset,
                };
                counts.skipped.push(crate::damage::Skipped {
                    cpu: Some(cpu),
                    offset: at,
                    bytes: offset + page.len() as u64 - at,
                    reason: e.cause,
                });
                buf.push_back(Event {
                    ts: *last_ts,
                    cpu,
                    current_pid: -1,
                    kind: EventKind::Lost { count: None },
                });
            } else {
                page_counts.add_to(counts);
                buf.extend(self.page_events.iter());
            }
        }
        // Events are copies: the pages just decoded are not looked at again.
        let consumed = self.pages.consumed_to();
        if consumed >= self.released_from + RELEASE_EVERY {
            shared
                .release
                .release(self.released_from as usize..consumed as usize);
            self.released_from = consumed;
        }
        let new = consumed.saturating_sub(self.reported_to);
        self.reported_to = self.reported_to.max(consumed);
        shared.progress.advance(new)
    }
}
