#![allow(dead_code)]

//! What each fuzz target does with one input, shared by the cargo-fuzz targets
//! (`fuzz_targets/*.rs`, nightly) and the stable smoke test (`tests/fuzz_smoke.rs` of the root
//! crate), which runs them over the seeds and the regression inputs. Each must return for any
//! input, without a panic, in time and memory bounded by the input.

use ingest::Event;

/// A fuzz target: its name and its body.
pub type Target = (&'static str, fn(&[u8]));

/// The reader entry points, by target name.
pub const TARGETS: [Target; 6] = [
    ("tracedat", tracedat),
    ("perfdata_file", perfdata_file),
    ("perfdata_pipe", perfdata_pipe),
    ("text", text),
    ("perfetto", perfetto),
    ("pipeline", pipeline),
];

pub fn tracedat(data: &[u8]) {
    let _ = ingest::tracedat::read(data, &mut |_: &Event| {});
}

pub fn perfdata_file(data: &[u8]) {
    let _ = ingest::perfdata::read(data, &mut |_: &Event| {});
}

/// The stream reader (stdin, FIFOs): the input arrives in pieces, not as one slice.
pub fn perfdata_pipe(data: &[u8]) {
    let head = data.len().min(16);
    let rest = std::io::Cursor::new(data[head..].to_vec());
    let _ = ingest::perfdata::read_stream(data[..head].to_vec(), rest, &mut |_: &Event| {});
}

pub fn text(data: &[u8]) {
    let _ = ingest::text::read(data, &mut |_: &Event| {});
}

pub fn perfetto(data: &[u8]) {
    let _ = ingest::perfetto::read(data, &mut |_: &Event| {});
}

/// Format detection, any reader, the whole analysis and the JSON report.
pub fn pipeline(data: &[u8]) {
    let mut analyzer = analysis::Analyzer::new(analysis::Config::default());
    if let Ok(ingested) = ingest::read_bytes(data, &mut analyzer) {
        let report = analyzer.finish(&ingested, "fuzz");
        let _ = serde_json::to_string(&report);
    }
}
