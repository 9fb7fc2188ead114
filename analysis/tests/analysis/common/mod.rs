//! Builders for hand-made event streams, shared by the rule tests.
#![allow(dead_code)]

use analysis::{Analyzer, Config, Report, TaskRow};
use ingest::{Event, EventSink, Ingested};

#[path = "../../../src/stream.rs"]
mod stream;
pub use stream::*;

pub fn analyze_with(events: &[Event], config: Config) -> Report {
    let mut analyzer = Analyzer::new(config);
    for e in events {
        analyzer.event(e);
    }
    analyzer.finish(&Ingested::default(), "hand-made")
}

pub fn analyze(events: &[Event]) -> Report {
    analyze_with(events, Config::default())
}

pub fn row(report: &Report, pid: i32) -> &TaskRow {
    report
        .tasks
        .iter()
        .find(|t| t.pid == pid)
        .unwrap_or_else(|| panic!("no row for pid {pid}: {:?}", report.tasks))
}

pub fn cpu(report: &Report, cpu: u32) -> &analysis::CpuRow {
    report.cpus.iter().find(|c| c.cpu == cpu).expect("cpu row")
}
