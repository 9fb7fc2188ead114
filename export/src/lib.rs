//! `schedtrace export`: the analysis of many traces as tables for notebooks and fleets —
//! `runs`, `tasks`, `cpus`, `slices`, `waits`, `intervals`, `series`, `preemptions`
//! ([`tables`], one module each; columns in `schemas/export.md`) — written as CSV, NDJSON
//! or (feature `parquet`, through polars) Parquet ([`write`]) into a Hive-partitioned
//! dataset ([`dataset`]) that polars, DuckDB and Spark read whole.
//!
//! Inputs are analysed in parallel (one per core: [`parallel`]), each by the same
//! pipeline as `compare`; the per-event tables are written while the trace is read (the
//! analysis drains its intervals and records in chunks to writer threads: [`drain`]),
//! the others from the report at the end, so memory holds one analysis (without its
//! per-event data) per core, not the fleet.

// The crate's interface is what the binary and the tests use, re-exported below; the
// modules are private and `pub` inside them means "for the crate".
#![warn(unreachable_pub)]

mod analyse;
mod batch;
mod cell;
mod columns;
mod dataset;
mod drain;
mod flatten;
mod parallel;
#[cfg(test)] // the document is checked (and rewritten) by its test
mod schema_doc;
mod tables;
mod write;
mod writer_thread;

pub use analyse::Extras;
pub use cell::{Cell, ColumnDef, Kind};
pub use dataset::{ManifestRun, Mode};
pub use tables::Table;
pub use write::Format;

use analysis::compare::{Repeat, RunSpec};
use analysis::pipeline::Options;
use cell::RowSink;
use dataset::Dataset;
use std::path::PathBuf;

/// What to export.
pub struct Request {
    /// The run arguments (`[LABEL=]FILE[,FILE...]`) and `--label` names, as `compare`.
    pub specs: Vec<RunSpec>,
    pub labels: Vec<String>,
    /// Each input file in spec order, with its analysis options.
    pub inputs: Vec<(PathBuf, Options)>,
    pub dir: PathBuf,
    pub format: Format,
    pub mode: Mode,
    /// Tables to write (`runs` always is).
    pub tables: Vec<Table>,
    pub extras: Extras,
}

/// What one input gave.
struct Exported {
    /// `{"source": ..., "input": i}`: enough for `compare`'s labels.
    source: serde_json::Value,
    /// The `runs` row without its label and repeat.
    facts: Vec<Cell<'static>>,
    rows: u64,
}

/// What was written.
#[derive(Debug)]
pub struct Summary {
    pub runs: Vec<ManifestRun>,
    pub rows: u64,
}

/// Exports `request`; `progress` hears of each input when it is done.
pub fn export(request: &Request, progress: &(dyn Fn(&str) + Sync)) -> Result<Summary, String> {
    request.format.available()?;
    let dataset = Dataset::open(&request.dir, request.format, request.mode)?;
    let result = export_into(&dataset, request, progress);
    match result {
        Ok((runs, rows)) => {
            let mut dataset = dataset;
            dataset.manifest.runs.extend(runs.iter().cloned());
            dataset.close()?;
            Ok(Summary { runs, rows })
        }
        Err(e) => {
            dataset.abandon();
            Err(e)
        }
    }
}

fn export_into(
    dataset: &Dataset,
    request: &Request,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(Vec<ManifestRun>, u64), String> {
    let n = request.inputs.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let exported: Vec<Result<Exported, String>> = parallel::each(n, |i| {
        let (path, options) = &request.inputs[i];
        let e = export_one(dataset, request, i, path, options)?;
        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        progress(&format!("[{k}/{n}] {}: {} rows", path.display(), e.rows));
        Ok(e)
    });
    let exported: Vec<Exported> = exported.into_iter().collect::<Result<_, _>>()?;
    let rows = exported.iter().map(|e| e.rows).sum();
    let placed = label(request, &exported);
    check_names(dataset, &placed)?;
    // Every input's tables, then the `runs` rows: a run is complete once its row is there.
    for &(input, ref _label, ref run, repeat) in &placed {
        for table in request.tables.iter().filter(|&&t| t != Table::Runs) {
            let staged = dataset.staged(input, table.name());
            dataset.publish(&staged, &dataset.place(table.name(), run, repeat))?;
        }
    }
    let mut runs: Vec<ManifestRun> = Vec::new();
    for &(input, ref label, ref run, repeat) in &placed {
        let staged = dataset.staged(input, Table::Runs.name());
        let mut row = vec![Cell::text(label.as_str()), Cell::int(repeat as u64)];
        row.extend(exported[input].facts.iter().cloned());
        write_rows(dataset.format, &staged, Table::Runs, |sink| sink.row(&row))?;
        let mut files = Vec::new();
        for table in &request.tables {
            files.push(dataset.place(table.name(), run, repeat));
        }
        dataset.publish(&staged, &dataset.place(Table::Runs.name(), run, repeat))?;
        let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        match runs.iter_mut().find(|r| r.run == *run) {
            Some(r) => r.files.extend(files),
            None => runs.push(ManifestRun {
                label: label.clone(),
                run: run.clone(),
                files,
            }),
        }
    }
    Ok((runs, rows))
}

/// Analyses input `i` and stages its tables.
fn export_one(
    dataset: &Dataset,
    request: &Request,
    i: usize,
    path: &std::path::Path,
    options: &Options,
) -> Result<Exported, String> {
    let (drained, writing) = drain::start(dataset.format, &request.tables, |table| {
        dataset.staged(i, table.name())
    })?;
    let analysed = analyse::analyse(path, options, request.extras, drained);
    // The writers are joined whether or not the analysis failed (its error comes first).
    let written = drain::finish(writing);
    let report = analysed?;
    let mut rows = written?;
    let from_report = request.tables.iter().filter(|t| !t.drained());
    for &table in from_report.filter(|&&t| t != Table::Runs) {
        let staged = dataset.staged(i, table.name());
        rows += write_rows(dataset.format, &staged, table, |sink| {
            table.rows(&report, sink)
        })?;
    }
    Ok(Exported {
        source: serde_json::json!({
            "source": serde_json::to_value(&report.source).map_err(|e| e.to_string())?,
            "input": i,
        }),
        facts: tables::runs::facts(&report),
        rows: rows + 1,
    })
}

/// Writes one table file at `path` with `fill`; its row count. Errors name the file.
fn write_rows(
    format: Format,
    path: &std::path::Path,
    table: Table,
    fill: impl FnOnce(&mut dyn RowSink) -> std::io::Result<()>,
) -> Result<u64, String> {
    let shown = writer_thread::shown(table, path);
    let columns = table.columns();
    let mut writer = write::create(format, path, &columns).map_err(&shown)?;
    let mut counter = writer_thread::Counted {
        sink: &mut *writer,
        rows: 0,
    };
    fill(&mut counter).map_err(&shown)?;
    let rows = counter.rows;
    writer.finish().map_err(&shown)?;
    Ok(rows)
}

/// (input, label, run, repeat) of every input, labelled as `compare` labels its runs.
fn label(request: &Request, exported: &[Exported]) -> Vec<(usize, String, String, usize)> {
    let mut next = exported.iter();
    let repeats: Vec<Vec<Repeat>> = request
        .specs
        .iter()
        .map(|spec| {
            spec.paths
                .iter()
                .zip(next.by_ref())
                .map(|(path, e)| Repeat {
                    path: path.display().to_string(),
                    report: e.source.clone(),
                    from_json_report: false,
                    samples: None,
                })
                .collect()
        })
        .collect();
    let runs = analysis::compare::assemble(&request.specs, repeats, &request.labels);
    let mut placed = Vec::new();
    for run in runs {
        let name = dataset::run_name(&run.label);
        for (k, r) in run.repeats.iter().enumerate() {
            let input = r.report["input"].as_u64().expect("set above") as usize;
            placed.push((input, run.label.clone(), name.clone(), k));
        }
    }
    placed
}

/// Refuses a run name already in the dataset (`--append` twice with one label) or given
/// to two labels here (they differ only in characters a path cannot hold).
fn check_names(dataset: &Dataset, placed: &[(usize, String, String, usize)]) -> Result<(), String> {
    for (_, label, run, _) in placed {
        if let Some(old) = dataset.manifest.runs.iter().find(|r| r.run == *run) {
            return Err(format!(
                "{}: the dataset already has run `{}` (label {:?}); give another label, or --force to \
                 rewrite the whole dataset",
                dataset.dir.display(),
                run,
                old.label
            ));
        }
        if let Some((_, other, _, _)) = placed.iter().find(|(_, l, r, _)| r == run && l != label) {
            return Err(format!(
                "labels {label:?} and {other:?} give the same partition name `{run}`: rename one"
            ));
        }
    }
    Ok(())
}
