//! Command-line arguments: what each flag means, with help text that teaches. The top
//! level and the subcommand list live here; each subcommand's arguments in its own module,
//! the value parsers and analysis options they share in [`values`] and [`options`].

mod analyze;
mod compare;
mod convert;
mod export;
mod options;
mod record;
mod replay;
mod runs;
mod tui;
mod values;

use clap::{Parser, Subcommand};

pub use analyze::AnalyzeArgs;
pub use compare::{CompareArgs, CompareFormat};
pub use convert::ConvertArgs;
pub use export::ExportArgs;
pub use options::Grouping;
pub use record::RecordArgs;
pub use replay::ReplayArgs;
pub use runs::run_inputs;
pub use tui::TuiArgs;
use values::{parse_duration, parse_run_spec};

#[derive(Parser, Debug)]
#[command(
    name = "schedtrace",
    version,
    about = "Scheduler latency, runtime and fairness from Linux traces",
    long_about = "schedtrace reads scheduler traces recorded with trace-cmd (trace.dat v6/v7), perf \
                  (perf.data) or as text (ftrace, trace-cmd report, perf script), rebuilds every task's \
                  running / runnable / sleeping timeline, and reports runtime, wakeup latency, preemption \
                  wait, switches and migrations per task, and utilization per CPU.\n\n\
                  Record a trace with, for example:\n  \
                  trace-cmd record -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup \
                  -e sched:sched_wakeup_new -e sched:sched_migrate_task -e sched:sched_process_fork \
                  -e sched:sched_process_exit -- ./benchmark\n  \
                  perf sched record -- ./benchmark\n\n\
                  Exit status: 0 on success, 2 when an input cannot be read (the message names the \
                  file, the byte offset or line, and the cause)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Most bytes one input may decompress to (`.xz` / `.gz` / `.zst` wrappers, trace.dat v7
    /// chunks, perf.data -z records), e.g. `8G`; default 64 times the compressed bytes read
    /// plus 64 MiB. Also the most bytes held of an input that is not a regular file (stdin, a
    /// FIFO, `<(...)`, a device) in a format read whole (all but a pipe-mode perf.data);
    /// default half the memory available. Past either, an error names the limit: a
    /// decompression bomb or an endless stream must not take all memory
    #[arg(long, global = true, value_name = "SIZE", value_parser = ingest::inflate::parse_size)]
    pub max_inflate: Option<u64>,

    /// Stop at the first damaged page or record (exit 2) instead of skipping it, counting it in
    /// the ledger and marking its CPU's tasks unknown from there
    #[arg(long, global = true)]
    pub strict: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Per-task and per-CPU scheduling report of one trace
    #[command(after_help = analyze::AFTER_HELP)]
    Analyze(AnalyzeArgs),
    /// Convert a trace (any format schedtrace reads) to a Perfetto protobuf trace
    #[command(after_help = convert::AFTER_HELP)]
    Convert(ConvertArgs),
    /// Compare runs (CFS vs EEVDF vs BFS family, before vs after), with repeats and noise
    #[command(long_about = compare::LONG_ABOUT, after_help = compare::AFTER_HELP)]
    Compare(CompareArgs),
    /// Browse a run or compare runs interactively in the terminal
    #[command(long_about = tui::LONG_ABOUT, after_help = tui::AFTER_HELP)]
    Tui(TuiArgs),
    /// Tables for notebooks and fleets: runs, tasks, CPUs, slices, waits, intervals, series,
    /// preemptions as CSV, NDJSON or Parquet, in a Hive-partitioned dataset
    #[command(
        long_about = export::LONG_ABOUT,
        after_help = export::AFTER_HELP
    )]
    Export(ExportArgs),
    /// Record the scheduler events of a command's run (or of a time) with everything the
    /// analysis needs: allowed CPUs, topology, HZ, scheduler features
    #[command(long_about = record::LONG_ABOUT, after_help = record::AFTER_HELP)]
    Record(RecordArgs),
    /// A trace's workload as per-task CPU bursts and blocks (JSON, rt-app JSON)
    #[command(after_help = replay::AFTER_HELP)]
    Replay(ReplayArgs),
}
