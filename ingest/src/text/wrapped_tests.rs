//! Compressed text read as it inflates gives what the inflated text read in memory gives.

use super::read;
use crate::event::{Event, EventKind, PrevState};
use crate::source::Wrapper;

/// What was read, its events and its markers' texts: a marker's number belongs to its read
/// (chunks parsed in parallel meet them in any order), so markers compare by text.
type Read = (String, Vec<Event>, Vec<String>);

fn events_of(result: crate::Result<crate::Ingested>, events: Vec<Event>) -> Read {
    let marks = result.as_ref().map(|i| i.marks.clone()).unwrap_or_default();
    let (events, texts) = crate::mark::texts_apart(events, &marks);
    (format!("{result:?}"), events, texts)
}

fn in_memory(text: &[u8]) -> Read {
    let mut events = Vec::new();
    let got = crate::text::read(text, &mut |e: &Event| events.push(*e));
    events_of(got, events)
}

fn inflating(raw: &[u8], wrapper: Wrapper, window: usize) -> Read {
    let mut events = Vec::new();
    let progress = crate::Progress::new();
    let tracker = crate::progress::Tracker::new(&progress);
    let got = crate::mark::read_marked(tracker.marks(), &mut |e: &Event| events.push(*e), |sink| {
        read(raw, wrapper, window, sink, &tracker)
    });
    events_of(got, events)
}

fn zstd(text: &[u8]) -> Vec<u8> {
    zstd::encode_all(text, 3).unwrap()
}

fn assert_same(text: &[u8], what: &str) -> Vec<Event> {
    let (want, want_events, want_texts) = in_memory(text);
    let gz = {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, text).unwrap();
        enc.finish().unwrap()
    };
    for (raw, wrapper) in [(zstd(text), Wrapper::Zstd), (gz, Wrapper::Gzip)] {
        for window in [1, 3 << 20, usize::MAX] {
            let (got, events, texts) = inflating(&raw, wrapper, window);
            assert_eq!(got, want, "{what}: {wrapper:?}, window {window}");
            assert_eq!(texts, want_texts, "{what}: {wrapper:?}, window {window}");
            assert!(
                events == want_events,
                "{what}: {wrapper:?}, window {window}"
            );
        }
    }
    want_events
}

#[test]
fn real_text_inflated_as_read() {
    let path = fixtures::trace("eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz");
    let mut text = Vec::new();
    let file = std::fs::File::open(path).unwrap();
    std::io::Read::read_to_end(&mut xz2::read::XzDecoder::new(file), &mut text).unwrap();
    assert!(
        text.len() > 2 << 20,
        "several windows of one inflate step each"
    );
    let events = assert_same(&text, "trace-cmd report");
    assert_eq!(events.len(), 22_686);
}

/// `x` (0x40) two windows in, and what decides its meaning (a combination of bits: an old
/// kernel, so TASK_DEAD) at the very end: the look-ahead inflates the rest again.
#[test]
fn the_encoding_is_settled_from_the_rest_of_the_stream() {
    let line = |us: u64, state: &str| {
        format!(
            "            a-10    [000]  {}.{:06}: sched_switch:         a:10 [120] {state} ==> b:11 [120]\n",
            us / 1_000_000,
            us % 1_000_000
        )
    };
    let mut text = String::from("cpus=1\n");
    let mut us = 1;
    while text.len() < 1_500_000 {
        text += &line(us, "S");
        us += 1;
    }
    let x_at = us;
    text += &line(us, "x");
    while text.len() < 3_000_000 {
        us += 1;
        text += &line(us, "R");
    }
    text += &line(us + 1, "S|D");
    let events = assert_same(text.as_bytes(), "x then S|D");
    let x = events.iter().find(|e| e.ts == x_at * 1000).unwrap();
    assert!(matches!(
        x.kind,
        EventKind::Switch {
            prev_state: PrevState::Dead,
            ..
        }
    ));
}

#[test]
fn a_cut_stream_fails_with_the_offset() {
    let text = "cpus=1\n".to_string()
        + &"            a-10    [000]  1.000001: sched_switch:         a:10 [120] S ==> b:11 [120]\n"
            .repeat(50_000);
    let raw = zstd(text.as_bytes());
    let (got, ..) = inflating(&raw[..raw.len() / 2], Wrapper::Zstd, 1);
    assert!(got.contains("zstd decompression failed after"), "{got}");
}
