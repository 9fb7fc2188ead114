//! One input analysed for export: the report, through the one pipeline
//! (`analysis::pipeline`) as `compare` analyses it, plus the series, while the timeline
//! store's intervals and the per-event records are drained to their tables as the trace
//! is read ([`crate::drain`]).

use crate::drain::{Shared, Tables};
use analysis::pipeline::{self, Options};
use analysis::Report;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// What the export adds to the analysis.
#[derive(Debug, Clone, Copy)]
pub struct Extras {
    /// Window of the `series` table, ns.
    pub series_ns: u64,
}

/// Analyses `path`, writing the drained tables into `tables`; the report and the tables
/// (still to finish).
pub fn analyse(
    path: &Path,
    options: &Options,
    extras: Extras,
    tables: Tables,
) -> Result<(Report, Tables), String> {
    let shown = path.display();
    if looks_like_json(path) {
        return Err(format!(
            "{shown}: a JSON report keeps no per-event data (slices, waits, intervals): export the trace itself"
        ));
    }
    let mut options = options.clone();
    options.config.series = Some(extras.series_ns);
    let shared = Arc::new(Mutex::new(tables));
    let drain = Box::new(Shared(shared.clone()));
    let report = pipeline::analyze_draining(path, &options, drain).map_err(|e| e.to_string())?;
    // The analyzer, and with it the drain's handle, is gone: the tables are ours again.
    let tables = Arc::into_inner(shared)
        .expect("the analysis dropped its drain")
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    // As `analyze`: an input without a single event is an error, not an empty dataset.
    if report.quality.events.values().all(|&n| n == 0) {
        return Err(format!("{shown}: no events: nothing to export"));
    }
    Ok((report, tables))
}

/// Whether the file starts like JSON (a report from `analyze --json`).
fn looks_like_json(path: &Path) -> bool {
    let mut head = Vec::with_capacity(64);
    let read = std::fs::File::open(path).and_then(|f| f.take(64).read_to_end(&mut head));
    read.is_ok() && head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}
