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
    lost(r, out);
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
    unknown_warning(r, opts, out);
    out.push('\n');
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
    let q = &r.quality;
    // CPU busy time is the runtime of all tasks, also when the task table is filtered.
    let runtime: u64 = r.cpus.iter().map(|c| c.busy_ns).sum();
    let known = runtime + q.unknown_ns;
    if q.unknown_ns == 0 || q.unknown_ns as f64 <= opts.unknown_warn_ratio * known as f64 {
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
        100.0 * q.unknown_ns as f64 / known as f64,
    );
}
