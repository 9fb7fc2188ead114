//! Times the analyzer alone, without ingest: reads a trace once into memory (its events and
//! the metadata the reader gives the sink up front), then replays that vector into a fresh
//! [`analysis::Analyzer`] several times and reports the best run.
//!
//! `cargo run --release -p schedtrace-analysis --example analyze_speed -- TRACE [REPEATS]`
//!
//! The event loop (what an analyzer thread fed by an ingest thread costs per event) and
//! `finish` (sorting samples, building the report) are timed separately.

use ingest::{Event, EventSink, TraceMeta};
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

    let mut best_loop = Duration::MAX;
    let mut best_finish = Duration::MAX;
    for run in 1..=repeats {
        let mut analyzer = analysis::Analyzer::new(analysis::Config::default());
        if let Some(meta) = &recorder.meta {
            analyzer.meta(meta);
        }
        let t0 = Instant::now();
        for event in &events {
            analyzer.event(event);
        }
        let t1 = Instant::now();
        let report = analyzer.finish(&ingested, path);
        let t2 = Instant::now();
        let (looped, finished) = (t1 - t0, t2 - t1);
        eprintln!(
            "run {run}: events {:.3} s ({:.1} ns/event), finish {:.3} s, {} task rows",
            looped.as_secs_f64(),
            looped.as_nanos() as f64 / events.len().max(1) as f64,
            finished.as_secs_f64(),
            report.tasks.len()
        );
        best_loop = best_loop.min(looped);
        best_finish = best_finish.min(finished);
    }
    let per_sec = events.len() as f64 / best_loop.as_secs_f64();
    println!(
        "best: events {:.3} s = {:.1} M events/s ({:.1} ns/event); finish {:.3} s; \
         events+finish {:.1} M events/s",
        best_loop.as_secs_f64(),
        per_sec / 1e6,
        1e9 / per_sec,
        best_finish.as_secs_f64(),
        events.len() as f64 / (best_loop + best_finish).as_secs_f64() / 1e6
    );
}
