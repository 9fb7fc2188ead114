//! Bad trace.dat input: every failure is an `Err` with a byte offset and a cause,
//! never a panic; plus a bounded proptest that mutates and truncates real files.

use crate::tracedat_common::load;
use ingest::{Event, Location};
use proptest::prelude::*;

fn read(bytes: &[u8]) -> ingest::Result<ingest::Ingested> {
    ingest::tracedat::read(bytes, &mut |_: &Event| {})
}

fn offset_of(err: &ingest::Error) -> u64 {
    match err.location {
        Location::Offset(o) => o,
        other => panic!("error without an offset: {other:?} {err}"),
    }
}

fn v6() -> Vec<u8> {
    load("public/trappy/trace_idle.dat.xz")
}

fn v7_zstd() -> Vec<u8> {
    load("eevdf-6.18-host/pipe_pinned/trace.dat")
}

#[test]
fn empty_and_wrong_magic() {
    if fixtures::public_missing() {
        return;
    }
    let e = read(&[]).unwrap_err();
    assert_eq!(offset_of(&e), 0);
    assert!(e.cause.contains("magic"), "{e}");
    let mut bytes = v6();
    bytes[5] = b'X';
    let e = read(&bytes).unwrap_err();
    assert_eq!(offset_of(&e), 0);
    assert!(e.cause.contains("magic"), "{e}");
    let mut bytes = v6();
    bytes[10] = b'9';
    let e = read(&bytes).unwrap_err();
    assert!(e.cause.contains("version"), "{e}");
}

#[test]
fn truncated_headers() {
    if fixtures::public_missing() {
        return;
    }
    let bytes = v6();
    for len in [12, 17, 30, 300, 5000] {
        let e = read(&bytes[..len]).unwrap_err();
        assert!(offset_of(&e) <= len as u64, "{len}: {e}");
        assert!(e.cause.contains("truncated"), "{len}: {e}");
    }
    let bytes = v7_zstd();
    let e = read(&bytes[..40]).unwrap_err();
    assert!(
        e.cause.contains("truncated") || e.cause.contains("past the end"),
        "{e}"
    );
}

#[test]
fn truncated_cpu_data() {
    if fixtures::public_missing() {
        return;
    }
    let bytes = v6();
    // Cut in the middle of the last page of CPU data: the flyrecord table points past the end.
    let e = read(&bytes[..bytes.len() - 100]).unwrap_err();
    assert!(e.cause.contains("past the end of the file"), "{e}");
    assert!(offset_of(&e) > 1000, "{e}");
    // Same for compressed v7: a chunk cut short.
    let bytes = v7_zstd();
    let e = read(&bytes[..bytes.len() - 3000]).unwrap_err();
    assert!(offset_of(&e) > 1000, "{e}");
}

#[test]
fn size_pointing_past_the_end() {
    if fixtures::public_missing() {
        return;
    }
    // v6: the header_page size (u64 after "header_page\0" at offset 18+12).
    let mut bytes = v6();
    let at = 10 + 2 + 1 + 1 + 4 + 12;
    assert_eq!(&bytes[at - 12..at], b"header_page\0");
    bytes[at + 6] = 0x7f;
    let e = read(&bytes).unwrap_err();
    assert_eq!(offset_of(&e), at as u64 + 8, "{e}");
    assert!(e.cause.contains("header_page"), "{e}");
}

#[test]
fn corrupt_section_size() {
    // v7: the first section after the header (id 16 at offset 37) gets a huge size.
    let mut bytes = v7_zstd();
    assert_eq!(&bytes[37..39], &[16, 0]);
    bytes[37 + 8 + 5] = 0x40;
    let e = read(&bytes).unwrap_err();
    assert!(offset_of(&e) >= 37, "{e}");
    assert!(e.cause.contains("section"), "{e}");
}

#[test]
fn corrupt_page_commit() {
    if fixtures::public_missing() {
        return;
    }
    // Page header of the first page of CPU 0: commit word larger than the page.
    let mut bytes = v6();
    let (ingested, _) = crate::tracedat_common::read_all(&bytes);
    assert!(ingested.stats.events["sched_switch"] > 0);
    // First flyrecord entry: find "flyrecord\0" and read CPU 0's offset.
    let tag = bytes.windows(10).position(|w| w == b"flyrecord\0").unwrap();
    let off = u64::from_le_bytes(bytes[tag + 10..tag + 18].try_into().unwrap()) as usize;
    bytes[off + 8..off + 16].copy_from_slice(&9000u64.to_le_bytes());
    // --strict: the hard error at the commit word.
    let strict = ingest::read_bytes_opts(
        &bytes,
        &mut |_: &Event| {},
        &Default::default(),
        ingest::ReadOptions {
            strict: true,
            ..Default::default()
        },
    );
    let e = strict.unwrap_err();
    assert_eq!(offset_of(&e), off as u64 + 8, "{e}");
    assert!(e.cause.contains("corrupt page"), "{e}");
    // Default: the page is skipped and counted, the rest of the trace read, and the CPU
    // gets a loss mark (its tasks unknown from there).
    let (damaged, _) = crate::tracedat_common::read_all(&bytes);
    assert_eq!(
        damaged.stats.skipped,
        [ingest::damage::Skipped {
            cpu: Some(0),
            offset: off as u64 + 8,
            bytes: 4096 - 8,
            reason: "corrupt page: commit says 9000 data bytes, page has 4080".into(),
        }]
    );
    let before: u64 = ingested.stats.events.values().sum();
    let after: u64 = damaged.stats.events.values().sum();
    assert!(after < before && after > 0, "{after} of {before}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random byte flips (mostly in the metadata) and truncations never panic.
    #[test]
    fn mutated_files_never_panic(
        which in 0usize..2,
        flips in proptest::collection::vec((0.0f64..1.0, any::<u8>(), any::<bool>()), 1..8),
        cut in proptest::option::of(0.0f64..1.0),
    ) {
        if fixtures::public_missing() {
            return Ok(());
        }
        thread_local! {
            static FILES: (Vec<u8>, Vec<u8>) = (v6(), v7_zstd());
        }
        let mut bytes = FILES.with(|f| if which == 0 { f.0.clone() } else { f.1.clone() });
        for (pos, value, early) in flips {
            // Half the flips hit the first 64 KiB (headers, formats, options).
            let span = if early { bytes.len().min(65536) } else { bytes.len() };
            let at = ((pos * span as f64) as usize).min(bytes.len() - 1);
            bytes[at] = value;
        }
        if let Some(cut) = cut {
            bytes.truncate((cut * bytes.len() as f64) as usize);
        }
        let _ = read(&bytes);
    }
}
