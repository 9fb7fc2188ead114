//! `schedtrace tui`'s arguments: the runs (as for `compare`), the analysis options of
//! `analyze`, and what the terminal UI opens on.

use super::options::{AnalysisOptions, Grouping};
use super::parse_run_spec;
use clap::Parser;

pub const LONG_ABOUT: &str = "Opens the runs in a terminal UI: one RUN opens on the Overview, two or more on \
                      Compare. RUN has the grammar of `compare` (`[LABEL=]FILE[,FILE...]`, traces of any \
                      format or `analyze --json` reports); every trace gets the analysis of `analyze` with \
                      the options below. Views: 1 overview, 2 tasks, 3 task detail, 4 timeline, 5 wakeup \
                      preemptions, 6 fairness, 7 placement, 8 compare, 9 quality; `?` lists every key.\n\n\
                      --print draws one frame as plain text after --keys (vim notation: `2/mi-work<Enter>`, \
                      `<Esc>`, `<Tab>`, `<C-d>`, `<Space>`, `<lt>` for `<`) and exits.";

pub const AFTER_HELP: &str = "Examples:\n  schedtrace tui trace.dat\n  \
                      schedtrace tui cfs=cfs.dat eevdf=eevdf.dat pds=pds1.dat,pds2.dat --base eevdf\n  \
                      schedtrace tui trace.dat --view tasks --sort lat.p99 --filter 'lat.p99>5ms'\n  \
                      schedtrace tui --print --size 160x50 --keys '2/kworker<Enter>' trace.dat";

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
