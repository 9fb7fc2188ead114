//! Bad Perfetto input: clear errors with the byte offset and cause, never a panic;
//! a recording cut short after whole packets is read and the cut is surfaced.

use ingest::perfetto::proto::*;
use ingest::perfetto::{Writer, WriterOptions};
use ingest::{Event, EventSink, Location};
use proptest::prelude::*;
use prost::Message;

fn read(bytes: &[u8]) -> ingest::Result<ingest::Ingested> {
    ingest::perfetto::read(bytes, &mut |_: &Event| {})
}

/// A valid trace written by our writer from a real trace's first 3000 events.
fn small_trace(compact: bool) -> Vec<u8> {
    let path = fixtures::trace("cfs-6.1-vm/pp1/trace-v6.dat.xz");
    let mut events = Vec::new();
    let got = ingest::read_path(&path, &mut |e: &Event| events.push(*e)).unwrap();
    let mut w = Writer::new(
        Vec::new(),
        WriterOptions {
            compact_sched: compact,
            max_bundle_events: 100,
        },
    );
    for e in events.iter().take(3000) {
        w.event(e);
    }
    w.finish(&got.meta).unwrap().0
}

/// Start offsets of the top-level packets.
fn packet_offsets(bytes: &[u8]) -> Vec<usize> {
    let mut v = Vec::new();
    ingest::perfetto::wire::for_each_packet(bytes, 0, &mut |at, _| {
        v.push(at as usize);
        Ok(())
    })
    .unwrap();
    v
}

#[test]
fn junk_is_an_error_at_offset_zero() {
    for junk in [
        &[0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2][..],
        &[0x0a, 0x05, 0xff][..],
        &[0x12, 0x00][..],
    ] {
        let e = read(junk).unwrap_err();
        assert_eq!(e.location, Location::Offset(0), "{e}");
    }
    let e = ingest::read_bytes(&[0x0a, 0x80, 0x80, 0x80], &mut |_: &Event| {}).unwrap_err();
    assert_eq!(e.location, Location::Offset(0));
    assert!(e.to_string().contains("framing"), "{e}");
}

#[test]
fn a_bad_packet_is_blamed_at_its_offset() {
    let good = small_trace(false);
    let offsets = packet_offsets(&good);
    // Replace the 3rd packet's body with a bundle whose event field has an invalid key.
    let bad_body = [0x0a, 0x03, 0x12, 0x01, 0x0f];
    let mut bytes = good[..offsets[2]].to_vec();
    bytes.extend([0x0a, bad_body.len() as u8]);
    bytes.extend(bad_body);
    bytes.extend(&good[offsets[3]..]);
    let e = read(&bytes).unwrap_err();
    assert_eq!(e.location, Location::Offset(offsets[2] as u64), "{e}");
    assert!(e.cause.contains("TracePacket #2"), "{e}");
    assert!(e.cause.contains("FtraceEventBundle"), "{e}");
}

#[test]
fn inconsistent_compact_sched_is_an_error() {
    let mut c = CompactSched {
        switch_timestamp: vec![10, 5],
        switch_prev_state: vec![0, 0],
        switch_next_pid: vec![1],
        switch_next_prio: vec![120, 120],
        switch_next_comm_index: vec![0, 0],
        intern_table: vec![b"a".to_vec()],
        ..Default::default()
    };
    let trace = |c: &CompactSched| {
        Trace {
            packet: vec![TracePacket {
                ftrace_events: Some(FtraceEventBundle {
                    cpu: Some(0),
                    compact_sched: Some(c.clone()),
                    ..Default::default()
                }),
                ..Default::default()
            }],
        }
        .encode_to_vec()
    };
    let e = read(&trace(&c)).unwrap_err();
    assert_eq!(e.location, Location::Offset(0));
    assert!(
        e.cause
            .contains("switch_next_pid has 1 entries but switch_timestamp has 2"),
        "{e}"
    );
    c.switch_next_pid.push(2);
    c.switch_next_comm_index[1] = 9;
    let e = read(&trace(&c)).unwrap_err();
    assert!(
        e.cause
            .contains("comm index 9 outside the intern table of 1"),
        "{e}"
    );
}

#[test]
fn cut_after_whole_packets_is_read_and_reported() {
    let good = small_trace(true);
    let offsets = packet_offsets(&good);
    let cut_at = offsets[5] + 7;
    let got = read(&good[..cut_at]).unwrap();
    assert_eq!(
        got.stats.rejected.get("truncated last TracePacket"),
        Some(&1)
    );
    assert!(got.stats.reject_examples[0].contains(&format!("offset {}", offsets[5])));
    // Cut inside the very first packet: nothing to read, an error at 0.
    let e = read(&good[..offsets[1] - 1]).unwrap_err();
    assert_eq!(e.location, Location::Offset(0));
}

#[test]
fn every_truncation_of_a_small_trace_is_ok_or_an_error() {
    let good = small_trace(true);
    let offsets = packet_offsets(&good);
    let end = offsets.get(8).copied().unwrap_or(good.len());
    for cut in 0..end {
        let _ = read(&good[..cut]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut bytes = vec![0x0a];
        bytes.extend(tail);
        let _ = read(&bytes);
    }

    #[test]
    fn mutated_traces_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        thread_local!(static GOOD: Vec<u8> = small_trace(true)[..6000].to_vec());
        let mut bytes = GOOD.with(|g| g.clone());
        let n = bytes.len();
        for (at, value) in edits {
            bytes[at % n] = value;
        }
        let _ = read(&bytes);
    }
}
