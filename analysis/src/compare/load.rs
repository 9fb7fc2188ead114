//! Getting a report for each input of a comparison: a JSON report written by
//! `analyze --json` is read as it is (detected by content: it starts with `{` and has
//! `schema_version`); anything else is a trace, analysed as `analyze` does. Inputs are
//! analysed in parallel when the machine's free memory allows.

use super::Repeat;
use crate::{Analyzer, Config};
use rayon::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Loads one input: a JSON report, or a trace analysed with `config` (`kernel_release`:
/// the release to assume when the trace records none, `--kernel-release`).
pub fn load(path: &Path, config: &Config, kernel_release: Option<&str>) -> Result<Repeat, String> {
    let shown = path.display().to_string();
    let bytes = ingest::input::load(path).map_err(|e| e.to_string())?;
    if let Some(mut report) = json_report(&bytes).map_err(|e| format!("{shown}: {e}"))? {
        if let (Some(release), Some(source)) = (kernel_release, report.get_mut("source")) {
            if source["kernel_release"].is_null() {
                source["kernel_release"] = release.into();
                source["scheduler"] = crate::scheduler_family(release).name().into();
                source["scheduler_name"] = crate::scheduler_name(release).into();
            }
        }
        return Ok(Repeat {
            path: shown,
            report,
            from_json_report: true,
            samples: None,
        });
    }
    let mut analyzer = Analyzer::new(config.clone());
    let mut sink = ingest::meta::WithDefaults::new(&mut analyzer, kernel_release.map(String::from));
    let mut ingested =
        ingest::read_bytes(&bytes, &mut sink).map_err(|e| e.in_file(path).to_string())?;
    ingested.meta = sink.complete(&ingested.meta);
    drop(bytes);
    let mut report = analyzer.finish(&ingested, &shown);
    // The exact samples stay beside the JSON: pooled percentiles and exact role merges.
    let samples = report.tasks.iter_mut().map(|t| t.samples.take()).collect();
    let report = serde_json::to_value(&report).map_err(|e| format!("{shown}: {e}"))?;
    Ok(Repeat {
        path: shown,
        report,
        from_json_report: false,
        samples: Some(samples),
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

/// Loads every input (each with its `--kernel-release` default); the result has the order
/// of `inputs`. Runs in parallel unless the inputs look too large for the free memory
/// (each analysis holds its decompressed input and every latency sample at once).
pub fn load_all(
    inputs: &[(PathBuf, Option<String>)],
    config: &Config,
) -> Vec<Result<Repeat, String>> {
    let one = |(p, k): &(PathBuf, Option<String>)| load(p, config, k.as_deref());
    let paths: Vec<PathBuf> = inputs.iter().map(|(p, _)| p.clone()).collect();
    if inputs.len() > 1 && fits_in_memory(&paths) {
        inputs.par_iter().map(one).collect()
    } else {
        inputs.iter().map(one).collect()
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
