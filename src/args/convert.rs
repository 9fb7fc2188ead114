//! `schedtrace convert`'s arguments: one trace in, one Perfetto trace out.

use clap::Parser;
use std::path::PathBuf;

pub const AFTER_HELP: &str = "Examples:\n  schedtrace convert trace.dat -o trace.perfetto-trace\n  \
                      schedtrace convert perf.data --compact-sched -o sched.perfetto-trace\n\n\
                      Open the result in the Perfetto UI or trace_processor. Kept: sched_switch, \
                      sched_waking, sched_wakeup(_new), sched_migrate_task, fork, exit, free, task \
                      names, kernel release, CPU count, loss marks (not their counts). Other events \
                      are left out.";

#[derive(Parser, Debug)]
pub struct ConvertArgs {
    /// Input trace: trace.dat, perf.data, trace text or Perfetto; `.xz`, `.gz`, `.zst` are read as they are;
    /// `-` is stdin
    pub file: PathBuf,

    /// Output Perfetto trace (`-` = stdout); written to OUT.partial, renamed when complete
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,

    /// Write sched_switch / sched_waking in Perfetto's compact_sched encoding (about 3x smaller)
    #[arg(long)]
    pub compact_sched: bool,
}
