//! The analysis options that apply to every trace of `compare` and `export`, declared once and
//! flattened into both commands, and the inputs of their runs with those options.

use super::options::config;
use super::values::{parse_time_range, TimeRange};
use clap::Args;
use std::path::PathBuf;

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

    /// Which CPUs the tasks whose name matches REGEX may use (repeatable; the first match wins),
    /// e.g. `'mi-.*=1'`: idle-while-runnable then counts their waits only on those CPUs. A
    /// recording of `schedtrace record` carries every task's own and comes first; without
    /// either, affinity is unknown and the report names the tasks that look pinned
    #[arg(long, value_name = "REGEX=CPULIST")]
    pub affinity: Vec<String>,

    /// Kernel release to assume for traces that record none: `LABEL=RELEASE` for one run's
    /// traces, or `RELEASE` for all (repeatable)
    #[arg(long, value_name = "[LABEL=]RELEASE")]
    pub kernel_release: Vec<String>,
}

impl RunAnalysis {
    /// The analysis of every trace.
    pub fn config(&self) -> Result<analysis::Config, String> {
        config(
            self.time.as_ref(),
            self.topology.as_deref(),
            self.fair_set.as_deref(),
            None,
            &self.affinity,
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
        for a in &self.affinity {
            said.push(format!("--affinity {a}"));
        }
        for k in &self.kernel_release {
            said.push(format!("--kernel-release {k}"));
        }
        said
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{Cli, Command};
    use clap::Parser;

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
}
