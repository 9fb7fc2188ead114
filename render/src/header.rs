//! The run header: file, format and kernel, window, events, losses, the quality ledger in one
//! line, and a warning when so much task time is unknown that totals are lower bounds.

use crate::{task_label, TextOptions};
use analysis::columns::{Unit, Value};
use analysis::{Report, TaskRow};
use std::fmt::Write;

fn ms(ns: u64) -> String {
    Unit::NsAsMs.format(Value::Int(ns))
}

fn secs(ns: u64) -> String {
    Unit::Timestamp.format(Value::Int(ns))
}

/// The scheduler as the header names it; a run a model predicted (`schedtrace replay --as`)
/// says so, as `compare` and the TUI do.
fn scheduler(s: &analysis::report::Source) -> String {
    let name = if s.scheduler_name == s.scheduler || s.scheduler_name == "unknown" {
        s.scheduler.clone()
    } else {
        format!("{}, {}", s.scheduler_name, s.scheduler)
    };
    match s.kernel_release.as_deref() {
        Some(k) if analysis::is_predicted(k) => {
            format!("{name}; predicted by schedtrace replay, not traced")
        }
        _ => name,
    }
}

pub(crate) fn render(r: &Report, opts: &TextOptions, out: &mut String) {
    let s = &r.source;
    let q = &r.quality;
    let _ = writeln!(out, "file:     {}", s.path);
    let _ = writeln!(
        out,
        "format:   {} {}, kernel {} ({}), {} CPUs, clock {}",
        s.format.as_deref().unwrap_or("?"),
        s.format_version,
        s.kernel_release.as_deref().unwrap_or("unknown"),
        scheduler(s),
        s.cpus.map_or("?".to_string(), |c| c.to_string()),
        s.clock.as_deref().unwrap_or("unknown"),
    );
    let _ = writeln!(
        out,
        "window:   {} s .. {} s ({} ms)",
        secs(r.window.start_ns),
        secs(r.window.end_ns),
        ms(r.window.len_ns())
    );
    recording(r, out);
    let total: u64 = q.events.values().sum();
    let kinds: Vec<String> = q.events.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "events:   {total} ({})", kinds.join(", "));
    lost(r, out);
    let rejected: u64 = q.rejected.values().sum();
    let bugs = q.context_switch_bugs_total();
    let _ = writeln!(
        out,
        "quality:  out of order {}, rejected {rejected}, context switch bugs {bugs}, unknown {} ms",
        q.out_of_order,
        ms(q.unknown_ns)
    );
    damage(r, out);
    let _ = writeln!(
        out,
        "latency:  wakeup latency timed from {}; percentiles {}",
        q.wakeup_event, q.percentile_method
    );
    worst_wait(&r.system.worst_wait, out);
    unknown_warning(r, opts, out);
    out.push('\n');
}

/// What `schedtrace record` kept beside the trace: the recorder, HZ, the scheduler's feature
/// flags (a line each; absent for a trace recorded otherwise).
fn recording(r: &Report, out: &mut String) {
    let Some(rec) = &r.source.recording else {
        return;
    };
    let _ = writeln!(
        out,
        "recorded: by schedtrace record with {}, sidecar {} ({} tasks sampled every {} ms){}",
        rec.recorder,
        rec.sidecar,
        rec.tasks_sampled,
        ms(rec.sample_interval_ns),
        match rec.missing_events.as_slice() {
            [] => String::new(),
            m => format!("; not in this kernel: {}", m.join(", ")),
        }
    );
    let _ = writeln!(
        out,
        "kernel:   HZ {} ({})",
        rec.hz.map_or("unknown".to_string(), |h| h.to_string()),
        rec.hz_source
    );
    let _ = match &rec.sched_features {
        Some(f) => writeln!(out, "features: {}", f.join(" ")),
        None => writeln!(out, "features: not recorded: {}", rec.sched_features_source),
    };
    if !rec.tunables.is_empty() {
        // By file name: sysctl `kernel.sched_*` and debugfs `sched/*` names do not collide.
        let named: Vec<String> = rec
            .tunables
            .iter()
            .map(|(path, v)| format!("{}={v}", path.rsplit('/').next().unwrap_or(path)))
            .collect();
        let _ = writeln!(out, "tunables: {}", named.join(" "));
    }
}

/// Damaged input stepped over and suspect time jumps (issue #11): said where the ledger is.
fn damage(r: &Report, out: &mut String) {
    let q = &r.quality;
    if !q.skipped.is_empty() {
        let bytes: u64 = q.skipped.iter().map(|d| d.bytes).sum();
        let _ = writeln!(
            out,
            "skipped:  {} damaged stretches, {bytes} bytes (tasks on their CPUs unknown from there; --strict stops instead)",
            q.skipped.len()
        );
        for d in q.skipped.iter().take(5) {
            let cpu = d.cpu.map_or("CPU ?".to_string(), |c| format!("CPU {c}"));
            let _ = writeln!(
                out,
                "          {cpu} at offset {} (0x{:x}), {} bytes: {}",
                d.offset, d.offset, d.bytes, d.reason
            );
        }
    }
    for j in &q.time_jumps {
        let _ = writeln!(
            out,
            "WARNING:  time jumps by {:.3} s on CPU {} (from {:.6} s to {:.6} s): a corrupt timestamp? \
             Time after it counts as if it had passed.",
            (j.to_ns - j.from_ns) as f64 / 1e9,
            j.cpu,
            j.from_ns as f64 / 1e9,
            j.to_ns as f64 / 1e9,
        );
    }
}

/// `worst wait: nice5 (pid 312) waited 3.003 s (49.8 % of the window) from 115.39 to
/// 118.39 s (wakeup latency)`, then the other tasks starved past the threshold.
fn worst_wait(w: &analysis::worst_wait::WorstWait, out: &mut String) {
    let Some(longest) = &w.longest else {
        return;
    };
    let (len, pct, start, end) = longest.in_seconds();
    let _ = writeln!(
        out,
        "worst wait: {} (pid {}) waited {len:.3} s ({pct:.1} % of the window) from {start:.2} to {end:.2} s ({})",
        longest.comm, longest.pid, longest.kind
    );
    let others: Vec<String> = w
        .starved
        .iter()
        .filter(|s| s.pid != longest.pid)
        .map(|s| format!("{} (pid {}) {:.3} s", s.comm, s.pid, s.len_ns as f64 / 1e9))
        .collect();
    if !others.is_empty() {
        let _ = writeln!(
            out,
            "starved:  also waited >= {} ms: {}",
            w.threshold_ns / 1_000_000,
            others.join(", ")
        );
    }
}

fn lost(r: &Report, out: &mut String) {
    let q = &r.quality;
    if q.lost_events.is_empty() {
        let _ = writeln!(out, "lost:     none");
        return;
    }
    let (lost, unknown_size) = q.lost_events_total();
    let mut cpus: Vec<u32> = q.lost_events.iter().map(|l| l.cpu).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let list: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
    let _ = writeln!(
        out,
        "lost:     {} records on CPU {} ({lost} events{})",
        q.lost_events.len(),
        list.join(","),
        if unknown_size > 0 {
            format!(" + {unknown_size} records of unknown size")
        } else {
            String::new()
        }
    );
}

fn unknown_warning(r: &Report, opts: &TextOptions, out: &mut String) {
    // Of CPU busy time (the runtime of all tasks, also when the task table is filtered).
    if r.unknown_share() <= opts.unknown_warn_ratio {
        return;
    }
    let mut worst: Vec<&TaskRow> = r.tasks.iter().filter(|t| t.unknown_ns > 0).collect();
    worst.sort_by_key(|t| std::cmp::Reverse(t.unknown_ns));
    let names: Vec<String> = worst
        .iter()
        .take(3)
        .map(|t| format!("{} {} ms", task_label(t), ms(t.unknown_ns)))
        .collect();
    let most = if names.is_empty() {
        String::new()
    } else {
        format!(" Most: {}", names.join(", "))
    };
    let _ = writeln!(
        out,
        "WARNING:  {:.1} % of task time is unknown (lost events or events missing from the trace); \
         totals are lower bounds.{most}",
        100.0 * r.unknown_share(),
    );
}
