//! Helpers shared by the text reader's tests: loading traces, collecting events,
//! and an independent per-event-name line counter (whitespace tokens, no prefix parser).
#![allow(dead_code)]

use ingest::{Event, Ingested};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A trace of the collection (`public/…` beside the clone, the rest in `fixtures/traces/`).
pub fn shared(rel: &str) -> PathBuf {
    fixtures::trace(rel)
}

pub fn fixture(rel: &str) -> PathBuf {
    fixtures::file(rel)
}

/// The file's bytes, decompressed if it is `.xz` (through the crate's own loader).
pub fn load(path: &std::path::Path) -> Vec<u8> {
    ingest::source::load(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_vec()
}

/// Reads text through `ingest::text::read`, returning the result and all events.
pub fn read_text(bytes: &[u8]) -> (Ingested, Vec<Event>) {
    let mut events = Vec::new();
    let got = ingest::text::read(bytes, &mut |e: &Event| events.push(*e)).expect("text parses");
    (got, events)
}

/// Independent count: for each line, the word after the first token that looks like a
/// timestamp (`digits.digits:`), trailing `:` removed, perf's `system:` prefix removed.
/// Only lines inside the systrace `<script class="trace-data">` block count for HTML.
pub fn count_by_name(text: &[u8]) -> BTreeMap<String, u64> {
    let text = String::from_utf8_lossy(text);
    let mut counts = BTreeMap::new();
    let mut in_script = !text.trim_start().starts_with("<!DOCTYPE");
    for line in text.lines() {
        if line.contains("class=\"trace-data\"") {
            in_script = true;
            continue;
        }
        if line.contains("</script>") {
            if in_script && text.trim_start().starts_with("<!DOCTYPE") {
                in_script = false;
            }
            continue;
        }
        if !in_script || line.trim_start().starts_with('#') {
            continue;
        }
        let mut words = line.split_whitespace();
        let is_ts = |w: &str| {
            w.strip_suffix(':').is_some_and(|t| {
                let mut parts = t.split('.');
                let a = parts.next().unwrap_or("");
                let b = parts.next().unwrap_or("");
                parts.next().is_none()
                    && !a.is_empty()
                    && !b.is_empty()
                    && a.bytes().all(|c| c.is_ascii_digit())
                    && b.bytes().all(|c| c.is_ascii_digit())
            })
        };
        if words.by_ref().any(is_ts) {
            if let Some(name) = words.next() {
                let name = name.strip_suffix(':').unwrap_or(name);
                let name = name.rsplit(':').next().unwrap();
                *counts.entry(name.to_string()).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// Events of one name in the stream, by kind.
pub fn kinds(events: &[Event]) -> BTreeMap<&'static str, u64> {
    let mut m = BTreeMap::new();
    for e in events {
        let k = match e.kind {
            ingest::EventKind::Switch { .. } => "sched_switch",
            ingest::EventKind::Waking { .. } => "sched_waking",
            ingest::EventKind::Wakeup { .. } => "sched_wakeup",
            ingest::EventKind::WakeupNew { .. } => "sched_wakeup_new",
            ingest::EventKind::Migrate { .. } => "sched_migrate_task",
            ingest::EventKind::Fork { .. } => "sched_process_fork",
            ingest::EventKind::Exit { .. } => "sched_process_exit",
            ingest::EventKind::Free { .. } => "sched_process_free",
            ingest::EventKind::TaskName { .. } => "task_name",
            ingest::EventKind::Lost { .. } => "lost",
            ingest::EventKind::Other => "other",
            ingest::EventKind::Print { .. } => "print",
            ingest::EventKind::CpuIdle { .. } => "cpu_idle",
        };
        *m.entry(k).or_insert(0) += 1;
    }
    m
}
