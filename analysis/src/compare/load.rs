//! Getting a report for each input of a comparison through the one pipeline
//! ([`crate::pipeline::load`]: a JSON report is read as it is, a trace analysed as `analyze`
//! does). Inputs are analysed concurrently, at most one per core, while the memory they are
//! estimated to need at once stays within a budget ([`admit`]).

mod admit;

pub(crate) use admit::{run_within, Budget};

use super::Repeat;
use crate::pipeline::{self, Loaded};
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
/// has the order of `inputs`. As many at once as the machine has cores, within half of the
/// memory available now ([`Budget::of_machine`]).
pub fn load_all(inputs: &[(PathBuf, pipeline::Options)]) -> Vec<Result<Repeat, String>> {
    load_all_within(inputs, &Budget::of_machine())
}

/// [`load_all`] within `budget`.
pub(crate) fn load_all_within(
    inputs: &[(PathBuf, pipeline::Options)],
    budget: &Budget,
) -> Vec<Result<Repeat, String>> {
    let costs: Vec<u64> = inputs.iter().map(|(p, _)| estimated_bytes(p)).collect();
    run_within(&costs, budget, |i| load(&inputs[i].0, &inputs[i].1))
}

/// Memory an analysis needs beyond its input, whatever the input's size: the text reader's
/// windows, the batches handed between threads, the report.
const FIXED_BYTES: u64 = 64 << 20;

/// Rough peak memory of analysing `path`. Measured peak RSS of `analyze` on the large
/// inputs of bench/README.md (session 4): trace.dat 24 % of the file, perf.data 17 %, text
/// 21 % (its input is given back as it is read; what stays is every latency sample). A
/// compressed trace.dat or perf.data is held inflated (often ten times its size) and
/// compressed text streams (236 MiB for 44 MiB of zstd: the windows, not the file). A JSON
/// report is parsed whole into a tree several times its size. Standard input runs alone.
pub(crate) fn estimated_bytes(path: &Path) -> u64 {
    if path.as_os_str() == "-" {
        // Standard input is of unknown size (and may be held whole): alone, then.
        return u64::MAX;
    }
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let head = read_head(path, 64);
    let variable = match ingest::source::Wrapper::detect(&head) {
        None if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') => size * 8,
        None => size / 4,
        // What the reader streams as it inflates (trace text, a pipe-mode perf.data), judged
        // on the inflated head as the reader judges it.
        Some(wrapper) if streams_inflating(path, wrapper) => size.saturating_mul(4),
        Some(_) => size.saturating_mul(20),
    };
    FIXED_BYTES.saturating_add(variable)
}

/// Whether the compressed `path` holds what the reader reads as it inflates.
fn streams_inflating(path: &Path, wrapper: ingest::source::Wrapper) -> bool {
    let raw = read_head(path, 1 << 20);
    ingest::source::wrapped_head(&raw, wrapper, ingest::source::SNIFF).is_some_and(|head| {
        ingest::text::wrapped::is_text(&head) || ingest::perfdata::is_pipe_header(&head)
    })
}

/// The first `n` bytes of `path` (fewer for a shorter or unreadable file: the estimate is
/// a guess, the read itself reports the error).
fn read_head(path: &Path, n: u64) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(n).read_to_end(&mut head);
    }
    head
}

#[cfg(test)]
mod tests;
