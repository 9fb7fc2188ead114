//! The end of a recording in a few lines: what was recorded, what was lost and where, where
//! the files are and what to run next. The counts are read back from the file as `analyze`
//! reads it (a file that does not read back is said so here, not at the next command).

use analysis::recording::Recording;
use std::path::Path;
use std::time::Duration;

pub(crate) fn print(trace: &Path, sidecar: &Path, r: &Recording, perf: &str, took: Duration) {
    let bytes = std::fs::metadata(trace).map(|m| m.len()).unwrap_or(0);
    for line in perf
        .lines()
        .filter(|l| l.contains("lost") || l.contains("LOST"))
    {
        eprintln!("schedtrace: perf: {}", line.trim());
    }
    let report = analysis::pipeline::analyze(trace, &Default::default());
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            eprintln!("schedtrace: warning: the trace does not read back: {e}");
            return;
        }
    };
    let q = &report.quality;
    let total: u64 = q.events.values().sum();
    let kinds: Vec<String> = q
        .events
        .iter()
        .filter(|(_, &n)| n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let mut by_cpu = std::collections::BTreeMap::<u32, (u64, u64)>::new();
    for l in &q.lost_events {
        let e = by_cpu.entry(l.cpu).or_default();
        e.0 += 1;
        e.1 += l.count.unwrap_or(0);
    }
    let lost: u64 = by_cpu.values().map(|&(_, n)| n).sum();
    let lost_cpus: Vec<String> = by_cpu
        .iter()
        .map(|(cpu, (records, n))| format!("CPU {cpu}: {n} in {records} loss records"))
        .collect();
    let tasks: std::collections::BTreeSet<i32> = r.tasks.iter().map(|t| t.pid).collect();
    eprintln!(
        "schedtrace: recorded {total} events in {:.1} s on {} CPUs ({})",
        took.as_secs_f64(),
        report.source.cpus.unwrap_or(0),
        kinds.join(", ")
    );
    match by_cpu.len() {
        0 => eprintln!("schedtrace: lost no events"),
        _ => eprintln!("schedtrace: lost {lost} events ({})", lost_cpus.join(", ")),
    }
    eprintln!(
        "schedtrace: wrote {} ({:.1} MiB) and {} ({} tasks' allowed CPUs, nice, policy, cgroup; HZ {}; sched features {})",
        trace.display(),
        bytes as f64 / (1 << 20) as f64,
        sidecar.display(),
        tasks.len(),
        r.host.hz.map_or("unknown".into(), |h| h.to_string()),
        if r.host.sched_features.is_some() { "kept" } else { "not readable" },
    );
    eprintln!("schedtrace: next: schedtrace analyze {}", trace.display());
}
