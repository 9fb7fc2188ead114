//! Text sections of the §4–7 metrics, in the fixed-width style of [`crate::text`]:
//! wakeup preemption (with the top waker/wakee/victim triples), fairness,
//! cache affinity and placement, work conservation and runqueue depth.

use crate::report::{Report, TaskRow};
use std::fmt::Write;

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".to_string(), |x| format!("{x:.digits$}"))
}

/// Mean in us with 3 decimals, `-` without samples.
fn mean_us(s: &crate::Stats) -> String {
    opt((s.count > 0).then(|| s.mean_ns as f64 / 1e3), 3)
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |x| format!("{:.1}", 100.0 * x))
}

fn label(t: &TaskRow) -> String {
    let l = format!("{}:{}", t.comm, t.pid);
    let n = l.chars().count();
    if n > 24 {
        l.chars().skip(n - 24).collect()
    } else {
        l
    }
}

pub fn render(r: &Report, out: &mut String) {
    preemption(r, out);
    fairness(r, out);
    affinity(r, out);
    work_conservation(r, out);
}

fn preemption(r: &Report, out: &mut String) {
    let p = &r.system.wakeup_preemption;
    let _ = writeln!(
        out,
        "wakeup preemption: {} ({:.1}/s), {} wakeups found their CPU busy, ratio {}",
        p.count,
        p.per_sec,
        p.busy_target_wakeups,
        opt(p.ratio_busy_target, 3)
    );
    if !p.top_triples.is_empty() {
        let _ = writeln!(
            out,
            " {:>7}  {:<16} {:<16} {:<16}",
            "count", "waker", "wakee", "victim"
        );
        let _ = writeln!(out, " {}", "-".repeat(7 + 2 + 17 * 3));
        for t in &p.top_triples {
            let _ = writeln!(
                out,
                " {:>7}  {:<16} {:<16} {:<16}",
                t.count, t.waker, t.wakee, t.victim
            );
        }
    }
    out.push('\n');
}

fn fairness(r: &Report, out: &mut String) {
    let f = &r.system.fairness;
    let _ = writeln!(
        out,
        "fairness: {} tasks competing ({}), Jain {}, max |lag| {} ms; prio scale {}",
        f.tasks,
        f.competing,
        opt(f.jain, 4),
        ms(f.max_abs_lag_ns),
        f.prio_scale
    );
    let windows: Vec<String> = f
        .short_term
        .iter()
        .map(|s| {
            format!(
                "{} ms: mean {} min {} ({} windows)",
                s.window_ns / 1_000_000,
                opt(s.mean, 4),
                opt(s.min, 4),
                s.windows
            )
        })
        .collect();
    let _ = writeln!(out, "short-term Jain: {}", windows.join("; "));
    let mut rows: Vec<&TaskRow> = r.tasks.iter().filter(|t| t.fairness.is_some()).collect();
    rows.truncate(20);
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            " {:<24} {:>6} {:>12} {:>12} {:>7} {:>11} {:>7} {:>7}",
            "task:pid",
            "weight",
            "runtime ms",
            "entitled ms",
            "ratio",
            "max lag ms",
            "caused",
            "suffer"
        );
        let _ = writeln!(out, " {}", "-".repeat(24 + 7 + 13 * 2 + 8 + 12 + 16));
        for t in rows {
            let f = t.fairness.as_ref().unwrap();
            let _ = writeln!(
                out,
                " {:<24} {:>6} {:>12} {:>12} {:>7} {:>11} {:>7} {:>7}",
                label(t),
                f.weight,
                ms(f.runtime_ns as f64),
                ms(f.entitlement_ns),
                opt(f.ratio, 3),
                ms(f.max_abs_lag_ns),
                t.preemption.caused,
                t.preemption.suffered
            );
        }
    }
    out.push('\n');
}

fn affinity(r: &Report, out: &mut String) {
    let a = &r.system.affinity;
    match &r.source.topology {
        Some(t) => {
            let _ = writeln!(
                out,
                "affinity: topology from {}: {} cores, LLCs {}, nodes {}",
                t.source,
                t.cores.len(),
                t.llcs.join(" | "),
                if t.nodes.is_empty() {
                    "-".to_string()
                } else {
                    t.nodes.join(" | ")
                }
            );
        }
        None => {
            let _ = writeln!(
                out,
                "affinity: no topology (trace has none; see --topology): CPU-level placement only"
            );
        }
    }
    let m = &a.migrations_by_class;
    let _ = writeln!(
        out,
        "migrations: same core {}, same LLC {}, same node {}, remote node {}, unknown {}; cross-LLC share {} %",
        m.same_core, m.same_llc, m.same_node, m.remote_node, m.unknown, pct(a.cross_llc_share)
    );
    let _ = writeln!(
        out,
        "wakeups: local {} remote {}; warm restarts {} %",
        a.wakeups_local,
        a.wakeups_remote,
        pct(a.warm_restart_share)
    );
    let mut rows: Vec<&TaskRow> = r
        .tasks
        .iter()
        .filter(|t| {
            t.affinity.wakeups_local + t.affinity.wakeups_remote > 0 || t.affinity.restarts > 0
        })
        .collect();
    rows.truncate(20);
    if !rows.is_empty() {
        let _ = writeln!(
            out,
            " {:<24} {:>7} {:>7} {:>11} {:>11} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            "task:pid",
            "local",
            "remote",
            "lat loc us",
            "lat rem us",
            "cpu",
            "llc",
            "xllc",
            "w-cpu",
            "w-llc",
            "warm%",
            "top%"
        );
        let _ = writeln!(out, " {}", "-".repeat(24 + 16 + 24 + 49));
        for t in rows {
            let a = &t.affinity;
            let p = &a.placement;
            let _ = writeln!(
                out,
                " {:<24} {:>7} {:>7} {:>11} {:>11} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
                label(t),
                a.wakeups_local,
                a.wakeups_remote,
                mean_us(&a.wakeup_latency_local),
                mean_us(&a.wakeup_latency_remote),
                p.same_cpu,
                p.same_core + p.same_llc,
                p.same_node + p.remote_node,
                p.waker_cpu,
                p.waker_llc,
                pct(a.warm_restart_share),
                pct(a.top_cpu_share)
            );
        }
    }
    out.push('\n');
}

fn work_conservation(r: &Report, out: &mut String) {
    let w = &r.system.work_conservation;
    let _ = writeln!(
        out,
        "work conservation: idle while a task waited elsewhere {} ms ({:.2} % of CPU time), within an LLC {}",
        ms(w.idle_while_runnable_ns as f64),
        100.0 * w.idle_while_runnable_share,
        w.idle_while_runnable_llc_ns
            .map_or("- (no topology)".to_string(), |n| format!("{} ms", ms(n as f64)))
    );
    for l in &w.by_llc {
        let _ = writeln!(
            out,
            "  LLC {:<12} {:>12} ms",
            l.cpus,
            ms(l.idle_while_runnable_ns as f64)
        );
    }
    let _ = writeln!(
        out,
        " {:>4} {:>10} {:>9} {:>9} {:>8}",
        "cpu", "rq mean", "rq max", "wk-pre", "jain"
    );
    let _ = writeln!(out, " {}", "-".repeat(4 + 11 + 10 * 2 + 9));
    for c in &r.cpus {
        let _ = writeln!(
            out,
            " {:>4} {:>10.3} {:>9} {:>9} {:>8}",
            c.cpu,
            c.runqueue.mean_depth,
            c.runqueue.max_depth,
            c.wakeup_preemptions,
            opt(c.fairness_jain, 4)
        );
    }
}
