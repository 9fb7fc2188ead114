//! The analysis options that apply to every trace of `compare` and `export`, declared once and
//! flattened into both commands.

use super::{analysis_config, parse_time_range, TimeRange};
use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct RunAnalysis {
    /// Analyse every trace over this time range only: `START,END` in seconds of the trace clock,
    /// or `+START,+END` from each trace's first event (runs start at different times); export's
    /// interval tables keep the whole intervals that overlap it
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
}

impl RunAnalysis {
    /// The analysis of every trace.
    pub fn config(&self) -> Result<analysis::Config, String> {
        analysis_config(
            self.time.clone(),
            self.topology.as_deref(),
            self.fair_set.as_deref(),
            None,
        )
    }

    /// The options in words, for a comparison's header.
    pub fn described(&self) -> Vec<String> {
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
        said
    }
}
