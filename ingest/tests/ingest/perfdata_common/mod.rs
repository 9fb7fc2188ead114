//! Helpers shared by the perf.data tests: paths, loading, and reading `perf script` text.
#![allow(dead_code)]

use ingest::{Event, Ingested};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A trace of the collection (`public/…` beside the clone, the rest in `fixtures/traces/`).
pub fn shared(rel: &str) -> PathBuf {
    fixtures::trace(rel)
}

/// A perf.data of `fixtures/perfdata/`.
pub fn fixture(rel: &str) -> PathBuf {
    fixtures::file("perfdata").join(rel)
}

/// Decompressed bytes of a file (xz etc. undone).
pub fn bytes(path: &Path) -> Vec<u8> {
    ingest::source::load(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_vec()
}

/// Reads a perf.data through the public entry point, collecting every event.
pub fn read_all(path: &Path) -> (Ingested, Vec<Event>) {
    let mut events = Vec::new();
    let mut sink = |e: &Event| events.push(*e);
    let ingested = ingest::read_path(path, &mut sink).unwrap_or_else(|e| panic!("{e}"));
    (ingested, events)
}

/// Text of a (possibly xz-compressed) reference file.
pub fn text(path: &Path) -> String {
    String::from_utf8(bytes(path)).expect("utf-8 reference text")
}

/// Per-event counts of `perf script` text: the first `system:event:` token of each line,
/// counted under `event` (the name space schedtrace uses for every format).
pub fn script_counts(script: &str) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for line in script.lines() {
        let token = line
            .split_whitespace()
            .find(|t| t.ends_with(':') && t.matches(':').count() == 2 && !t.starts_with(':'));
        if let Some(t) = token {
            let name = t
                .trim_end_matches(':')
                .split(':')
                .nth(1)
                .unwrap()
                .to_string();
            *counts.entry(name).or_insert(0) += 1;
        }
    }
    counts
}
