//! Command-line arguments: what each flag means, with help text that teaches.

mod export;
mod runs;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub use export::ExportArgs;

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
    /// plus 64 MiB. A larger inflation stops with an error naming the limit: a decompression
    /// bomb must not take all memory
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
    /// Browse a run or compare runs interactively in the terminal
    #[command(
        long_about = "Opens the runs in a terminal UI: one RUN opens on the Overview, two or more on \
                      Compare. RUN has the grammar of `compare` (`[LABEL=]FILE[,FILE...]`, traces of any \
                      format or `analyze --json` reports); every trace gets the analysis of `analyze` with \
                      the options below. Views: 1 overview, 2 tasks, 3 task detail, 4 timeline, 5 wakeup \
                      preemptions, 6 fairness, 7 placement, 8 compare, 9 quality; `?` lists every key.\n\n\
                      --print draws one frame as plain text after --keys (vim notation: `2/mi-work<Enter>`, \
                      `<Esc>`, `<Tab>`, `<C-d>`, `<Space>`, `<lt>` for `<`) and exits.",
        after_help = "Examples:\n  schedtrace tui trace.dat\n  \
                      schedtrace tui cfs=cfs.dat eevdf=eevdf.dat pds=pds1.dat,pds2.dat --base eevdf\n  \
                      schedtrace tui trace.dat --view tasks --sort lat.p99 --filter 'lat.p99>5ms'\n  \
                      schedtrace tui --print --size 160x50 --keys '2/kworker<Enter>' trace.dat"
    )]
    Tui(TuiArgs),
    /// Tables for notebooks and fleets: runs, tasks, CPUs, slices, waits, intervals, series,
    /// preemptions as CSV, NDJSON or Parquet, in a Hive-partitioned dataset
    #[command(
        long_about = export::LONG_ABOUT,
        after_help = export::AFTER_HELP
    )]
    Export(ExportArgs),
}

#[derive(Parser, Debug)]
pub struct TuiArgs {
    /// Runs: `LABEL=FILE[,FILE...]` or `FILE[,FILE...]`, as for `compare`
    #[arg(required = true, value_name = "RUN", value_parser = parse_run_spec)]
    pub runs: Vec<analysis::compare::RunSpec>,

    /// Names the runs given without `LABEL=`, in order (repeat the flag)
    #[arg(long = "label", value_name = "NAME")]
    pub labels: Vec<String>,

    #[command(flatten)]
    pub analysis: AnalysisOptions,

    /// Rows of the tasks view at start: per thread (pid), per process, or per folded name
    #[arg(long, value_enum, default_value_t = Grouping::Pid)]
    pub group: Grouping,

    /// Label of the baseline run (default: the first run)
    #[arg(long, value_name = "LABEL")]
    pub base: Option<String>,

    /// Flag changes larger than this many percent (and than twice the larger CV)
    #[arg(long, value_name = "PERCENT", default_value_t = 5.0)]
    pub threshold: f64,

    /// View to open: overview, tasks, detail, timeline, preemptions, fairness, placement, compare, quality
    #[arg(long, value_name = "NAME", value_parser = tui::View::parse)]
    pub view: Option<tui::View>,

    /// Column the tasks view is sorted by (e.g. runtime, lat.p99, dly.max, fair, lag)
    #[arg(long, value_name = "KEY", value_parser = tui::check_sort_key)]
    pub sort: Option<String>,

    /// Filter of the tasks view (as typed after `/`: `mi-work`, `!kworker`, `lat.p99>5ms`,
    /// `cpu=1`: the tasks that ran on CPU 1)
    #[arg(long, value_name = "EXPR", value_parser = tui::check_filter)]
    pub filter: Option<String>,

    /// Capture the mouse (wheel scrolls); off by default so terminal selection still copies
    #[arg(long)]
    pub mouse: bool,

    /// Plain ASCII: no braille, block or box-drawing glyphs
    #[arg(long)]
    pub ascii: bool,

    /// Draw one frame as plain text to stdout and exit (after --keys)
    #[arg(long)]
    pub print: bool,

    /// Size of the --print frame, WIDTHxHEIGHT
    #[arg(long, value_name = "WxH", default_value = "160x50", value_parser = parse_size, requires = "print")]
    pub size: (u16, u16),

    /// Keys to press before --print draws (vim notation)
    #[arg(long, value_name = "KEYS", default_value = "", requires = "print")]
    pub keys: String,
}

fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let bad = || format!("`{s}` is not a size like 160x50");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u16, u16) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
    if w == 0 || h == 0 || w > 1000 || h > 1000 {
        return Err(bad());
    }
    Ok((w, h))
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

    #[command(flatten)]
    pub scope: runs::RunAnalysis,

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

    /// No progress line on stderr (it is only drawn when stderr is a terminal)
    #[arg(short = 'q', long)]
    pub quiet: bool,
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
        Ok((self.scope.config()?, self.scope.described()))
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

/// Every input file of `runs` in order, each with its analysis options (as `compare` and
/// `export` analyse them): `config`, the `--kernel-release` default of its run's label (its
/// own `LABEL=`, else the next `--label` name), `progress` to count in and the run's `read`
/// options (`--strict`, `--max-inflate`).
pub fn run_inputs(
    runs: &[analysis::compare::RunSpec],
    labels: &[String],
    config: &analysis::Config,
    kernel_release: &[String],
    progress: &std::sync::Arc<ingest::Progress>,
    read: ingest::ReadOptions,
) -> Vec<(PathBuf, analysis::pipeline::Options)> {
    let mut names = labels.iter();
    runs.iter()
        .flat_map(|r| {
            let label = r.label.clone().or_else(|| names.next().cloned());
            let options = analysis::pipeline::Options {
                config: config.clone(),
                kernel_release: kernel_release_for(kernel_release, label.as_deref()),
                progress: Some(progress.clone()),
                read,
            };
            r.paths.iter().map(move |p| (p.clone(), options.clone()))
        })
        .collect()
}

/// The `--kernel-release` default (`[LABEL=]RELEASE`, repeatable) for a run labelled `label`.
fn kernel_release_for(list: &[String], label: Option<&str>) -> Option<String> {
    let mut all = None;
    for k in list {
        match k.split_once('=') {
            Some((l, rel)) if Some(l) == label => return Some(rel.to_string()),
            Some(_) => {}
            None => all = Some(k.clone()),
        }
    }
    all
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

    /// Rows of the task table: one per thread (pid), per process (tgid), or per name (`comm` with trailing
    /// digits folded, like perf's `comm:(N)`)
    #[arg(long, value_enum, default_value_t = Grouping::Pid)]
    pub group: Grouping,

    #[command(flatten)]
    pub analysis: AnalysisOptions,

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

    /// No progress line on stderr (it is only drawn when stderr is a terminal)
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// How every input is analysed: shared by `analyze` and `tui`.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalysisOptions {
    /// Only these CPUs, e.g. `1` or `0-3,6` (per-CPU table and task time on them)
    #[arg(short = 'C', long = "cpu", value_name = "LIST", value_parser = parse_cpu_list)]
    pub cpus: Option<CpuList>,

    /// Only this time range, in seconds of the trace clock: `START,END`; either side may be empty.
    /// `+0.5,+1.5` is relative to the trace's first event; units `s` (default), `ms`, `us`, `ns`
    /// are accepted (`81.5s`, `200ms`)
    #[arg(long, value_name = "START,END", value_parser = parse_time_range)]
    pub time: Option<TimeRange>,

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

    /// Memory limit of the timeline store in MiB; past it the store is dropped and --timeline
    /// fails with a message saying so (exit status 2); the TUI's timeline view says so instead
    #[arg(long, value_name = "MIB", default_value_t = analysis::timeline_store::DEFAULT_MEM_LIMIT >> 20)]
    pub timeline_mem: u64,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grouping {
    Pid,
    Process,
    Name,
}

impl Grouping {
    pub fn group_by(self) -> analysis::GroupBy {
        match self {
            Grouping::Pid => analysis::GroupBy::Pid,
            Grouping::Process => analysis::GroupBy::Process,
            Grouping::Name => analysis::GroupBy::Name,
        }
    }
}

impl AnalysisOptions {
    /// What the analysis computes: the time window and CPUs restrict the timelines
    /// themselves; the topology and fair set feed the §6–7 metrics.
    pub fn analysis_config(&self) -> Result<analysis::Config, String> {
        let time_window = self
            .time
            .as_ref()
            .map(|t| (t.start.unwrap_or(0), t.end.unwrap_or(u64::MAX)));
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
            time_relative: self.time.as_ref().is_some_and(|t| t.relative),
            cpus: self.cpus.clone().map(|list| list.0),
            topology,
            fair_set,
            timeline: None,
            series: None,
            records: None,
        })
    }

    /// `--timeline-mem`.
    pub fn timeline_options(&self) -> analysis::TimelineOptions {
        analysis::TimelineOptions {
            mem_limit_bytes: self.timeline_mem.saturating_mul(1 << 20),
        }
    }
}

impl AnalyzeArgs {
    /// The shared analysis options plus what only `analyze` asks for: the store and series.
    pub fn analysis_config(&self) -> Result<analysis::Config, String> {
        Ok(analysis::Config {
            // The series keep the store during the pass: under --timeline-mem as well.
            timeline: (self.timeline || self.series.is_some())
                .then(|| self.analysis.timeline_options()),
            series: self.series,
            ..self.analysis.analysis_config()?
        })
    }

    /// How the report is shaped for display: filters, grouping, order, length.
    pub fn selection(&self) -> Result<analysis::Selection, String> {
        let group = self.group.group_by();
        Ok(analysis::Selection {
            sort: self.sort,
            top: self.top,
            pids: self.pids.clone(),
            comm: match self.comm.as_deref() {
                Some(text) => {
                    Some(analysis::CommFilter::parse(text).map_err(|e| format!("--comm {e}"))?)
                }
                None => None,
            },
            group,
        })
    }

    /// The `--time` window in absolute ns, for a trace whose first event is at `first`.
    pub fn analysis_window(&self, first: u64) -> (u64, u64) {
        let Some(t) = &self.analysis.time else {
            return (0, u64::MAX);
        };
        let base = if t.relative { first } else { 0 };
        (
            base.saturating_add(t.start.unwrap_or(0)),
            t.end.map_or(u64::MAX, |e| base.saturating_add(e)),
        )
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
        time_window: time
            .as_ref()
            .map(|t| (t.start.unwrap_or(0), t.end.unwrap_or(u64::MAX))),
        time_relative: time.as_ref().is_some_and(|t| t.relative),
        cpus,
        topology,
        fair_set,
        ..Default::default()
    })
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

/// A parsed `--time`: ns from 0 of the trace clock, or from the first event when `relative`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeRange {
    pub start: Option<u64>,
    pub end: Option<u64>,
    pub relative: bool,
    /// As the user wrote it, for messages.
    pub text: String,
}

fn parse_time_range(s: &str) -> Result<TimeRange, String> {
    let (a, b) = s.split_once(',').ok_or(
        "expected START,END in seconds, e.g. 19.5,20.25 or 19.5, or +0.5,+1.5 from the trace start",
    )?;
    let plus = |t: &str| t.trim().starts_with('+');
    let (pa, pb) = (plus(a), plus(b));
    if !a.trim().is_empty() && !b.trim().is_empty() && pa != pb {
        return Err("START and END must both be relative (+) or both absolute".into());
    }
    let time = |t: &str| -> Result<Option<u64>, String> {
        let t = t.trim().trim_start_matches('+');
        if t.is_empty() {
            return Ok(None);
        }
        let bad =
            || format!("`{t}` is not a time (seconds, or with a unit: 81.5s, 200ms, 50us, 1000ns)");
        let (number, scale) = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]
            .iter()
            .find_map(|&(unit, scale)| t.strip_suffix(unit).map(|n| (n, scale)))
            .unwrap_or((t, 1e9));
        let v: f64 = number.trim().parse().map_err(|_| bad())?;
        if !v.is_finite() || v < 0.0 || v * scale >= u64::MAX as f64 {
            return Err(bad());
        }
        Ok(Some((v * scale).round() as u64))
    };
    let range = TimeRange {
        start: time(a)?,
        end: time(b)?,
        relative: pa || pb,
        text: s.to_string(),
    };
    if let (Some(start), Some(end)) = (range.start, range.end) {
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
            kernel_release_for(&c.scope.kernel_release, Some("a")).as_deref(),
            Some("6.1.192-prjc-pds")
        );
        assert_eq!(
            kernel_release_for(&c.scope.kernel_release, Some("b")).as_deref(),
            Some("6.1.192-prjc-bmq")
        );
        assert_eq!(
            kernel_release_for(&c.scope.kernel_release, None).as_deref(),
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
        let range = |s: &str| {
            let t = parse_time_range(s).unwrap();
            (t.start, t.end, t.relative)
        };
        assert_eq!(
            range("19.5,20.25"),
            (Some(19_500_000_000), Some(20_250_000_000), false)
        );
        assert_eq!(range("1.5,"), (Some(1_500_000_000), None, false));
        assert_eq!(
            range("+0.5,+1.5"),
            (Some(500_000_000), Some(1_500_000_000), true)
        );
        assert_eq!(range("+200ms,"), (Some(200_000_000), None, true));
        assert_eq!(
            range("81.5s,82000ms"),
            (Some(81_500_000_000), Some(82_000_000_000), false)
        );
        assert_eq!(range("10us,20000ns"), (Some(10_000), Some(20_000), false));
        assert!(parse_time_range("+1,2").is_err());
        assert!(parse_time_range("1h,2").is_err());
        assert!(parse_time_range("2,1").is_err());
        assert!(parse_time_range("2").is_err());
    }
}
