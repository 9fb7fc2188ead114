//! The analysis options of `analyze` and `tui` (CPUs, time window, topology, fair set,
//! kernel release, timeline memory), and the one function that turns options into an
//! [`analysis::Config`], used by these and by `compare` / `export` ([`super::runs`]).

use super::values::{parse_time_range, TimeRange};
use clap::ValueEnum;

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

    /// Which CPUs the tasks whose name matches REGEX may use (repeatable; the first match wins),
    /// e.g. `'mi-.*=1'`: idle-while-runnable then counts their waits only on those CPUs. A
    /// recording of `schedtrace record` carries every task's own and comes first; without
    /// either, affinity is unknown and the report names the tasks that look pinned
    #[arg(long, value_name = "REGEX=CPULIST")]
    pub affinity: Vec<String>,

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
    /// The analysis of every input with these options ([`config`]).
    pub fn analysis_config(&self) -> Result<analysis::Config, String> {
        config(
            self.time.as_ref(),
            self.topology.as_deref(),
            self.fair_set.as_deref(),
            self.cpus.clone().map(|list| list.0),
            &self.affinity,
        )
    }

    /// `--timeline-mem`.
    pub fn timeline_options(&self) -> analysis::TimelineOptions {
        analysis::TimelineOptions {
            mem_limit_bytes: self.timeline_mem.saturating_mul(1 << 20),
        }
    }
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

/// What the analysis computes, for `analyze`, `tui` and every trace of `compare` and `export`: the time
/// window and CPUs restrict the timelines themselves; the topology and fair set feed the
/// §6–7 metrics.
pub(super) fn config(
    time: Option<&TimeRange>,
    topology: Option<&str>,
    fair_set: Option<&str>,
    cpus: Option<Vec<u32>>,
    affinity: &[String],
) -> Result<analysis::Config, String> {
    let affinity = match affinity {
        [] => None,
        rules => Some(std::sync::Arc::new(
            analysis::affinity::Affinity::from_rules(rules)?,
        )),
    };
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
        affinity,
        ..Default::default()
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
}
