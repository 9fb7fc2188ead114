//! Measures `ingest::tracedat::read` throughput: `tracedat_speed FILE [ROUNDS]`.
//! The file is loaded (and un-xz'd) once; each round decodes it fully into a counting sink,
//! giving back the pages of a memory-mapped file as `read_path` does.

use ingest::{Event, EventKind};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: tracedat_speed FILE [ROUNDS]");
    let rounds: usize = args.next().map_or(20, |r| r.parse().expect("ROUNDS"));
    let bytes = ingest::source::load(std::path::Path::new(&path)).expect("load");
    let mut events = 0u64;
    let mut switches = 0u64;
    let start = Instant::now();
    for _ in 0..rounds {
        ingest::read_releasing(&bytes, &bytes, &mut |e: &Event| {
            events += 1;
            if matches!(e.kind, EventKind::Switch { .. }) {
                switches += 1;
            }
        })
        .expect("read");
    }
    let secs = start.elapsed().as_secs_f64();
    // The per-file fixed cost (metadata, formats, decoder): layout parsing alone.
    let start_meta = Instant::now();
    for _ in 0..rounds {
        let parsed = if bytes.get(10) == Some(&b'7') {
            ingest::tracedat::v7::parse(&bytes).map(|_| ())
        } else {
            ingest::tracedat::v6::parse(&bytes).map(|_| ())
        };
        parsed.expect("layout");
    }
    let meta_secs = start_meta.elapsed().as_secs_f64();
    println!(
        "layout parsing {:.2} ms/round; events alone: {:.2} M events/s",
        meta_secs * 1e3 / rounds as f64,
        events as f64 / (secs - meta_secs) / 1e6
    );
    println!(
        "{path}: {} bytes, {} events/round ({} switches), {rounds} rounds in {secs:.3} s = {:.2} M events/s, {:.0} MB/s",
        bytes.len(),
        events / rounds as u64,
        switches / rounds as u64,
        events as f64 / secs / 1e6,
        (bytes.len() * rounds) as f64 / secs / 1e6
    );
}
