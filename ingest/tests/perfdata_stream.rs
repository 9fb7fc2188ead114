//! Pipe-mode perf.data read as a stream (`perf sched record -o - | schedtrace analyze -`):
//! the same events as reading the whole file, emitted round by round while the input is
//! still arriving, with only a few rounds of it held.
//!
//! Fixture: `sched-record.pipe.data.xz` (fixtures/perfdata/capture-sched-pipe.sh): `perf sched
//! record -m 32 -o -` around `perf bench sched pipe -l 12000` on this machine's EEVDF 6.18;
//! 108 FINISHED_ROUND markers; the small buffers overflowed once on CPU 1 (`perf script
//! --show-lost-events`: `[001] 9627.235300: PERF_RECORD_LOST lost 225`).

mod perfdata_common;
use ingest::{Event, EventKind, Ingested};
use perfdata_common::*;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Read;
use std::rc::Rc;

/// Hands out the input in pipe-sized pieces and tells how much it has handed out.
struct Pipe {
    data: Vec<u8>,
    at: usize,
    handed_out: Rc<Cell<usize>>,
}

impl Read for Pipe {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = out.len().min(self.data.len() - self.at).min(64 << 10);
        out[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        self.handed_out.set(self.at);
        Ok(n)
    }
}

struct Seen {
    events: Vec<Event>,
    /// Input bytes handed to the reader when the first event arrived.
    read_at_first_event: Option<usize>,
    handed_out: Rc<Cell<usize>>,
}

impl ingest::EventSink for Seen {
    fn event(&mut self, e: &Event) {
        self.read_at_first_event
            .get_or_insert(self.handed_out.get());
        self.events.push(*e);
    }
}

fn stream(data: Vec<u8>) -> (Ingested, Seen) {
    let handed_out = Rc::new(Cell::new(0));
    let mut seen = Seen {
        events: Vec::new(),
        read_at_first_event: None,
        handed_out: handed_out.clone(),
    };
    let prefix = data[..16].to_vec();
    let pipe = Pipe {
        data,
        at: 16,
        handed_out,
    };
    let ingested = ingest::perfdata::read_stream(prefix, pipe, &mut seen).expect("stream");
    (ingested, seen)
}

#[test]
fn stream_gives_the_file_events_while_holding_a_few_rounds() {
    let data = bytes(&fixture("sched-record.pipe.data.xz"));
    let total = data.len();
    let (from_file, file_events) = read_all(&fixture("sched-record.pipe.data.xz"));
    let (from_stream, seen) = stream(data);

    // `perf script` counts (capture script) and the loss perf reports.
    let expected: BTreeMap<String, u64> = [
        ("sched_migrate_task", 9),
        ("sched_process_fork", 1),
        ("sched_stat_runtime", 25521),
        ("sched_switch", 24151),
        ("sched_wakeup_new", 1),
        ("sched_waking", 12680),
    ]
    .iter()
    .map(|&(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(from_stream.stats.events, expected);
    assert_eq!(from_stream.meta.extra["perf.finished_rounds"], "108");
    assert_eq!(
        from_stream.meta.extra["perf.records_after_their_round"],
        "0"
    );
    assert_eq!(from_stream.meta.extra["perf.lost_events"], "225");
    let lost: Vec<(u32, Option<u64>)> = seen
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Lost { count } => Some((e.cpu, count)),
            _ => None,
        })
        .collect();
    assert_eq!(lost, vec![(1, Some(225))]);

    // Exactly the events of the whole-file read, in the same order.
    assert_eq!(seen.events, file_events);
    assert_eq!(from_stream.stats.events, from_file.stats.events);

    // Streaming: the first events went out after a small part of the input had arrived,
    // and the buffer never held more than a fraction of it.
    let first = seen.read_at_first_event.unwrap();
    assert!(
        first < total / 4,
        "first event after {first} of {total} bytes"
    );
    let peak: usize = from_stream.meta.extra["perf.stream_peak_buffered_bytes"]
        .parse()
        .unwrap();
    assert!(peak < total / 2, "held {peak} of {total} bytes");
    eprintln!("first event after {first} of {total} bytes; at most {peak} bytes held");
}

#[test]
fn a_file_mode_perf_data_is_not_streamed() {
    if fixtures::public_missing() {
        return;
    }
    let data = bytes(&shared("public/perfparser/probe.data.file"));
    let prefix = data[..16].to_vec();
    assert!(!ingest::perfdata::is_pipe_header(&prefix));
    let mut sink = |_: &Event| {};
    let err = ingest::perfdata::read_stream(prefix, &data[16..], &mut sink).unwrap_err();
    assert!(err.cause.contains("truncated perf.data header"), "{err}");
}

#[test]
fn a_stream_cut_inside_a_record_is_read_to_the_cut_and_names_it() {
    let data = bytes(&fixture("sched-record.pipe.data.xz"));
    let cut = data.len() / 2;
    let (prefix, rest) = (data[..16].to_vec(), &data[16..cut]);
    let mut n = 0;
    let mut sink = |_: &Event| n += 1;
    let got = ingest::perfdata::read_stream(prefix, rest, &mut sink).unwrap();
    // One skipped stretch: from the start of the cut record to the end of the input.
    assert_eq!(got.stats.skipped.len(), 1, "{:?}", got.stats.skipped);
    let s = &got.stats.skipped[0];
    assert!(
        s.offset as usize <= cut && s.offset as usize > cut - 4096,
        "{s:?}"
    );
    assert_eq!(s.offset + s.bytes, cut as u64);
    assert!(
        s.reason.contains("past the end") || s.reason.contains("whole record header"),
        "{}",
        s.reason
    );
    assert!(n > 0, "the rounds before the cut were emitted");
}

/// `perf record -z -o -`: zstd-compressed records in a pipe, read as a stream. Counts from
/// `perf script` (fixtures/README.md); the same events as the whole-file read.
#[test]
fn compressed_pipe_streams_too() {
    let path = fixture("sched-events.zstd.pipe.data.xz");
    let (from_file, file_events) = read_all(&path);
    let (from_stream, seen) = stream(bytes(&path));
    let expected: BTreeMap<String, u64> = [("sched_switch", 243), ("sched_waking", 126)]
        .iter()
        .map(|&(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(from_stream.stats.events, expected);
    assert_eq!(from_stream.meta.format_version, "pipe (zstd)");
    assert_eq!(from_stream.meta.extra["perf.compressed_records"], "4");
    assert_eq!(seen.events, file_events);
    assert_eq!(from_file.stats.events, expected);
}
