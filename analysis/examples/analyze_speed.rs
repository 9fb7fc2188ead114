//! Times the analyzer alone, without ingest: reads a trace once into memory (its events and
//! the metadata the reader gives the sink up front), then replays that vector into a fresh
//! [`analysis::Analyzer`] several times and reports the best run.
//!
//! `cargo run --release -p schedtrace-analysis --example analyze_speed -- TRACE [REPEATS]`
//!
//! The event loop (what an analyzer thread fed by an ingest thread costs per event) and
//! `finish` (sorting samples, building the report) are timed separately.

use ingest::{Event, EventSink, TraceMeta};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

/// Keeps every event and the up-front metadata, in the order the reader gave them.
#[derive(Default)]
struct Recorder {
    meta: Option<TraceMeta>,
    events: Vec<Event>,
}

impl EventSink for Recorder {
    fn event(&mut self, event: &Event) {
        self.events.push(*event);
    }

    fn meta(&mut self, meta: &TraceMeta) {
        self.meta = Some(meta.clone());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: analyze_speed TRACE [REPEATS]");
        std::process::exit(2);
    };
    let repeats: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(3);

    let started = Instant::now();
    let mut recorder = Recorder::default();
    let ingested = match ingest::read_path(path.as_ref(), &mut recorder) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let events = recorder.events;
    eprintln!(
        "ingest: {} events in {:.3} s ({} bytes per event in memory)",
        events.len(),
        started.elapsed().as_secs_f64(),
        std::mem::size_of::<Event>()
    );

    // The floor: what only reading the vector costs (memory bandwidth, no analysis).
    let t0 = Instant::now();
    let touched = events.iter().fold(0u64, |a, e| {
        a.wrapping_add(e.ts ^ u64::from(e.cpu) ^ e.kind.index() as u64)
    });
    std::hint::black_box(touched);
    let floor = t0.elapsed();
    eprintln!(
        "reading the events alone: {:.3} s ({:.1} ns/event)",
        floor.as_secs_f64(),
        floor.as_nanos() as f64 / events.len().max(1) as f64
    );

    let mut best = [Duration::MAX; 3];
    for run in 1..=repeats {
        for (mode, batched) in [(0, false), (1, true)] {
            let (looped, finished, rows) =
                replay(&events, &recorder.meta, &ingested, path, batched);
            eprintln!(
                "run {run} {}: events {:.3} s ({:.1} ns/event), finish {:.3} s, {rows} task rows",
                MODES[mode],
                looped.as_secs_f64(),
                looped.as_nanos() as f64 / events.len().max(1) as f64,
                finished.as_secs_f64(),
            );
            best[mode] = best[mode].min(looped);
            best[2] = best[2].min(finished);
        }
    }
    for mode in 0..2 {
        let per_sec = events.len() as f64 / best[mode].as_secs_f64();
        println!(
            "best {}: events {:.3} s = {:.2} M events/s ({:.1} ns/event)",
            MODES[mode],
            best[mode].as_secs_f64(),
            per_sec / 1e6,
            1e9 / per_sec,
        );
    }
    println!("best finish: {:.3} s", best[2].as_secs_f64());
}

const MODES: [&str; 2] = ["streamed", "hot batches"];

/// Events per batch in the "hot batches" mode: 80 KiB of events, about what a channel
/// between an ingest thread and the analyzer hands over while it is still in cache.
const BATCH: usize = 1024;

/// Runs one fresh analyzer over `events` and times its event loop and its `finish`.
/// `batched`: each batch is first copied into a small buffer (untimed), so the analyzer
/// reads its events from cache as it would from a producer thread, instead of streaming
/// them from a vector far larger than the caches.
fn replay(
    events: &[Event],
    meta: &Option<TraceMeta>,
    ingested: &ingest::Ingested,
    path: &str,
    batched: bool,
) -> (Duration, Duration, usize) {
    let mut analyzer = analysis::Analyzer::new(analysis::Config::default());
    if let Some(meta) = meta {
        analyzer.meta(meta);
    }
    let mut looped = Duration::ZERO;
    if batched {
        let mut buffer = Vec::with_capacity(BATCH);
        for chunk in events.chunks(BATCH) {
            buffer.clear();
            buffer.extend_from_slice(chunk);
            let t0 = Instant::now();
            for event in &buffer {
                analyzer.event(event);
            }
            looped += t0.elapsed();
        }
    } else {
        let t0 = Instant::now();
        for event in events {
            analyzer.event(event);
        }
        looped = t0.elapsed();
    }
    let t1 = Instant::now();
    let report = analyzer.finish(ingested, path);
    let finished = t1.elapsed();
    // A digest of the whole report, to see at a glance that a faster analyzer still gives
    // the same numbers (DefaultHasher::new has fixed keys: stable from run to run).
    let mut hasher = std::hash::DefaultHasher::new();
    serde_json::to_string(&report).unwrap().hash(&mut hasher);
    eprintln!("report digest {:016x}", hasher.finish());
    (looped, finished, report.tasks.len())
}
