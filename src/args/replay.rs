//! `schedtrace replay`'s arguments: one trace in; its demand out as JSON or rt-app JSON.

use clap::Parser;
use std::path::PathBuf;

pub const AFTER_HELP: &str = "Examples:\n  schedtrace replay trace.dat --demand-json demand.json\n  \
    schedtrace replay trace.dat --rt-app workload.json && rt-app workload.json\n  \
    schedtrace replay trace.dat --affinity 'worker.*=2-3' --demand-json demand.json\n  \
    schedtrace replay cfs.dat --as eevdf -o eevdf.predicted.pftrace\n  \
    schedtrace compare real=eevdf.dat predicted=eevdf.predicted.pftrace\n\n\
    The demand is each task's CPU bursts (CPU time between two blocking switch-outs: a preemption does \
    not end one) and blocks (timed, or a dependency on another task's burst), with nice, policy, the CPUs \
    it may run on (recorded by `schedtrace record`, given by --affinity, else the ones it ran on), fork and exit, and the run's CPUs, LLCs and HZ. `--as` runs that demand through a model of \
    a scheduler (cfs: CFS of 6.1; eevdf: EEVDF of 6.12; pds, bmq: Project C v6.1-r4) and writes the predicted schedule as a Perfetto \
    trace. Models, parameters and limits: docs/replay.md.";

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

    /// Predict the schedule of MODEL (cfs, eevdf, pds, bmq) for the trace's demand; needs -o
    #[arg(long = "as", value_name = "MODEL", requires = "output", value_parser = parse_model)]
    pub model: Option<replay::sim::model::ModelName>,

    /// Where --as writes the predicted schedule (a Perfetto trace)
    #[arg(short = 'o', long, value_name = "FILE", requires = "model")]
    pub output: Option<PathBuf>,

    /// Seed of the simulation (the tick grid's phase): the same trace and seed give the same bytes
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,

    /// The simulated kernel's tick rate (default: the model's kernel's, 250 for cfs and eevdf, 1000 for pds and bmq)
    #[arg(long, value_name = "HZ", value_parser = clap::value_parser!(u32).range(10..=10000))]
    pub model_hz: Option<u32>,

    /// Which CPUs the tasks whose name matches REGEX may use (repeatable; the first match wins),
    /// e.g. `'mi-.*=1'`, as `analyze` takes it: their `cpus` in the demand and the rt-app JSON,
    /// and where the models may run them. A recording of `schedtrace record` (the trace's
    /// sidecar) carries every task's own mask and comes first; a task neither names may run
    /// on the CPUs it ran on for at least 10 % of its runtime. The demand's `cpus_from` says
    /// which (`recorded`, `given`, `observed`)
    #[arg(long, value_name = "REGEX=CPULIST")]
    pub affinity: Vec<String>,

    /// The kernel release to assume when the trace does not record one (text traces)
    #[arg(long, value_name = "RELEASE")]
    pub kernel_release: Option<String>,
}

fn parse_model(s: &str) -> Result<replay::sim::model::ModelName, String> {
    replay::sim::model::ModelName::parse(s).ok_or_else(|| {
        let names: Vec<&str> = replay::sim::model::ModelName::ALL
            .iter()
            .map(|m| m.as_str())
            .collect();
        format!("unknown model {s:?}: one of {}", names.join(", "))
    })
}
