//! `perfetto::convert` (the `schedtrace convert` subcommand): file to file, output
//! renamed into place only on success, Perfetto in → identical Perfetto out.

use ingest::perfetto::{convert, WriterOptions};
use ingest::{Event, EventKind, Location};
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
    let done = convert(&input, &first, WriterOptions::default(), Default::default()).unwrap();
    assert_eq!(
        done.ingested.meta.kernel_release.as_deref(),
        Some("6.18.44-fc-v657")
    );
    // Every event is written, the 6 `print` markers included.
    assert_eq!(done.written.not_written.values().sum::<u64>(), 0);
    assert!(!tmp("pipe_pinned.perfetto-trace.partial").exists());

    let mut switches = 0;
    let mut markers = Vec::new();
    let back = ingest::read_path(&first, &mut |e: &Event| {
        switches += matches!(e.kind, EventKind::Switch { .. }) as u64;
        if let EventKind::Print { text } = e.kind {
            markers.push(((e.ts + 500) / 1000, e.cpu, text));
        }
    })
    .unwrap();
    let markers: Vec<(u64, u32, String)> = markers
        .into_iter()
        .map(|(us, cpu, text)| (us, cpu, back.marks.text_lossy(text)))
        .collect();
    // Their times (µs, rounded as trace-cmd rounds them), CPUs and texts as `trace-cmd report`
    // prints them.
    let report = ingest::source::load(&fixtures::trace(
        "eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz",
    ))
    .unwrap();
    let want: Vec<(u64, u32, String)> = String::from_utf8_lossy(&report)
        .lines()
        .filter_map(|l| {
            let (head, text) = l.split_once(": print:")?;
            let (_, text) = text.split_once("tracing_mark_write: ")?;
            let cpu = head.split_once('[')?.1.split_once(']')?.0.parse().ok()?;
            let (secs, micros) = head.rsplit_once(' ')?.1.split_once('.')?;
            let us = secs.parse::<u64>().ok()? * 1_000_000 + micros.parse::<u64>().ok()?;
            Some((us, cpu, text.to_string()))
        })
        .collect();
    assert_eq!(want.len(), 6);
    assert_eq!(markers, want);
    assert_eq!(
        Some(&switches),
        done.ingested.stats.events.get("sched_switch")
    );
    assert_eq!(back.meta.kernel_release, done.ingested.meta.kernel_release);

    // Perfetto in, Perfetto out: the same bytes.
    let second = tmp("again.perfetto-trace");
    convert(
        &first,
        &second,
        WriterOptions::default(),
        Default::default(),
    )
    .unwrap();
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
    let e = convert(&junk, &out, WriterOptions::default(), Default::default()).unwrap_err();
    assert_eq!(e.location, Location::Offset(0));
    assert!(!out.exists());
    assert!(!tmp("junk.perfetto-trace.partial").exists());
    let e = convert(&junk, &junk, WriterOptions::default(), Default::default()).unwrap_err();
    assert!(e.cause.contains("overwrite the input"), "{e}");
}
