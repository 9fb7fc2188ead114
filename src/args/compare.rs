//! `schedtrace compare`'s arguments: the runs, how tasks are matched across them, what is
//! flagged, and the layout of the output.

use super::parse_run_spec;
use super::runs::RunAnalysis;
use clap::{Parser, ValueEnum};
use std::path::PathBuf;

pub const LONG_ABOUT: &str = "Compares runs against a baseline (docs/metrics.md section 8). Each run is one trace, or \
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
                      unless asked for (`FILE,FILE` or LABEL=).";

pub const AFTER_HELP: &str = "Examples:\n  schedtrace compare cfs/trace.dat eevdf/trace.dat pds/trace.dat\n  \
                      schedtrace compare base=old1.dat,old2.dat,old3.dat new=new1.dat,new2.dat,new3.dat\n  \
                      schedtrace analyze huge.dat --json huge.json && schedtrace compare huge.json other.dat.xz\n  \
                      schedtrace compare a.dat b.data --label before --label after --base after --json cmp.json\n  \
                      schedtrace compare a.dat b.dat --sort wakeup-max --top 5 --task-metrics switches,wakeup-mean\n  \
                      schedtrace compare cfs=c.dat pds=p1.dat,p2.dat --match 'nice-?n?(\\d)' --workload nice --format lkml\n  \
                      schedtrace compare cfs=c.dat pds=p.dat --alias mspin=mi-spin --time +0.5,+2.5 --format markdown";

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
    pub sort: &'static analysis::columns::compare::Compared,

    /// Task metrics shown in the text output, one table each (default: runtime, runtime-share,
    /// weight-share, fairness, max-lag, slice-mean, wakeup-p99, preemption-wait-p99, sched-delay-max,
    /// switches, migrations; --wide adds slice-p50, slice-p99, wakeup-mean, wakeup-p50, wakeup-p90,
    /// wakeup-max, preemption-wait-mean, voluntary, involuntary, wakeups, preempting-wakeups); the JSON output always has all
    #[arg(long, value_name = "METRIC[,METRIC...]", value_delimiter = ',', value_parser = parse_task_metric)]
    pub task_metrics: Vec<&'static analysis::columns::compare::Compared>,

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
    pub scope: RunAnalysis,

    /// Welch p-values at or above this are not flagged (with two or more repeats per run)
    #[arg(long, value_name = "P", default_value_t = 0.05)]
    pub alpha: f64,

    /// Output layout: `text` (fits --width), `lkml` (norm [pct imp](CV) blocks as patch mails
    /// show them), `markdown` (GitHub / wiki tables)
    #[arg(long, value_enum, default_value_t = CompareFormat::Text)]
    pub format: CompareFormat,

    /// Explain each role's change of wait: split by what its CPU ran (enqueue, idle,
    /// behind which role, unknown), ranked, one sentence per role and run (on in `lkml`)
    #[arg(long, conflicts_with = "no_explain")]
    pub explain: bool,

    /// Leave the "o Why" block out of `--format lkml`
    #[arg(long)]
    pub no_explain: bool,

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

    /// Whether the layout shows the "Why" block.
    pub fn explained(&self) -> bool {
        self.explain || (self.format == CompareFormat::Lkml && !self.no_explain)
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

fn parse_task_metric(s: &str) -> Result<&'static analysis::columns::compare::Compared, String> {
    analysis::columns::compare::task_row(s)
}
