//! One input analysed for export: the report, through the one pipeline
//! (`analysis::pipeline`) as `compare` analyses it, plus the series, while the timeline
//! store's intervals and the per-event records are drained to their tables as the trace
//! is read ([`crate::drain`]).

use crate::drain::{DrainHandle, DrainedTables};
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

/// Analyses `path`, sending the drained tables' batches through `drained` (dropped when
/// the analysis is done, which ends the writers' input); the report.
pub(crate) fn analyse(
    path: &Path,
    options: &Options,
    extras: Extras,
    drained: DrainedTables,
) -> Result<Report, String> {
    let shown = path.display();
    if looks_like_json(path) {
        return Err(format!(
            "{shown}: a JSON report keeps no per-event data (slices, waits, intervals): export the trace itself"
        ));
    }
    let mut options = options.clone();
    options.config.series = Some(extras.series_ns);
    let shared = Arc::new(Mutex::new(drained));
    let drain = Box::new(DrainHandle(shared.clone()));
    let report = pipeline::analyze_draining(path, &options, drain).map_err(|e| e.to_string());
    // The analyzer, and with it the drain's handle, is gone: the last batches go out and
    // the writers see their input end.
    let drained = Arc::into_inner(shared)
        .expect("the analysis dropped its drain")
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    drop(drained);
    let report = report?;
    // As `analyze`: an input without a single event is an error, not an empty dataset.
    if report.quality.events.values().all(|&n| n == 0) {
        return Err(format!("{shown}: no events: nothing to export"));
    }
    Ok(report)
}

/// Whether the file starts like JSON (a report from `analyze --json`).
fn looks_like_json(path: &Path) -> bool {
    let mut head = Vec::with_capacity(64);
    let read = std::fs::File::open(path).and_then(|f| f.take(64).read_to_end(&mut head));
    read.is_ok() && head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}
