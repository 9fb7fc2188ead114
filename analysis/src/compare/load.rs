//! Getting a report for each input of a comparison through the one pipeline
//! ([`crate::pipeline::load`]: a JSON report is read as it is, a trace analysed as `analyze`
//! does). Inputs are analysed in parallel when the machine's free memory allows.

use super::Repeat;
use crate::pipeline::{self, Loaded};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Loads one input: a JSON report, or a trace analysed with `options`.
pub fn load(path: &Path, options: &pipeline::Options) -> Result<Repeat, String> {
    let shown = path.display().to_string();
    let (report, from_json_report) = match pipeline::load(path, options)? {
        Loaded::JsonReport(value) => (value, true),
        Loaded::Trace(report) => (
            serde_json::to_value(&*report).map_err(|e| format!("{shown}: {e}"))?,
            false,
        ),
    };
    Ok(Repeat {
        path: shown,
        report,
        from_json_report,
    })
}

/// Loads every input; the result has the order of `paths`. Runs in parallel unless the
/// inputs look too large for the free memory (each analysis holds its decompressed
/// input and every latency sample at once).
pub fn load_all(paths: &[PathBuf], options: &pipeline::Options) -> Vec<Result<Repeat, String>> {
    if paths.len() > 1 && fits_in_memory(paths) {
        paths.par_iter().map(|p| load(p, options)).collect()
    } else {
        paths.iter().map(|p| load(p, options)).collect()
    }
}

/// Rough peak memory of analysing `path`: a compressed file expands about tenfold, and
/// the analysis needs about as much again as its input.
fn estimated_bytes(path: &Path) -> u64 {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let compressed = std::fs::File::open(path)
        .and_then(|mut f| {
            let mut head = [0u8; 6];
            std::io::Read::read(&mut f, &mut head).map(|n| head[..n].to_vec())
        })
        .is_ok_and(|head| ingest::input::Wrapper::detect(&head).is_some());
    size.saturating_mul(if compressed { 20 } else { 2 })
}

fn fits_in_memory(paths: &[PathBuf]) -> bool {
    if paths.iter().any(|p| p.as_os_str() == "-") {
        return false;
    }
    let Some(available) = mem_available() else {
        return true;
    };
    // The largest inputs that can be in flight at once.
    let mut sizes: Vec<u64> = paths.iter().map(|p| estimated_bytes(p)).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let in_flight: u64 = sizes.iter().take(rayon::current_num_threads()).sum();
    in_flight <= available / 2
}

/// `MemAvailable` from /proc/meminfo, in bytes.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
