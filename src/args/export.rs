//! `schedtrace export`'s arguments: the run grammar and analysis options of `compare`
//! (parsed by the same functions), and where and how the tables are written.

use super::{parse_duration, parse_run_spec, run_inputs};
use clap::Parser;
use std::path::PathBuf;
use std::sync::Arc;

pub const LONG_ABOUT: &str = "Writes the analysis of one or many traces as tables that polars, pandas, DuckDB \
    or Spark read without schedtrace: runs (one row per trace), tasks and cpus (the JSON report's rows, flat), \
    slices (every running interval), waits (every wakeup latency and preemption wait, with waker and placement), \
    intervals (every task state interval), series (per-window time series) and preemptions (every wakeup \
    preemption). Columns and units: schemas/export.md.\n\n\
    Runs are given as for `compare` (`LABEL=FILE[,FILE...]`, repeats, automatic labels) and analysed the same \
    way, in parallel. The dataset is Hive-partitioned, DIR/<table>/run=<run>/part-<repeat>.<ext>, so one \
    glob reads every run; --append adds runs to it later. Files are written under a temporary name and moved \
    into place when complete.";

pub const AFTER_HELP: &str = "Examples:\n  \
    schedtrace export cfs=cfs/trace.dat eevdf=eevdf/trace.dat -o dataset\n  \
    schedtrace export base=a1.dat,a2.dat new=b1.dat,b2.dat -o dataset --format parquet\n  \
    schedtrace export pds=pds/trace.dat -o dataset --append\n  \
    schedtrace export trace.dat -o out --format ndjson --tables tasks,waits\n\n\
    Read it back:\n  \
    python3 -c \"import polars as pl; print(pl.read_parquet('dataset/waits/**/*.parquet', hive_partitioning=True))\"\n  \
    duckdb -c \"select run, count(*) from read_parquet('dataset/waits/*/*.parquet', hive_partitioning = true) group by run\"";

#[derive(Parser, Debug)]
pub struct ExportArgs {
    /// Runs: `LABEL=FILE[,FILE...]` or `FILE[,FILE...]` (trace.dat, perf.data, trace text,
    /// Perfetto; compressed files are read as they are)
    #[arg(required = true, value_name = "RUN", value_parser = parse_run_spec)]
    pub runs: Vec<analysis::compare::RunSpec>,

    /// Names the runs given without `LABEL=`, in order (repeat the flag)
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,

    /// Dataset directory (created; must be missing or empty unless --append or --force)
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,

    /// File format: csv, ndjson or parquet (parquet needs a build with the `parquet` feature);
    /// default parquet when built with it, else csv
    #[arg(long, value_name = "FORMAT", value_parser = export::Format::parse)]
    pub format: Option<export::Format>,

    /// Add these runs to the dataset in DIR (same format; a label already there is refused)
    #[arg(long, conflicts_with = "force")]
    pub append: bool,

    /// Replace the dataset in DIR (only a directory that schedtrace export wrote)
    #[arg(long)]
    pub force: bool,

    /// Tables to write (default: all); `runs` is always written
    #[arg(long, value_name = "TABLE[,TABLE...]", value_delimiter = ',', value_parser = export::Table::parse)]
    pub tables: Vec<export::Table>,

    /// Window of the series table, like 10ms, 500us, 1s
    #[arg(long, value_name = "DURATION", default_value = "10ms", value_parser = parse_duration)]
    pub series: u64,

    #[command(flatten)]
    pub scope: super::runs::RunAnalysis,

    /// No progress on stderr (a progress line on a terminal, else one line per input)
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

impl ExportArgs {
    /// The export request: every input with its analysis options, as `compare` builds them,
    /// all counting their reading in `progress` and read with the run's `read` options.
    pub fn request(
        &self,
        progress: &Arc<ingest::Progress>,
        read: ingest::ReadOptions,
    ) -> Result<export::Request, String> {
        let unlabelled = self.runs.iter().filter(|r| r.label.is_none()).count();
        if self.labels.len() > unlabelled {
            return Err(format!(
                "{} --label names for {unlabelled} runs without LABEL=",
                self.labels.len()
            ));
        }
        let format = self
            .format
            .unwrap_or_else(export::Format::default_for_build);
        format.available()?;
        let config = self.scope.config()?;
        let inputs = run_inputs(
            &self.runs,
            &self.labels,
            &config,
            &self.scope.kernel_release,
            progress,
            read,
        );
        let mut tables = if self.tables.is_empty() {
            export::Table::ALL.to_vec()
        } else {
            self.tables.clone()
        };
        if !tables.contains(&export::Table::Runs) {
            tables.insert(0, export::Table::Runs);
        }
        tables.dedup();
        Ok(export::Request {
            specs: self.runs.clone(),
            labels: self.labels.clone(),
            inputs,
            dir: self.output.clone(),
            format,
            mode: match (self.append, self.force) {
                (true, _) => export::Mode::Append,
                (_, true) => export::Mode::Force,
                _ => export::Mode::New,
            },
            tables,
            extras: export::Extras {
                series_ns: self.series,
            },
        })
    }
}
