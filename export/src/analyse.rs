//! One input analysed for export: the report, the timeline store and the per-event
//! records, through the one pipeline (`analysis::pipeline`), as `compare` analyses it
//! plus what only the export needs (store, records, series).

use analysis::pipeline::{self, Options};
use analysis::records::EventRecords;
use analysis::{Report, Timeline};
use std::io::Read;
use std::path::Path;

pub struct Analysed {
    pub report: Report,
    pub timeline: Timeline,
    pub records: EventRecords,
}

/// What the export adds to the analysis.
#[derive(Debug, Clone, Copy)]
pub struct Extras {
    /// Window of the `series` table, ns.
    pub series_ns: u64,
    /// Memory limit of the timeline store and, apart, of the records (`--timeline-mem`).
    pub mem_limit_bytes: u64,
}

pub fn analyse(path: &Path, options: &Options, extras: Extras) -> Result<Analysed, String> {
    let shown = path.display();
    if looks_like_json(path) {
        return Err(format!(
            "{shown}: a JSON report keeps no per-event data (slices, waits, intervals): export the trace itself"
        ));
    }
    let mut options = options.clone();
    options.config.timeline = Some(analysis::TimelineOptions {
        mem_limit_bytes: extras.mem_limit_bytes,
    });
    options.config.series = Some(extras.series_ns);
    options.config.records = Some(extras.mem_limit_bytes);
    let (mut report, timeline) =
        pipeline::analyze_with_timeline(path, &options).map_err(|e| e.to_string())?;
    // As `analyze`: an input without a single event is an error, not an empty dataset.
    if report.quality.events.values().all(|&n| n == 0) {
        return Err(format!("{shown}: no events: nothing to export"));
    }
    let timeline = match timeline {
        Some(Ok(t)) => t,
        Some(Err(e)) => return Err(format!("{shown}: {e}")),
        None => unreachable!("the store was asked for"),
    };
    let records = match report.records.take() {
        Some(Ok(r)) => *r,
        Some(Err(e)) => return Err(format!("{shown}: {e}")),
        None => unreachable!("the records were asked for"),
    };
    Ok(Analysed {
        report,
        timeline,
        records,
    })
}

/// Whether the file starts like JSON (a report from `analyze --json`).
fn looks_like_json(path: &Path) -> bool {
    let mut head = Vec::with_capacity(64);
    let read = std::fs::File::open(path).and_then(|f| f.take(64).read_to_end(&mut head));
    read.is_ok() && head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}
