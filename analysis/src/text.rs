//! The text report: a run header, a per-task table and a per-CPU table, fixed width
//! (pastes cleanly into a mail), times in ms or us with the unit in the column name.

use crate::report::{Report, TaskRow};
use std::fmt::Write;

#[derive(Debug, Clone)]
pub struct TextOptions {
    pub header: bool,
    pub tasks: bool,
    pub cpus: bool,
    /// The §4–7 sections: wakeup preemption, fairness, affinity, work conservation.
    pub metrics: bool,
    /// Warn in the header when unknown time exceeds this share of task time.
    pub unknown_warn_ratio: f64,
}

impl Default for TextOptions {
    fn default() -> TextOptions {
        TextOptions {
            header: true,
            tasks: true,
            cpus: true,
            metrics: true,
            unknown_warn_ratio: 0.01,
        }
    }
}

const TASK_WIDTH: usize = 24;

fn ms(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

fn us(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e3)
}

fn secs(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// The `task:pid` cell; a grouped row shows how many tasks it merged.
fn task_label(t: &TaskRow) -> String {
    let label = match t.group.as_deref() {
        Some("name") => format!("{}:({})", t.comm, t.members.len()),
        Some(_) => format!("{}:{}({})", t.comm, t.pid, t.members.len()),
        None => format!("{}:{}", t.comm, t.pid),
    };
    if label.chars().count() > TASK_WIDTH {
        // Keep the pid end, which identifies the row.
        let skip = label.chars().count() - TASK_WIDTH;
        label.chars().skip(skip).collect()
    } else {
        label
    }
}

pub fn render(report: &Report, opts: &TextOptions) -> String {
    let mut out = String::new();
    if opts.header {
        header(report, opts, &mut out);
    }
    if opts.tasks {
        tasks(report, &mut out);
    }
    if opts.cpus {
        cpus(report, &mut out);
    }
    if opts.metrics {
        out.push('\n');
        crate::text_metrics::render(report, &mut out);
    }
    out
}

fn header(r: &Report, opts: &TextOptions, out: &mut String) {
    let s = &r.source;
    let q = &r.quality;
    let _ = writeln!(out, "file:     {}", s.path);
    let _ = writeln!(
        out,
        "format:   {} {}, kernel {} ({}), {} CPUs, clock {}",
        s.format.as_deref().unwrap_or("?"),
        s.format_version,
        s.kernel_release.as_deref().unwrap_or("unknown"),
        s.scheduler,
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
    let total: u64 = q.events.values().sum();
    let kinds: Vec<String> = q.events.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(out, "events:   {total} ({})", kinds.join(", "));
    let (lost, unknown_size) = q.lost_events_total();
    if q.lost_events.is_empty() {
        let _ = writeln!(out, "lost:     none");
    } else {
        let mut cpus: Vec<u32> = q.lost_events.iter().map(|l| l.cpu).collect();
        cpus.dedup();
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
    let rejected: u64 = q.rejected.values().sum();
    let bugs = q.context_switch_bugs_total();
    let _ = writeln!(
        out,
        "quality:  out of order {}, rejected {rejected}, context switch bugs {bugs}, unknown {} ms",
        q.out_of_order,
        ms(q.unknown_ns)
    );
    let _ = writeln!(
        out,
        "latency:  wakeup latency timed from {}; percentiles {}",
        q.wakeup_event, q.percentile_method
    );
    if let Some(line) = worst_wait_line(&r.system.worst_wait) {
        let _ = writeln!(out, "{line}");
    }
    // CPU busy time is the runtime of all tasks, also when the task table is filtered.
    let runtime: u64 = r.cpus.iter().map(|c| c.busy_ns).sum();
    let known = runtime + q.unknown_ns;
    if q.unknown_ns > 0 && q.unknown_ns as f64 > opts.unknown_warn_ratio * known as f64 {
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
            100.0 * q.unknown_ns as f64 / known as f64,
        );
    }
    out.push('\n');
}

/// `worst wait: nice5 (pid 312) waited 3.003 s (49.8 % of the window) from 115.39 to
/// 118.39 s`, plus the other tasks starved past the threshold; `None` when no task waited.
pub fn worst_wait_line(w: &crate::system::WorstWait) -> Option<String> {
    let longest = w.longest.as_ref()?;
    let mut line = format!(
        "worst wait: {} (pid {}) waited {:.3} s ({:.1} % of the window) from {:.2} to {:.2} s ({})",
        longest.comm,
        longest.pid,
        longest.len_ns as f64 / 1e9,
        longest.share_of_window * 100.0,
        longest.start_ns as f64 / 1e9,
        longest.end_ns as f64 / 1e9,
        longest.kind
    );
    let others: Vec<String> = w
        .starved
        .iter()
        .filter(|s| s.pid != longest.pid)
        .map(|s| format!("{} (pid {}) {:.3} s", s.comm, s.pid, s.len_ns as f64 / 1e9))
        .collect();
    if !others.is_empty() {
        let _ = write!(
            line,
            "\nstarved:  also waited >= {} ms: {}",
            w.threshold_ns / 1_000_000,
            others.join(", ")
        );
    }
    Some(line)
}

fn tasks(r: &Report, out: &mut String) {
    let _ = writeln!(
        out,
        " {:<w$} {:>11} {:>7} {:>7} {:>7} {:>10} {:>10} {:>10} {:>17} {:>10} {:>10} {:>6}",
        "task:pid",
        "runtime ms",
        "vol",
        "invol",
        "wakeups",
        "lat avg us",
        "lat p99 us",
        "lat max us",
        "lat max at s",
        "dly avg us",
        "dly max us",
        "migr",
        w = TASK_WIDTH
    );
    let rule = "-".repeat(TASK_WIDTH + 1 + 12 + 8 * 3 + 11 * 3 + 18 + 11 * 2 + 7);
    let _ = writeln!(out, " {rule}");
    for t in &r.tasks {
        let lat = &t.wakeup_latency;
        let _ = writeln!(
            out,
            " {:<w$} {:>11} {:>7} {:>7} {:>7} {:>10} {:>10} {:>10} {:>17} {:>10} {:>10} {:>6}",
            task_label(t),
            ms(t.runtime_ns),
            t.switches.voluntary,
            t.switches.involuntary,
            t.wakeups,
            us(lat.mean_ns),
            us(lat.p99_ns),
            us(lat.max_ns),
            if lat.count > 0 {
                secs(lat.max_at_ns)
            } else {
                "-".to_string()
            },
            us(t.sched_delay.mean_ns),
            us(t.sched_delay.max_ns),
            t.migrations,
            w = TASK_WIDTH
        );
    }
    out.push('\n');
}

fn cpus(r: &Report, out: &mut String) {
    let _ = writeln!(
        out,
        " {:>4} {:>12} {:>12} {:>12} {:>7} {:>9} {:>11} {:>5}",
        "cpu", "busy ms", "idle ms", "unknown ms", "util %", "switches", "switches/s", "bugs"
    );
    let _ = writeln!(out, " {}", "-".repeat(4 + 13 * 3 + 8 + 10 + 12 + 6));
    for c in &r.cpus {
        let _ = writeln!(
            out,
            " {:>4} {:>12} {:>12} {:>12} {:>7.2} {:>9} {:>11.1} {:>5}",
            c.cpu,
            ms(c.busy_ns),
            ms(c.idle_ns),
            ms(c.unknown_ns),
            100.0 * c.utilization,
            c.switches,
            c.switches_per_sec,
            c.context_switch_bugs
        );
    }
}
