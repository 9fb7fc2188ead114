//! Getting a report for each input of a comparison through the one pipeline
//! ([`crate::pipeline::load`]: a JSON report is read as it is, a trace analysed as `analyze`
//! does). Inputs are analysed in parallel when the machine's free memory allows.

use super::Repeat;
use crate::pipeline::{self, Loaded};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Loads one input: a JSON report, or a trace analysed with `options` (its
/// `kernel_release` is also filled into a JSON report that has none).
pub fn load(path: &Path, options: &pipeline::Options) -> Result<Repeat, String> {
    let shown = path.display().to_string();
    match pipeline::load(path, options)? {
        Loaded::JsonReport(mut report) => {
            let release = options.kernel_release.as_deref();
            if let (Some(release), Some(source)) = (release, report.get_mut("source")) {
                if source["kernel_release"].is_null() {
                    source["kernel_release"] = release.into();
                    source["scheduler"] = crate::scheduler_family(release).name().into();
                    source["scheduler_name"] = crate::scheduler_name(release).into();
                }
            }
            Ok(Repeat {
                path: shown,
                report,
                from_json_report: true,
                samples: None,
            })
        }
        Loaded::Trace(mut report) => {
            // The exact samples stay beside the JSON: pooled percentiles, exact role merges.
            let samples = report.tasks.iter_mut().map(|t| t.samples.take()).collect();
            Ok(Repeat {
                report: serde_json::to_value(&*report).map_err(|e| format!("{shown}: {e}"))?,
                path: shown,
                from_json_report: false,
                samples: Some(samples),
            })
        }
    }
}

/// Loads every input, each with its own options (a run's `--kernel-release`); the result
/// has the order of `inputs`. Runs in parallel unless the inputs look too large for the
/// free memory (each analysis holds its decompressed input and every latency sample).
pub fn load_all(inputs: &[(PathBuf, pipeline::Options)]) -> Vec<Result<Repeat, String>> {
    let paths: Vec<PathBuf> = inputs.iter().map(|(p, _)| p.clone()).collect();
    if inputs.len() > 1 && fits_in_memory(&paths) {
        inputs.par_iter().map(|(p, o)| load(p, o)).collect()
    } else {
        inputs.iter().map(|(p, o)| load(p, o)).collect()
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
