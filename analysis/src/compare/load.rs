//! Getting a report for each input of a comparison: a JSON report written by
//! `analyze --json` is read as it is (detected by content: it starts with `{` and has
//! `schema_version`); anything else is a trace, analysed as `analyze` does. Inputs are
//! analysed in parallel when the machine's free memory allows.

use super::Repeat;
use crate::{Analyzer, Config};
use ingest::Progress;
use rayon::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Loads one input: a JSON report, or a trace analysed with `config`.
pub fn load(path: &Path, config: &Config) -> Result<Repeat, String> {
    load_with(path, config, &Progress::new())
}

/// [`load`], counting the read in `progress` (shared by all inputs of a comparison).
pub fn load_with(path: &Path, config: &Config, progress: &Progress) -> Result<Repeat, String> {
    let shown = path.display().to_string();
    let bytes = ingest::input::load_with(path, progress).map_err(|e| e.to_string())?;
    if let Some(report) = json_report(&bytes).map_err(|e| format!("{shown}: {e}"))? {
        return Ok(Repeat {
            path: shown,
            report,
            from_json_report: true,
        });
    }
    let mut analyzer = Analyzer::new(config.clone());
    let ingested = ingest::read_bytes_with(&bytes, &mut analyzer, progress)
        .map_err(|e| e.in_file(path).to_string())?;
    drop(bytes);
    let report = analyzer.finish(&ingested, &shown);
    let report = serde_json::to_value(&report).map_err(|e| format!("{shown}: {e}"))?;
    Ok(Repeat {
        path: shown,
        report,
        from_json_report: false,
    })
}

/// `Some(report)` when `bytes` are a schedtrace JSON report, `None` when they are not
/// JSON at all (a trace), an error when they are JSON but not a report.
pub fn json_report(bytes: &[u8]) -> Result<Option<Value>, String> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    if start.map(|i| bytes[i]) != Some(b'{') {
        return Ok(None);
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("starts like JSON but does not parse: {e}"))?;
    match value.get("schema_version").and_then(Value::as_u64) {
        Some(_) if value.get("tasks").is_some_and(Value::is_array) => Ok(Some(value)),
        Some(_) => Err("JSON with schema_version but no tasks array: not a schedtrace report (a comparison cannot be compared again)".into()),
        None => Err("JSON without schema_version: not a report written by `schedtrace analyze --json`".into()),
    }
}

/// Loads every input; the result has the order of `paths`. Runs in parallel unless the
/// inputs look too large for the free memory (each analysis holds its decompressed
/// input and every latency sample at once).
pub fn load_all(paths: &[PathBuf], config: &Config) -> Vec<Result<Repeat, String>> {
    load_all_with(paths, config, &Progress::new())
}

/// [`load_all`], counting every read in the one `progress`.
pub fn load_all_with(
    paths: &[PathBuf],
    config: &Config,
    progress: &Progress,
) -> Vec<Result<Repeat, String>> {
    if paths.len() > 1 && fits_in_memory(paths) {
        paths
            .par_iter()
            .map(|p| load_with(p, config, progress))
            .collect()
    } else {
        paths
            .iter()
            .map(|p| load_with(p, config, progress))
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_detection() {
        assert_eq!(json_report(b"\x17\x08Dtracing").unwrap(), None);
        assert_eq!(json_report(b"  ").unwrap(), None);
        assert!(json_report(b"{\"schema_version\": 1, \"tasks\": []}")
            .unwrap()
            .is_some());
        assert!(json_report(b"{\"a\": 1}").is_err());
        assert!(json_report(b"{ broken").is_err());
    }
}
