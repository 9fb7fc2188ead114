//! `schedtrace analyze`'s arguments: the trace, how the report is shaped (order, filters,
//! grouping, length), and what is written besides the text.

use super::options::{AnalysisOptions, Grouping};
use super::parse_duration;
use clap::Parser;
use std::path::PathBuf;

pub const AFTER_HELP: &str = "Examples:\n  schedtrace analyze trace.dat\n  schedtrace analyze perf.data --sort wakeup-max --top 20\n  \
                      schedtrace analyze trace.dat.xz --comm 'hackbench' --group name\n  \
                      schedtrace analyze trace.dat --time 19.5,20.5 -C 1 --json report.json\n  \
                      perf sched record -o - -- ./bench | schedtrace analyze -";

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
