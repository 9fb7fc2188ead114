//! Command-line arguments: what each flag means, with help text that teaches.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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
                  file, the byte offset or line, and the cause).",
    after_help = "Every number is defined in docs/metrics.md, every column of the output explained in \
                  docs/guide.md, the inputs each reader accepts listed in docs/formats.md (in the \
                  repository).\n\n\
                  Coming: `schedtrace tui`, an interactive terminal view of a report (not built yet)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Per-task and per-CPU scheduling report of one trace
    #[command(
        after_help = "Examples:\n  schedtrace analyze trace.dat\n  schedtrace analyze perf.data --sort wakeup-max --top 20\n  \
                      schedtrace analyze trace.dat.xz --comm 'hackbench' --group name\n  \
                      schedtrace analyze trace.dat --time 19.5,20.5 -C 1 --json report.json\n  \
                      perf sched record -o - -- ./bench | schedtrace analyze -"
    )]
    Analyze(AnalyzeArgs),
    /// Convert a trace (any format schedtrace reads) to a Perfetto protobuf trace
    #[command(
        after_help = "Examples:\n  schedtrace convert trace.dat -o trace.perfetto-trace\n  \
                      schedtrace convert perf.data --compact-sched -o sched.perfetto-trace\n\n\
                      Open the result in the Perfetto UI or trace_processor. Kept: sched_switch, \
                      sched_waking, sched_wakeup(_new), sched_migrate_task, fork, exit, free, task \
                      names, kernel release, CPU count, loss marks (not their counts). Other events \
                      are left out."
    )]
    Convert(ConvertArgs),
    /// Compare runs (CFS vs EEVDF vs BFS family, before vs after), with repeats and noise
    #[command(
        long_about = "Compares runs against a baseline (docs/metrics.md section 8). Each run is one trace, or \
                      several repeats of it; a JSON report written by `analyze --json` can stand in for a \
                      trace (detected by content), so a large trace is analysed once and compared many \
                      times. Every trace gets the same analysis as `analyze`.\n\n\
                      For every metric and run: the mean over repeats, the CV in % (sample stddev / mean; \
                      `-` with one repeat), the mean normalized to the baseline, and the change in % signed \
                      so that positive is better. A change is flagged `*` (regression) or `^` \
                      (improvement) when it exceeds both --threshold and twice the larger CV of the two \
                      runs. Tasks are matched across runs by name with trailing digits folded.\n\n\
                      Labels: `LABEL=FILE[,FILE...]` names a run (commas separate repeats; the same \
                      LABEL given twice adds repeats). A plain FILE is labelled from its scheduler family \
                      and kernel release (`EEVDF 6.12.95+deb12-amd64`) unless --label names it; plain \
                      files with equal automatic labels stay separate runs (`#2`, `#3`), never averaged \
                      unless asked for (`FILE,FILE` or LABEL=).",
        after_help = "Examples:\n  schedtrace compare cfs/trace.dat eevdf/trace.dat pds/trace.dat\n  \
                      schedtrace compare base=old1.dat,old2.dat,old3.dat new=new1.dat,new2.dat,new3.dat\n  \
                      schedtrace analyze huge.dat --json huge.json && schedtrace compare huge.json other.dat.xz\n  \
                      schedtrace compare a.dat b.data --label before --label after --base after --json cmp.json\n  \
                      schedtrace compare a.dat b.dat --sort wakeup-max --top 5 --task-metrics switches,wakeup-mean"
    )]
    Compare(CompareArgs),
}

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

#[derive(Parser, Debug)]
pub struct CompareArgs {
    /// Runs: `LABEL=FILE[,FILE...]` or `FILE[,FILE...]` (trace.dat, perf.data, trace text or a JSON
    /// report from `analyze --json`; compressed files are read as they are)
    #[arg(required = true, value_name = "RUN", value_parser = parse_run_spec)]
    pub runs: Vec<analysis::compare::RunSpec>,

    /// Label of the baseline run (default: the first run)
    #[arg(long, value_name = "LABEL")]
    pub base: Option<String>,

    /// Names the runs given without `LABEL=`, in order (repeat the flag)
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,

    /// Flag changes larger than this many percent (and than twice the larger CV)
    #[arg(long, value_name = "PERCENT", default_value_t = 5.0)]
    pub threshold: f64,

    /// Tasks in the task table
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,

    /// Task metric choosing and ordering the tasks (largest value in any run first): runtime, switches,
    /// voluntary, involuntary, wakeups, migrations, wakeup-mean, wakeup-max, preemption-wait-mean,
    /// sched-delay, sched-delay-mean, sched-delay-max
    #[arg(long, value_name = "METRIC", default_value = "runtime", value_parser = parse_task_metric)]
    pub sort: &'static analysis::compare::metrics::TaskMetric,

    /// Task metrics shown in the text output, one table each (default: the --sort metric); the
    /// JSON output always has all of them
    #[arg(long, value_name = "METRIC[,METRIC...]", value_delimiter = ',', value_parser = parse_task_metric)]
    pub task_metrics: Vec<&'static analysis::compare::metrics::TaskMetric>,

    /// Also write the comparison as JSON to FILE (`-` = stdout instead of the text);
    /// schema: schemas/compare.schema.json
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// No progress line on stderr (it is only drawn when stderr is a terminal)
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

fn parse_run_spec(s: &str) -> Result<analysis::compare::RunSpec, String> {
    analysis::compare::RunSpec::parse(s)
}

fn parse_task_metric(s: &str) -> Result<&'static analysis::compare::metrics::TaskMetric, String> {
    analysis::compare::metrics::task_metric(s)
}

#[derive(Parser, Debug)]
pub struct AnalyzeArgs {
    /// Trace file: trace.dat, perf.data, or trace text; `.xz`, `.gz`, `.zst` are read as they are; `-` is stdin.
    /// The format is detected from the content. A pipe-mode perf.data on stdin is analyzed as it arrives
    /// (`perf sched record -o - -- CMD | schedtrace analyze -`); other formats are read whole first.
    pub file: PathBuf,

    /// Order of the task table
    #[arg(long, value_name = "KEY", default_value = "runtime", value_parser = sort_key_parser())]
    pub sort: analysis::SortKey,

    /// Show only the first N rows of the task table
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    /// Only these tasks (comma-separated pids)
    #[arg(
        short = 'p',
        long = "pid",
        value_name = "PID[,PID...]",
        value_delimiter = ','
    )]
    pub pids: Vec<i32>,

    /// Only tasks whose name matches (a substring or a regular expression)
    #[arg(long, value_name = "PATTERN")]
    pub comm: Option<String>,

    /// Only these CPUs, e.g. `1` or `0-3,6` (per-CPU table and task time on them)
    #[arg(short = 'C', long = "cpu", value_name = "LIST", value_parser = parse_cpu_list)]
    pub cpus: Option<CpuList>,

    /// Only this time range, in seconds of the trace clock: `START,END`; either side may be empty
    #[arg(long, value_name = "START,END", value_parser = parse_time_range)]
    pub time: Option<(Option<u64>, Option<u64>)>,

    /// Rows of the task table: one per thread (pid), per process (tgid), or per name (`comm` with trailing
    /// digits folded, like perf's `comm:(N)`)
    #[arg(long, value_enum, default_value_t = Grouping::Pid)]
    pub group: Grouping,

    /// CPU topology for the cache-affinity and per-LLC metrics when the trace has none
    /// (trace.dat never has; perf.data usually does, and then wins): `host` (this machine's
    /// /sys), a copy of sysfs (a directory holding devices/system/cpu/cpu*/topology and
    /// cache/index*), or a JSON file (schemas/topology.schema.json)
    #[arg(long, value_name = "host|DIR|FILE")]
    pub topology: Option<String>,

    /// Restrict the fairness metrics' competing set to these tasks: comma-separated pids,
    /// or a regular expression matched against task names (e.g. `massive_intr|spin`)
    #[arg(long, value_name = "PID,PID|REGEX")]
    pub fair_set: Option<String>,

    /// Kernel release (`uname -r`) to assume when the trace does not record one (text traces):
    /// it tells the scheduler family and how PDS/BMQ kernels print priorities
    #[arg(long, value_name = "RELEASE")]
    pub kernel_release: Option<String>,

    /// Also write the report as JSON to FILE (`-` = stdout instead of the text report);
    /// schema: schemas/report.schema.json
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// No progress line on stderr (it is only drawn when stderr is a terminal)
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    Pid,
    Process,
    Name,
}

impl AnalyzeArgs {
    /// What the analysis computes: the time window and CPUs restrict the timelines
    /// themselves; the topology and fair set feed the §6–7 metrics.
    pub fn analysis_config(&self) -> Result<analysis::Config, String> {
        let time_window = self
            .time
            .map(|(start, end)| (start.unwrap_or(0), end.unwrap_or(u64::MAX)));
        let topology = match &self.topology {
            Some(spec) => {
                Some(analysis::topology_load::load(spec).map_err(|e| format!("--topology {e}"))?)
            }
            None => None,
        };
        let fair_set = match &self.fair_set {
            Some(text) => Some(analysis::FairSet::parse(text)?),
            None => None,
        };
        Ok(analysis::Config {
            time_window,
            cpus: self.cpus.clone().map(|list| list.0),
            topology,
            fair_set,
        })
    }

    /// How the report is shaped for display: filters, grouping, order, length.
    pub fn selection(&self) -> Result<analysis::Selection, String> {
        use analysis::GroupBy;
        let group = match self.group {
            Grouping::Pid => GroupBy::Pid,
            Grouping::Process => GroupBy::Process,
            Grouping::Name => GroupBy::Name,
        };
        Ok(analysis::Selection {
            sort: self.sort,
            top: self.top,
            pids: self.pids.clone(),
            comm: self.comm.as_deref().map(analysis::CommFilter::parse),
            group,
        })
    }

    pub fn text_options(&self) -> render::TextOptions {
        render::TextOptions::default()
    }
}

/// `--sort` values come from the analysis' own table of keys, with their help text.
fn sort_key_parser() -> impl clap::builder::TypedValueParser<Value = analysis::SortKey> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = analysis::SortKey::KEYS
        .iter()
        .map(|&(name, _, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(values).try_map(|s| s.parse::<analysis::SortKey>())
}

/// A parsed `-C` list. A newtype because clap reads `Option<Vec<T>>` as "several values of T",
/// not as one value parsed into a list.
#[derive(Debug, Clone)]
pub struct CpuList(pub Vec<u32>);

fn parse_cpu_list(s: &str) -> Result<CpuList, String> {
    let mut cpus = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let bad = || format!("`{part}` is not a CPU number or range like 0-3");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (
                    a.trim().parse().map_err(|_| bad())?,
                    b.trim().parse().map_err(|_| bad())?,
                );
                if a > b || b - a > 65_536 {
                    return Err(bad());
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.trim().parse().map_err(|_| bad())?),
        }
    }
    if cpus.is_empty() {
        return Err("empty CPU list".into());
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(CpuList(cpus))
}

type TimeRange = (Option<u64>, Option<u64>);

fn parse_time_range(s: &str) -> Result<TimeRange, String> {
    let (a, b) = s
        .split_once(',')
        .ok_or("expected START,END in seconds, e.g. 19.5,20.25 or 19.5,")?;
    let secs = |t: &str| -> Result<Option<u64>, String> {
        let t = t.trim();
        if t.is_empty() {
            return Ok(None);
        }
        let v: f64 = t
            .parse()
            .map_err(|_| format!("`{t}` is not a time in seconds"))?;
        if !v.is_finite() || v < 0.0 {
            return Err(format!("`{t}` is not a time in seconds"));
        }
        Ok(Some((v * 1e9).round() as u64))
    };
    let range = (secs(a)?, secs(b)?);
    if let (Some(start), Some(end)) = range {
        if end <= start {
            return Err("END must be after START".into());
        }
    }
    Ok(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,6,2").unwrap().0, vec![0, 1, 2, 3, 6]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
    }

    #[test]
    fn time_ranges() {
        assert_eq!(
            parse_time_range("19.5,20.25").unwrap(),
            (Some(19_500_000_000), Some(20_250_000_000))
        );
        assert_eq!(
            parse_time_range("1.5,").unwrap(),
            (Some(1_500_000_000), None)
        );
        assert!(parse_time_range("2,1").is_err());
        assert!(parse_time_range("2").is_err());
    }
}
