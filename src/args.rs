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
                  file, the byte offset or line, and the cause)."
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
                      For every metric and run: the mean over repeats (percentiles: of the pooled samples), the \
                      CV in % (sample stddev / mean; `-` with one repeat), the value normalized to the baseline, \
                      and the change in % signed so that positive is better (neutral metrics such as runtime \
                      and switch rates: unsigned, never flagged). A change is flagged `*` (regression) or `^` \
                      (improvement) when it exceeds --threshold, twice the larger CV and, with two or more \
                      repeats per run, Welch's p < --alpha; with one repeat the flag is threshold-only. Tasks \
                      are matched across runs by exact name (--fold, --match, --alias say otherwise); \
                      --workload restricts the system rows to the tasks it names. The longest wait of each \
                      run and any task starved for 100 ms or more are called out.\n\n\
                      Labels: `LABEL=FILE[,FILE...]` names a run (commas separate repeats; the same \
                      LABEL given twice adds repeats). A plain FILE is labelled from its scheduler family \
                      and kernel release (`EEVDF 6.12.95+deb12-amd64`) unless --label names it; plain \
                      files with equal automatic labels stay separate runs (`#2`, `#3`), never averaged \
                      unless asked for (`FILE,FILE` or LABEL=).",
        after_help = "Examples:\n  schedtrace compare cfs/trace.dat eevdf/trace.dat pds/trace.dat\n  \
                      schedtrace compare base=old1.dat,old2.dat,old3.dat new=new1.dat,new2.dat,new3.dat\n  \
                      schedtrace analyze huge.dat --json huge.json && schedtrace compare huge.json other.dat.xz\n  \
                      schedtrace compare a.dat b.data --label before --label after --base after --json cmp.json\n  \
                      schedtrace compare a.dat b.dat --sort wakeup-max --top 5 --task-metrics switches,wakeup-mean\n  \
                      schedtrace compare cfs=c.dat pds=p1.dat,p2.dat --match 'nice-?n?(\\d)' --workload nice --format lkml\n  \
                      schedtrace compare cfs=c.dat pds=p.dat --alias mspin=mi-spin --time +0.5,+2.5 --format markdown"
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

    /// Task metric choosing and ordering the roles (largest value in any run first); any key of
    /// --task-metrics
    #[arg(long, value_name = "METRIC", default_value = "runtime", value_parser = parse_task_metric)]
    pub sort: &'static analysis::compare::metrics::Metric,

    /// Task metrics shown in the text output, one table each (default: runtime, runtime-share,
    /// weight-share, fairness, max-lag, slice-mean, wakeup-p99, preemption-wait-p99, sched-delay-max,
    /// switches, migrations; --wide adds slice-p50, slice-p99, wakeup-mean, wakeup-p50, wakeup-max,
    /// preemption-wait-mean, voluntary, involuntary, wakeups); the JSON output always has all
    #[arg(long, value_name = "METRIC[,METRIC...]", value_delimiter = ',', value_parser = parse_task_metric)]
    pub task_metrics: Vec<&'static analysis::compare::metrics::Metric>,

    /// Match tasks across runs by name with trailing digits removed (`worker3` = `worker`);
    /// default: the exact name
    #[arg(long, conflicts_with = "match_re")]
    pub fold: bool,

    /// Match tasks across runs by the first capture group of REGEX (e.g. 'nice-?n?(\d)' makes
    /// `nice-n0` and `nice0` role `0`); names it does not match keep their exact name
    #[arg(long = "match", id = "match_re", value_name = "REGEX")]
    pub match_re: Option<String>,

    /// Take tasks named FROM as named TO before matching (repeatable), e.g. --alias mspin=mi-spin
    #[arg(long = "alias", value_name = "FROM=TO")]
    pub aliases: Vec<String>,

    /// The system rows cover only tasks whose name matches PATTERN (a regular expression), not
    /// every task; shares divide by these tasks' runtime and weight
    #[arg(long, value_name = "PATTERN")]
    pub workload: Option<String>,

    /// Only tasks whose name matches (a regular expression) in the task table
    #[arg(long, value_name = "PATTERN")]
    pub comm: Option<String>,

    /// Analyse every trace over this time range only: `START,END` in seconds of the trace clock,
    /// or `+START,+END` from each trace's first event (runs start at different times)
    #[arg(long, value_name = "START,END", value_parser = parse_time_range)]
    pub time: Option<TimeRange>,

    /// Restrict the fairness metrics' competing set to these tasks (pids or a name regex), in
    /// every trace
    #[arg(long, value_name = "PID,PID|REGEX")]
    pub fair_set: Option<String>,

    /// CPU topology for traces that have none (as for analyze): `host`, a sysfs copy or a JSON file
    #[arg(long, value_name = "host|DIR|FILE")]
    pub topology: Option<String>,

    /// Kernel release to assume for traces that record none: `LABEL=RELEASE` for one run's
    /// traces, or `RELEASE` for all (repeatable)
    #[arg(long, value_name = "[LABEL=]RELEASE")]
    pub kernel_release: Vec<String>,

    /// Welch p-values at or above this are not flagged (with two or more repeats per run)
    #[arg(long, value_name = "P", default_value_t = 0.05)]
    pub alpha: f64,

    /// Output layout: `text` (fits --width), `lkml` (norm [pct imp](CV) blocks as patch mails
    /// show them), `markdown` (GitHub / wiki tables)
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,

    /// Show every metric and do not limit the width
    #[arg(long)]
    pub wide: bool,

    /// Line width of the text and lkml layouts (runs are split into column groups to fit)
    #[arg(long, value_name = "COLUMNS", default_value_t = 100)]
    pub width: usize,

    /// Also write the comparison as JSON to FILE (`-` = stdout instead of the text);
    /// schema: schemas/compare.schema.json
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareFormat {
    Text,
    Lkml,
    Markdown,
}

impl CompareArgs {
    /// The analysis of every trace, and its options in words for the comparison's header.
    pub fn analysis_config(&self) -> Result<(analysis::Config, Vec<String>), String> {
        let mut said = Vec::new();
        if let Some(t) = &self.time {
            said.push(format!("--time {}", t.describe()));
        }
        if let Some(f) = &self.fair_set {
            said.push(format!("--fair-set {f}"));
        }
        if let Some(t) = &self.topology {
            said.push(format!("--topology {t}"));
        }
        for k in &self.kernel_release {
            said.push(format!("--kernel-release {k}"));
        }
        let config = analysis_config(
            self.time,
            self.topology.as_deref(),
            self.fair_set.as_deref(),
            None,
        )?;
        Ok((config, said))
    }

    /// The `--kernel-release` default for a run labelled `label` (`None`: no label yet).
    pub fn kernel_release_for(&self, label: Option<&str>) -> Option<String> {
        let mut all = None;
        for k in &self.kernel_release {
            match k.split_once('=') {
                Some((l, rel)) if Some(l) == label => return Some(rel.to_string()),
                Some(_) => {}
                None => all = Some(k.clone()),
            }
        }
        all
    }

    pub fn options(&self) -> Result<analysis::compare::Options, String> {
        use analysis::compare::matching::{MatchBy, Matching};
        let regex = |what: &str, s: &Option<String>| -> Result<Option<regex::Regex>, String> {
            s.as_deref()
                .map(|p| regex::Regex::new(p).map_err(|e| format!("{what} {p:?}: {e}")))
                .transpose()
        };
        let by = match (&self.match_re, self.fold) {
            (Some(re), _) => Matching::regex(re)?,
            (None, true) => MatchBy::Fold,
            (None, false) => MatchBy::Exact,
        };
        let aliases = self
            .aliases
            .iter()
            .map(|a| Matching::parse_alias(a))
            .collect::<Result<_, _>>()?;
        Ok(analysis::compare::Options {
            base: self.base.clone(),
            threshold_pct: self.threshold,
            alpha: self.alpha,
            top: self.top,
            sort: self.sort,
            matching: Matching { by, aliases },
            comm: regex("--comm", &self.comm)?,
            workload: regex("--workload", &self.workload)?,
            analysis_scope: self.analysis_config()?.1,
        })
    }
}

fn parse_run_spec(s: &str) -> Result<analysis::compare::RunSpec, String> {
    analysis::compare::RunSpec::parse(s)
}

fn parse_task_metric(s: &str) -> Result<&'static analysis::compare::metrics::Metric, String> {
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

    /// Show only the first N rows of the task table in the text report (the JSON report keeps
    /// every row, in --sort order)
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
    pub time: Option<TimeRange>,

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

    /// Also build the timeline store (every running, runnable, sleeping, blocked and unknown
    /// interval of every task, as the TUI uses it) and print its size on stderr
    #[arg(long)]
    pub timeline: bool,

    /// Add per-window time series to the JSON report (`series`): per CPU busy time, runqueue depth,
    /// switches, wakeup preemptions, lost events; wakeup latency histograms, Jain's index and the
    /// competing tasks' lag per window. DURATION like 10ms, 500us, 1s
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub series: Option<u64>,

    /// Memory limit of the timeline store in MiB; past it the store is dropped and --timeline
    /// fails with a message saying so (exit status 2)
    #[arg(long, value_name = "MIB", default_value_t = analysis::timeline_store::DEFAULT_MEM_LIMIT >> 20)]
    pub timeline_mem: u64,
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
        let mut config = analysis_config(
            self.time,
            self.topology.as_deref(),
            self.fair_set.as_deref(),
            self.cpus.clone().map(|list| list.0),
        )?;
        // The series keep the store during the pass: under --timeline-mem as well.
        config.timeline = (self.timeline || self.series.is_some()).then(|| self.timeline_options());
        config.series = self.series;
        Ok(config)
    }

    /// `--timeline-mem`.
    fn timeline_options(&self) -> analysis::TimelineOptions {
        analysis::TimelineOptions {
            mem_limit_bytes: self.timeline_mem.saturating_mul(1 << 20),
        }
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

/// What the analysis computes, for `analyze` and for every trace of `compare`: the time
/// window and CPUs restrict the timelines themselves; the topology and fair set feed the
/// §6–7 metrics.
fn analysis_config(
    time: Option<TimeRange>,
    topology: Option<&str>,
    fair_set: Option<&str>,
    cpus: Option<Vec<u32>>,
) -> Result<analysis::Config, String> {
    let topology = match topology {
        Some(spec) => {
            Some(analysis::topology_load::load(spec).map_err(|e| format!("--topology {e}"))?)
        }
        None => None,
    };
    let fair_set = match fair_set {
        Some(text) => Some(analysis::FairSet::parse(text)?),
        None => None,
    };
    Ok(analysis::Config {
        time_window: time.map(|t| (t.start.unwrap_or(0), t.end.unwrap_or(u64::MAX))),
        time_relative: time.is_some_and(|t| t.relative),
        cpus,
        topology,
        fair_set,
        ..Default::default()
    })
}

/// A `--time` range in ns; `relative`: from the trace's first event (`+START,+END`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub start: Option<u64>,
    pub end: Option<u64>,
    pub relative: bool,
}

impl TimeRange {
    fn describe(&self) -> String {
        let plus = if self.relative { "+" } else { "" };
        let side =
            |v: Option<u64>| v.map_or(String::new(), |v| format!("{plus}{}", v as f64 / 1e9));
        format!(
            "{},{}{}",
            side(self.start),
            side(self.end),
            if self.relative {
                " (from each trace's start)"
            } else {
                ""
            }
        )
    }
}

/// A duration with its unit: `10ms`, `500us`, `2s`, `1000ns`; at least 1 us.
fn parse_duration(s: &str) -> Result<u64, String> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => {
            return Err(format!(
                "`{s}`: expected a number and a unit (ns, us, ms, s), e.g. 10ms"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{s}`: `{number}` is not a number"))?;
    let ns = (value * scale).round();
    if !(1e3..=1e13).contains(&ns) {
        return Err(format!("`{s}`: a window from 1us to 10000s"));
    }
    Ok(ns as u64)
}

fn parse_time_range(s: &str) -> Result<TimeRange, String> {
    let (a, b) = s
        .split_once(',')
        .ok_or("expected START,END in seconds, e.g. 19.5,20.25 or 19.5, or +0.5,+2.5")?;
    let (a, b) = (a.trim(), b.trim());
    let plus = |t: &str| t.starts_with('+');
    let relative = plus(a) || plus(b);
    if relative && ((!a.is_empty() && !plus(a)) || (!b.is_empty() && !plus(b))) {
        return Err("both sides relative (+START,+END) or both absolute".into());
    }
    let secs = |t: &str| -> Result<Option<u64>, String> {
        let t = t.trim_start_matches('+');
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
    let (start, end) = (secs(a)?, secs(b)?);
    if let (Some(start), Some(end)) = (start, end) {
        if end <= start {
            return Err("END must be after START".into());
        }
    }
    Ok(TimeRange {
        start,
        end,
        relative,
    })
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
    fn kernel_release_per_label() {
        let cli = Cli::parse_from([
            "schedtrace",
            "compare",
            "a=x.txt",
            "b=y.txt",
            "--kernel-release",
            "6.1.192-prjc-bmq",
            "--kernel-release",
            "a=6.1.192-prjc-pds",
        ]);
        let Command::Compare(c) = cli.command else {
            panic!("not compare")
        };
        assert_eq!(
            c.kernel_release_for(Some("a")).as_deref(),
            Some("6.1.192-prjc-pds")
        );
        assert_eq!(
            c.kernel_release_for(Some("b")).as_deref(),
            Some("6.1.192-prjc-bmq")
        );
        assert_eq!(
            c.kernel_release_for(None).as_deref(),
            Some("6.1.192-prjc-bmq")
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration("2.5s"), Ok(2_500_000_000));
        assert_eq!(parse_duration("500us"), Ok(500_000));
        assert!(parse_duration("10").is_err() && parse_duration("1ns").is_err());
    }

    #[test]
    fn time_ranges() {
        let t = |start, end, relative| TimeRange {
            start,
            end,
            relative,
        };
        assert_eq!(
            parse_time_range("19.5,20.25").unwrap(),
            t(Some(19_500_000_000), Some(20_250_000_000), false)
        );
        assert_eq!(
            parse_time_range("1.5,").unwrap(),
            t(Some(1_500_000_000), None, false)
        );
        assert_eq!(
            parse_time_range("+0.5,+2.5").unwrap(),
            t(Some(500_000_000), Some(2_500_000_000), true)
        );
        assert!(parse_time_range("+0.5,2.5").is_err());
        assert!(parse_time_range("2,1").is_err());
        assert!(parse_time_range("2").is_err());
    }
}
