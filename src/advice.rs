//! Warnings for answers that came out empty or silently narrower than asked: a `--time`
//! outside the trace, a `-p` pid or `-C` CPU the trace does not have, a `--comm` that matches
//! nothing, a topology of another machine, PDS/BMQ priorities without `--kernel-release`,
//! `--group process` on a trace without tgids. Each names what is wrong and what would work;
//! the report is still printed (exit 0), the warnings go to stderr.

use crate::args::{AnalyzeArgs, Grouping};
use analysis::Report;

/// The warnings for `report` (the whole analysis) and `shown` (after the filters).
pub fn warnings(a: &AnalyzeArgs, report: &Report, shown: &Report) -> Vec<String> {
    let span = report.trace_span;
    let mut out = Vec::new();
    let events = &report.quality.events;
    if !events
        .keys()
        .any(|k| k.contains("sched_switch") || k.contains("sched_wak"))
    {
        let list: Vec<String> = events
            .iter()
            .take(5)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        out.push(format!(
            "no scheduler events in the trace (it has: {}): record them with \
             `perf sched record -- CMD` or `trace-cmd record -e sched -- CMD`",
            list.join(", ")
        ));
    }
    let secs = |ns: u64| format!("{:.6}", ns as f64 / 1e9);
    if let (Some(time), Some((first, last))) = (&a.analysis.time, span) {
        let (start, end) = a.analysis_window(first);
        if start > last || end <= first {
            out.push(format!(
                "--time {} is outside the trace, which runs from {} s to {} s of the trace clock: \
                 give times inside it, or relative to its start with +, e.g. --time +0.5,+1.5",
                time.text,
                secs(first),
                secs(last)
            ));
        }
    }
    for pid in &a.pids {
        if !report.tasks.iter().any(|t| t.pid == *pid) {
            out.push(format!(
                "-p {pid}: no task with that pid in the trace ({} task{}; the report without -p lists them)",
                report.tasks.len(),
                if report.tasks.len() == 1 { "" } else { "s" }
            ));
        }
    }
    if let Some(cpus) = &a.analysis.cpus {
        let known = report.source.cpus.unwrap_or(report.cpus.len() as u32);
        let missing: Vec<String> = cpus
            .0
            .iter()
            .filter(|&&c| c >= known)
            .map(u32::to_string)
            .collect();
        if !missing.is_empty() && known > 0 {
            let has = match known {
                1 => "CPU 0".to_string(),
                n => format!("CPUs 0-{}", n - 1),
            };
            out.push(format!(
                "-C: the trace has {has}, not {}",
                missing.join(",")
            ));
        }
    }
    if let Some(comm) = &a.comm {
        if shown.tasks.is_empty() && !report.tasks.is_empty() {
            let mut names: Vec<&str> = report.tasks.iter().map(|t| t.comm.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            let more = if names.len() > 8 { ", ..." } else { "" };
            names.truncate(8);
            out.push(format!(
                "--comm {comm:?} matches no task name; names in the trace: {}{more}",
                names.join(", ")
            ));
        }
    }
    if let (Some(topo), Some(cpus)) = (&report.source.topology, report.source.cpus) {
        let described = topo
            .cores
            .iter()
            .filter_map(|l| cpulist_max(l))
            .max()
            .map_or(0, |m| m + 1);
        if described != cpus && described > 0 {
            out.push(format!(
                "the topology ({}) describes {described} CPUs, the trace has {cpus}: it is of \
                 another machine? Placement classes of CPUs it does not describe are unknown",
                topo.source
            ));
        }
    }
    let f = &report.system.fairness;
    if f.tasks == 0
        && a.analysis.fair_set.is_none()
        && report.source.kernel_release.is_none()
        && !report.tasks.is_empty()
    {
        out.push(
            "no task competes in the fairness metrics: their priorities are not mainline nice \
             levels (prio 100..139). A PDS or BMQ kernel prints others: give its release, e.g. \
             --kernel-release 6.1.0-pds"
                .to_string(),
        );
    }
    if a.group == Grouping::Process
        && report.tasks.iter().all(|t| t.tgid.is_none())
        && !report.tasks.is_empty()
    {
        out.push(
            "--group process: the trace records no tgids, so rows stay one per thread; record \
             with trace-cmd -e sched... and the TGID option (ftrace: echo 1 > options/record-tgid), \
             or use --group name"
                .to_string(),
        );
    }
    if let Some(cut) = report.series.as_ref().and_then(|s| s.cut_at_ns) {
        out.push(format!(
            "--series: the window holds more than {} windows of this length; the series stops at \
             {} s (cut_at_ns): give a longer --series for the whole window",
            analysis::series::MAX_WINDOWS,
            secs(cut)
        ));
    }
    out
}

/// The largest CPU of a cpulist like `0-3,6`.
fn cpulist_max(list: &str) -> Option<u32> {
    list.split(',')
        .filter_map(|part| part.rsplit('-').next()?.trim().parse().ok())
        .max()
}
