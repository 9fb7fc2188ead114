//! `perfetto::convert` (the `schedtrace convert` subcommand): file to file, output
//! renamed into place only on success, Perfetto in → identical Perfetto out.

use ingest::perfetto::{convert, WriterOptions};
use ingest::{Event, Location};
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("schedtrace-convert-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn trace_dat_to_perfetto_and_again() {
    let input = fixtures::trace("eevdf-6.18-host/pipe_pinned/trace.dat");
    let first = tmp("pipe_pinned.perfetto-trace");
    let done = convert(&input, &first, WriterOptions::default()).unwrap();
    assert_eq!(
        done.ingested.meta.kernel_release.as_deref(),
        Some("6.18.44-fc-v657")
    );
    // The 6 `print` events have no Perfetto form here; everything else is written.
    assert_eq!(done.written.not_written.values().sum::<u64>(), 6);
    assert!(!tmp("pipe_pinned.perfetto-trace.partial").exists());

    let mut switches = 0;
    let back = ingest::read_path(&first, &mut |e: &Event| {
        switches += matches!(e.kind, ingest::EventKind::Switch { .. }) as u64
    })
    .unwrap();
    assert_eq!(
        Some(&switches),
        done.ingested.stats.events.get("sched_switch")
    );
    assert_eq!(back.meta.kernel_release, done.ingested.meta.kernel_release);

    // Perfetto in, Perfetto out: the same bytes.
    let second = tmp("again.perfetto-trace");
    convert(&first, &second, WriterOptions::default()).unwrap();
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap()
    );
}

#[test]
fn failures_leave_no_output() {
    let junk = tmp("junk.bin");
    std::fs::write(&junk, [0x0a, 0x7f, 0x01]).unwrap();
    let out = tmp("junk.perfetto-trace");
    let e = convert(&junk, &out, WriterOptions::default()).unwrap_err();
    assert_eq!(e.location, Location::Offset(0));
    assert!(!out.exists());
    assert!(!tmp("junk.perfetto-trace.partial").exists());
    let e = convert(&junk, &junk, WriterOptions::default()).unwrap_err();
    assert!(e.cause.contains("overwrite the input"), "{e}");
}
