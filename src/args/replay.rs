//! `schedtrace replay`'s arguments: one trace in; its demand out as JSON or rt-app JSON.

use clap::Parser;
use std::path::PathBuf;

pub const AFTER_HELP: &str = "Examples:\n  schedtrace replay trace.dat --demand-json demand.json\n  \
    schedtrace replay trace.dat --rt-app workload.json && rt-app workload.json\n\n\
    The demand is each task's CPU bursts (CPU time between two blocking switch-outs: a preemption does \
    not end one) and blocks (timed, or a dependency on another task's burst), with nice, policy, the CPUs \
    it ran on, fork and exit, and the run's CPUs, LLCs and HZ. Layout and limits: docs/replay.md.";

#[derive(Parser, Debug)]
pub struct ReplayArgs {
    /// Input trace: trace.dat, perf.data, trace text or Perfetto; `.xz`, `.gz`, `.zst` are read as they are
    pub file: PathBuf,

    /// Write the demand (bursts, blocks, tasks, CPUs, HZ) as JSON to FILE (`-` = stdout)
    #[arg(long, value_name = "FILE")]
    pub demand_json: Option<PathBuf>,

    /// Write the workload as rt-app JSON to FILE, to run it again on a real kernel
    #[arg(long, value_name = "FILE")]
    pub rt_app: Option<PathBuf>,

    /// rt-app's run time in seconds (default: the trace's window, rounded up)
    #[arg(long, value_name = "SECONDS")]
    pub rt_app_duration: Option<u32>,

    /// CPUs of the machine rt-app will run on (default: the trace's); a traced CPU beyond them
    /// is folded onto CPU `cpu % N`, which keeps pinned tasks pinned
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=8192))]
    pub rt_app_cpus: Option<u32>,

    /// The traced kernel's tick rate (CONFIG_HZ); default: detected from the trace when its
    /// slices end at the tick, else 250
    #[arg(long, value_name = "HZ", value_parser = clap::value_parser!(u32).range(10..=10000))]
    pub hz: Option<u32>,

    /// The kernel release to assume when the trace does not record one (text traces)
    #[arg(long, value_name = "RELEASE")]
    pub kernel_release: Option<String>,
}
