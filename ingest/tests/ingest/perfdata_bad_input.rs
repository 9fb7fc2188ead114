//! Corrupt perf.data input: a clear error with the byte offset and the cause, never a panic
//! or an endless loop. Hand-made corruptions of real files, then a bounded proptest that
//! truncates and mutates real files (file mode, pipe mode, zstd-compressed).

use crate::perfdata_common::*;
use ingest::{Error, Location};
use proptest::prelude::*;

fn read(bytes: &[u8]) -> Result<ingest::Ingested, Error> {
    let mut sink = |_e: &ingest::Event| {};
    ingest::perfdata::read(bytes, &mut sink)
}

/// The error of `bytes` under `--strict` (by default an unframable tail after the events is
/// skipped and listed instead, see `a_cut_pipe_stream_is_read_to_the_cut`).
fn err(bytes: &[u8]) -> Error {
    let strict = ingest::ReadOptions {
        strict: true,
        ..Default::default()
    };
    let got = ingest::perfdata::read_opts(bytes, &mut |_: &ingest::Event| {}, strict);
    match got {
        Ok(_) => panic!("corrupt input was accepted"),
        Err(e) => e,
    }
}

#[test]
fn a_cut_pipe_stream_is_read_to_the_cut() {
    if fixtures::public_missing() {
        return;
    }
    let stream = bytes(&shared("public/perfparser/probe.data.stream"));
    let whole = read(&stream).unwrap();
    let cut = read(&stream[..stream.len() - 5]).unwrap();
    assert_eq!(cut.stats.skipped.len(), 1, "{:?}", cut.stats.skipped);
    let s = &cut.stats.skipped[0];
    assert_eq!(s.cpu, None);
    assert_eq!(s.offset + s.bytes, stream.len() as u64 - 5);
    assert!(
        s.reason.contains("bytes after the last whole record"),
        "{}",
        s.reason
    );
    let (all, kept): (u64, u64) = (
        whole.stats.events.values().sum(),
        cut.stats.events.values().sum(),
    );
    assert!(kept > 0 && kept <= all, "{kept} of {all}");
    assert!(whole.stats.skipped.is_empty());
}

fn u64_le(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

fn put_u64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

fn probe_file() -> Vec<u8> {
    bytes(&shared("public/perfparser/probe.data.file"))
}

#[test]
fn truncated_header() {
    if fixtures::public_missing() {
        return;
    }
    let file = probe_file();
    let e = err(&file[..50]);
    assert_eq!(e.location, Location::Offset(50));
    assert!(e.cause.contains("truncated perf.data header"), "{e}");
    let e = err(&file[..12]);
    assert_eq!(e.location, Location::Offset(8), "{e}");
    let mut bad = file.clone();
    put_u64(&mut bad, 8, 4096);
    assert!(err(&bad).cause.contains("header size 4096"));
}

#[test]
fn attr_size_lies() {
    if fixtures::public_missing() {
        return;
    }
    let file = probe_file();
    let attrs = u64_le(&file, 24) as usize;
    let attr_size = u64_le(&file, 16) as usize;
    // The attr declares more bytes than its attrs-section entry holds.
    let mut bad = file.clone();
    bad[attrs + 4..attrs + 8].copy_from_slice(&((attr_size as u32) + 8).to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.location, Location::Offset(attrs as u64 + 4), "{e}");
    assert!(e.cause.contains("perf_event_attr size"), "{e}");
    // ... or fewer than the smallest version.
    bad[attrs + 4..attrs + 8].copy_from_slice(&40u32.to_le_bytes());
    assert!(err(&bad).cause.contains("below the smallest version"));
    // The header's attr_size is not an attr.
    let mut bad = file.clone();
    put_u64(&mut bad, 16, 8);
    assert_eq!(err(&bad).location, Location::Offset(16));
}

#[test]
fn record_size_zero_or_past_the_end() {
    if fixtures::public_missing() {
        return;
    }
    let file = probe_file();
    let data = u64_le(&file, 40) as usize;
    let mut bad = file.clone();
    bad[data + 6..data + 8].copy_from_slice(&0u16.to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.location, Location::Offset(data as u64));
    assert!(e.cause.contains("size 0"), "{e}");

    // Data section claims more bytes than the file has.
    let mut bad = file.clone();
    put_u64(&mut bad, 48, file.len() as u64);
    let e = err(&bad);
    assert!(e.cause.contains("runs past the end"), "{e}");

    // Pipe mode cut inside a record.
    let stream = bytes(&shared("public/perfparser/probe.data.stream"));
    let e = err(&stream[..stream.len() - 5]);
    assert!(matches!(e.location, Location::Offset(_)), "{e}");
    assert!(e.cause.contains("record"), "{e}");
}

#[test]
fn feature_offset_past_the_end() {
    if fixtures::public_missing() {
        return;
    }
    let file = probe_file();
    let table = (u64_le(&file, 40) + u64_le(&file, 48)) as usize;
    let mut bad = file.clone();
    put_u64(&mut bad, table, 1 << 40);
    let e = err(&bad);
    assert_eq!(e.location, Location::Offset(table as u64));
    assert!(
        e.cause.contains("TRACING_DATA") && e.cause.contains("past the end"),
        "{e}"
    );
    // Feature table itself cut off.
    let e = err(&file[..table + 8]);
    assert!(e.cause.contains("feature table"), "{e}");
}

#[test]
fn tracing_data_cut_in_pipe_mode() {
    if fixtures::public_missing() {
        return;
    }
    let stream = bytes(&shared("public/perfparser/probe.data.stream"));
    // Find HEADER_TRACING_DATA (type 66) and make its payload size larger than the input.
    let mut pos = 16;
    while u32::from_le_bytes(stream[pos..pos + 4].try_into().unwrap()) != 66 {
        pos += u16::from_le_bytes(stream[pos + 6..pos + 8].try_into().unwrap()) as usize;
    }
    let mut bad = stream.clone();
    bad[pos + 8..pos + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.location, Location::Offset(pos as u64));
    assert!(e.cause.contains("past its end"), "{e}");
}

#[test]
fn not_perf_data() {
    assert!(err(b"PERFFILE").cause.contains("version 1"));
    assert!(err(b"hello world, not a trace").cause.contains("bad magic"));
    assert!(err(b"").cause.contains("bad magic"));
}

/// Small real inputs covering file mode, pipe mode and zstd records.
fn corpus() -> Vec<Vec<u8>> {
    vec![
        probe_file(),
        bytes(&shared("public/perfparser/probe.data.stream")),
        bytes(&shared(
            "public/quipper/perf.data.piped.header_features_aligned-6.12",
        )),
        bytes(&fixture("sched-events.zstd.data.xz")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Truncation anywhere and up to 8 overwritten bytes: Ok or Err, never a panic or hang.
    #[test]
    fn mutated_real_files_never_panic(
        which in 0usize..4,
        cut in prop_oneof![Just(1.0f64), 0.0f64..1.0],
        edits in proptest::collection::vec((0.0f64..1.0, any::<u8>()), 0..8),
    ) {
        if fixtures::public_missing() {
            return Ok(());
        }
        thread_local!(static CORPUS: Vec<Vec<u8>> = corpus());
        CORPUS.with(|c| {
            let mut input = c[which].clone();
            for (at, value) in edits {
                let i = ((input.len() as f64) * at) as usize;
                if i < input.len() {
                    input[i] = value;
                }
            }
            let keep = 16 + ((input.len() - 16) as f64 * cut) as usize;
            input.truncate(keep);
            let _ = read(&input);
            // Pipe-mode inputs also through the stream reader, as from stdin.
            if ingest::perfdata::is_pipe_header(&input) {
                let mut sink = |_e: &ingest::Event| {};
                let _ = ingest::perfdata::read_stream(input[..16].to_vec(), &input[16..], &mut sink);
            }
        });
    }
}
