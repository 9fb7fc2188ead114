//! Shaping a report for the user: filter tasks by pid or name, group them (by pid,
//! process or folded name), sort and keep the top N (`--sort`, `--top`, `-p`, `--comm`,
//! `--group`). Grouped rows merge counts and the exact samples, so their percentiles
//! stay exact (when the samples are at hand, i.e. not for a report read from JSON).

use crate::report::{Report, TaskRow};
use regex::Regex;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::str::FromStr;

/// `--sort`: numbers sort largest first, pid and comm ascending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortKey {
    #[default]
    Runtime,
    WakeupMax,
    WakeupP99,
    WakeupMean,
    /// Total sched delay.
    SchedDelay,
    SchedDelayMax,
    Switches,
    Migrations,
    Pid,
    Comm,
}

impl SortKey {
    /// Every key with its command-line name and what it orders by.
    pub const KEYS: &'static [(&'static str, SortKey, &'static str)] = &[
        (
            "runtime",
            SortKey::Runtime,
            "Total time on CPU (descending)",
        ),
        (
            "wakeup-max",
            SortKey::WakeupMax,
            "Largest wakeup latency (descending)",
        ),
        (
            "wakeup-p99",
            SortKey::WakeupP99,
            "99th percentile of wakeup latency (descending)",
        ),
        (
            "wakeup-mean",
            SortKey::WakeupMean,
            "Mean wakeup latency (descending)",
        ),
        (
            "sched-delay",
            SortKey::SchedDelay,
            "Total sched delay, all waits runnable -> running (descending)",
        ),
        (
            "sched-delay-max",
            SortKey::SchedDelayMax,
            "Largest sched delay, like perf sched latency's max delay (descending)",
        ),
        (
            "switches",
            SortKey::Switches,
            "Context switches, voluntary + involuntary (descending)",
        ),
        ("migrations", SortKey::Migrations, "Migrations (descending)"),
        ("pid", SortKey::Pid, "Task id (ascending)"),
        ("comm", SortKey::Comm, "Task name (ascending)"),
    ];

    fn value(self, t: &TaskRow) -> u64 {
        match self {
            SortKey::Runtime => t.runtime_ns,
            SortKey::WakeupMax => t.wakeup_latency.max_ns,
            SortKey::WakeupP99 => t.wakeup_latency.p99_ns,
            SortKey::WakeupMean => t.wakeup_latency.mean_ns,
            SortKey::SchedDelay => t.sched_delay.sum_ns,
            SortKey::SchedDelayMax => t.sched_delay.max_ns,
            SortKey::Switches => t.switches.voluntary + t.switches.involuntary,
            SortKey::Migrations => t.migrations,
            SortKey::Pid | SortKey::Comm => 0,
        }
    }

    fn compare(self, a: &TaskRow, b: &TaskRow) -> Ordering {
        let primary = match self {
            SortKey::Pid => a.pid.cmp(&b.pid),
            SortKey::Comm => a.comm.cmp(&b.comm),
            _ => self.value(b).cmp(&self.value(a)),
        };
        primary.then(a.pid.cmp(&b.pid)).then(a.comm.cmp(&b.comm))
    }
}

impl FromStr for SortKey {
    type Err = String;
    fn from_str(s: &str) -> Result<SortKey, String> {
        SortKey::KEYS
            .iter()
            .find(|(name, _, _)| *name == s)
            .map(|&(_, key, _)| key)
            .ok_or_else(|| {
                let names: Vec<&str> = SortKey::KEYS.iter().map(|(name, _, _)| *name).collect();
                format!(
                    "unknown sort key {s:?}; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// `--group`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroupBy {
    /// One row per task (pid lifetime).
    #[default]
    Pid,
    /// One row per process: tgid where the trace has it, else the pid.
    Process,
    /// One row per name with trailing digits folded (`kworker/0:1` → `kworker/0:`).
    Name,
}

impl FromStr for GroupBy {
    type Err = String;
    fn from_str(s: &str) -> Result<GroupBy, String> {
        match s {
            "pid" => Ok(GroupBy::Pid),
            "process" => Ok(GroupBy::Process),
            "name" => Ok(GroupBy::Name),
            _ => Err(format!(
                "unknown grouping {s:?}; expected pid, process or name"
            )),
        }
    }
}

/// `--comm`: a regular expression (unanchored, so a plain word is a substring match);
/// text that is not a valid regex is matched as a plain substring.
#[derive(Debug, Clone)]
pub enum CommFilter {
    Substring(String),
    Regex(Regex),
}

impl CommFilter {
    /// A pattern with regular-expression syntax must be a valid one (`mintr[` silently
    /// matching nothing as a substring was a trap); plain text is a substring.
    pub fn parse(s: &str) -> Result<CommFilter, String> {
        if !s.contains(|c: char| "\\.+*?()|[]{}^$".contains(c)) {
            return Ok(CommFilter::Substring(s.to_string()));
        }
        Regex::new(s).map(CommFilter::Regex).map_err(|e| {
            format!(
                "{s:?} is not a valid regular expression ({}); escape the special characters \
                 to match them as text, e.g. {:?}",
                e.to_string().lines().last().unwrap_or_default().trim(),
                regex::escape(s)
            )
        })
    }

    pub fn matches(&self, comm: &str) -> bool {
        match self {
            CommFilter::Substring(s) => comm.contains(s.as_str()),
            CommFilter::Regex(re) => re.is_match(comm),
        }
    }
}

/// What rows to show and in which order.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub sort: SortKey,
    pub top: Option<usize>,
    /// `-p`: keep only these pids (empty = all); applied before grouping.
    pub pids: Vec<i32>,
    /// `--comm`: keep tasks any of whose names match; applied before grouping.
    pub comm: Option<CommFilter>,
    pub group: GroupBy,
}

/// A name with its trailing digits removed (perf's `comm:(N)` grouping).
pub fn fold_name(comm: &str) -> &str {
    let folded = comm.trim_end_matches(|c: char| c.is_ascii_digit());
    if folded.is_empty() {
        comm
    } else {
        folded
    }
}

impl Report {
    /// A copy of the report with its task rows filtered, grouped, sorted and cut.
    pub fn select(&self, sel: &Selection) -> Report {
        let kept = self.tasks.iter().filter(|t| {
            (sel.pids.is_empty() || sel.pids.contains(&t.pid))
                && sel
                    .comm
                    .as_ref()
                    .is_none_or(|f| f.matches(&t.comm) || t.comms.iter().any(|c| f.matches(c)))
        });
        // Rows by pid are sorted and cut as references: only the rows kept are copied.
        let rows: Vec<TaskRow> = match sel.group {
            GroupBy::Pid => {
                let mut refs: Vec<&TaskRow> = kept.collect();
                refs.sort_by(|a, b| sel.sort.compare(a, b));
                refs.truncate(sel.top.unwrap_or(usize::MAX));
                refs.into_iter().cloned().collect()
            }
            GroupBy::Process | GroupBy::Name => {
                let mut rows = match sel.group {
                    GroupBy::Process => group(kept, |t| t.tgid.unwrap_or(t.pid).to_string(), false),
                    _ => group(kept, |t| fold_name(&t.comm).to_string(), true),
                };
                rows.sort_by(|a, b| sel.sort.compare(a, b));
                rows.truncate(sel.top.unwrap_or(usize::MAX));
                rows
            }
        };
        self.with_tasks(rows)
    }

    /// A copy of the report with `tasks` for its rows (the report's own rows, the bulk of
    /// it, are not copied).
    fn with_tasks(&self, tasks: Vec<TaskRow>) -> Report {
        let Report {
            schema_version,
            source,
            window,
            quality,
            tasks: _,
            cpus,
            system,
            series,
            trace_span,
            records,
        } = self;
        Report {
            schema_version: *schema_version,
            source: source.clone(),
            window: *window,
            quality: quality.clone(),
            tasks,
            cpus: cpus.clone(),
            system: system.clone(),
            series: series.clone(),
            trace_span: *trace_span,
            records: records.clone(),
        }
    }
}

/// Adds member `m`'s §5–7 fields to the grouped `row`, each by its concern's merge rule.
fn merge_metrics(row: &mut TaskRow, m: &TaskRow) {
    crate::metrics::preemption::merge(&mut row.preemption, &m.preemption);
    if let Some(f) = &m.fairness {
        crate::metrics::fairness::merge(&mut row.fairness, f);
    }
    crate::metrics::placement::merge(&mut row.affinity, &m.affinity);
    crate::metrics::wait_causes::merge(&mut row.wait_causes, &m.wait_causes);
}

/// Merges rows with the same key into one row per key.
fn group<'a>(
    rows: impl Iterator<Item = &'a TaskRow>,
    key: impl Fn(&TaskRow) -> String,
    by_name: bool,
) -> Vec<TaskRow> {
    let mut groups: BTreeMap<String, Vec<&TaskRow>> = BTreeMap::new();
    for row in rows {
        groups.entry(key(row)).or_default().push(row);
    }
    groups
        .into_iter()
        .map(|(key, mut members)| {
            members.sort_by_key(|t| t.pid);
            merge(&key, &members, by_name)
        })
        .collect()
}

fn merge(key: &str, members: &[&TaskRow], by_name: bool) -> TaskRow {
    let first = members[0];
    if members.len() == 1 && !by_name {
        return first.clone();
    }
    let leader = if by_name {
        first
    } else {
        // A process row is named after its main thread when it is among the members.
        members
            .iter()
            .find(|t| Some(t.pid) == t.tgid)
            .copied()
            .unwrap_or(first)
    };
    let mut row = TaskRow {
        pid: if by_name {
            first.pid
        } else {
            leader.tgid.unwrap_or(leader.pid)
        },
        tgid: if by_name { None } else { leader.tgid },
        comm: if by_name {
            key.to_string()
        } else {
            leader.comm.clone()
        },
        group: Some(if by_name { "name" } else { "process" }.to_string()),
        // A group's allowed CPUs are its members' when they all share one known set.
        allowed_cpus: first
            .allowed_cpus
            .clone()
            .filter(|a| members.iter().all(|m| m.allowed_cpus.as_ref() == Some(a))),
        ..TaskRow::empty()
    };
    let have_samples = members.iter().all(|m| m.samples.is_some());
    let mut samples = crate::report::TaskSamples::default();
    for m in members {
        for c in &m.comms {
            if !row.comms.contains(c) {
                row.comms.push(c.clone());
            }
        }
        // Saturating: each member's times are within the window, but a group's sum of
        // several members after a corrupt far-ahead timestamp can pass u64 ns.
        row.runtime_ns = row.runtime_ns.saturating_add(m.runtime_ns);
        row.unknown_ns = row.unknown_ns.saturating_add(m.unknown_ns);
        row.sleep_ns = row.sleep_ns.saturating_add(m.sleep_ns);
        row.migrations += m.migrations;
        row.runqueue_moves += m.runqueue_moves;
        row.wakeups += m.wakeups;
        row.switches += &m.switches;
        row.switch_out += &m.switch_out;
        row.members.push(m.pid);
        merge_metrics(&mut row, m);
        match &m.samples {
            Some(s) if have_samples => samples.merge(s),
            _ => {
                row.slices = row.slices.merge_upper_bound(&m.slices);
                row.wakeup_latency = row.wakeup_latency.merge_upper_bound(&m.wakeup_latency);
                row.preemption_wait = row.preemption_wait.merge_upper_bound(&m.preemption_wait);
                row.sched_delay = row.sched_delay.merge_upper_bound(&m.sched_delay);
                let (a, b) = (&mut row.affinity, &m.affinity);
                a.wakeup_latency_local = a
                    .wakeup_latency_local
                    .merge_upper_bound(&b.wakeup_latency_local);
                a.wakeup_latency_remote = a
                    .wakeup_latency_remote
                    .merge_upper_bound(&b.wakeup_latency_remote);
                row.percentiles_exact &= members.len() == 1 && m.percentiles_exact;
                row.histograms.add(&m.histograms);
            }
        }
    }
    if have_samples {
        row.fill_waits(&mut samples);
        row.samples = Some(samples);
    }
    row
}
