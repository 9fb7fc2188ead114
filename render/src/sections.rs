//! The report's tables and sections below the header: tasks, CPUs, wakeup preemption (with
//! the top waker/wakee/victim triples), fairness, cache affinity and placement, work
//! conservation with runqueue depth.

use crate::table::{Label, Table};
use crate::task_label;
use analysis::columns::{Unit, Value, CPU_COLUMNS, TASK_COLUMNS};
use analysis::{Report, TaskRow};
use std::fmt::Write;

/// Tasks shown in the fairness and affinity tables at most.
const SECTION_ROWS: usize = 20;

fn task_table(keys: &[&str]) -> Table<TaskRow> {
    let label = Label {
        header: "task:pid",
        width: crate::TASK_WIDTH,
        text: task_label,
    };
    Table::of(TASK_COLUMNS, Some(label), keys)
}

fn ms(ns: f64) -> String {
    Unit::NsAsMs.format(Value::Real(ns))
}

fn opt(v: Option<f64>, decimals: u8) -> String {
    Unit::Number { decimals }.format(v.into())
}

fn pct(v: Option<f64>) -> String {
    Unit::Percent { decimals: 1 }.format(v.into())
}

pub(crate) fn tasks(r: &Report, out: &mut String) {
    let mut table = task_table(&[
        "runtime_ns",
        "switches.voluntary",
        "switches.involuntary",
        "wakeups",
        "wakeup_latency.mean_ns",
        "wakeup_latency.p99_ns",
        "wakeup_latency.max_ns",
        "wakeup_latency.max_at_ns",
        "sched_delay.mean_ns",
        "sched_delay.max_ns",
        "migrations",
    ]);
    table.rule_extra = 1;
    table.render(&r.tasks, out);
    out.push('\n');
}

pub(crate) fn cpus(r: &Report, out: &mut String) {
    let keys = [
        "cpu",
        "busy_ns",
        "idle_ns",
        "unknown_ns",
        "utilization",
        "switches",
        "switches_per_sec",
        "context_switch_bugs",
    ];
    Table::of(CPU_COLUMNS, None, &keys).render(&r.cpus, out);
    // power:cpu_idle residency (docs/metrics.md §3b), only where the trace has the event.
    for c in r.cpus.iter().filter(|c| !c.idle_states.is_empty()) {
        let states: Vec<String> = c
            .idle_states
            .iter()
            .map(|s| {
                format!(
                    "state {} {} ms ({} entries)",
                    s.state,
                    ms(s.ns as f64),
                    s.count
                )
            })
            .collect();
        let _ = writeln!(out, "idle states, cpu {}: {}", c.cpu, states.join(", "));
    }
}

pub(crate) fn preemption(r: &Report, out: &mut String) {
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

pub(crate) fn fairness(r: &Report, out: &mut String) {
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
    let rows: Vec<&TaskRow> = r
        .tasks
        .iter()
        .filter(|t| t.fairness.is_some())
        .take(SECTION_ROWS)
        .collect();
    if !rows.is_empty() {
        task_table(&[
            "fairness.weight",
            "fairness.runtime_ns",
            "fairness.entitlement_ns",
            "fairness.ratio",
            "fairness.max_abs_lag_ns",
            "preemption.caused",
            "preemption.suffered",
        ])
        .render(rows, out);
    }
    out.push('\n');
}

pub(crate) fn affinity(r: &Report, out: &mut String) {
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
    let rows: Vec<&TaskRow> = r
        .tasks
        .iter()
        .filter(|t| {
            t.affinity.wakeups_local + t.affinity.wakeups_remote > 0 || t.affinity.restarts > 0
        })
        .take(SECTION_ROWS)
        .collect();
    if !rows.is_empty() {
        task_table(&[
            "affinity.wakeups_local",
            "affinity.wakeups_remote",
            "affinity.wakeup_latency_local.mean_ns",
            "affinity.wakeup_latency_remote.mean_ns",
            "affinity.placement.same_cpu",
            "affinity.placement.same_llc",
            "affinity.placement.cross_llc",
            "affinity.placement.waker_cpu",
            "affinity.placement.waker_llc",
            "affinity.warm_restart_share",
            "affinity.top_cpu_share",
        ])
        .render(rows, out);
    }
    out.push('\n');
}

/// Which allowed CPUs idle-while-runnable used; when unknown, the tasks that look pinned and
/// the flag that settles it (docs/guide.md, "Work conservation").
fn affinity_use(a: &analysis::report::AffinityUse, out: &mut String) {
    if a.source != "unknown" {
        let _ = writeln!(
            out,
            "  allowed CPUs: {} ({} tasks known; the others counted on every idle CPU)",
            a.source, a.tasks_known
        );
        return;
    }
    let _ = writeln!(
        out,
        "  allowed CPUs: unknown (every waiting task counted on every idle CPU; `schedtrace record` keeps them)"
    );
    if a.looks_pinned.is_empty() {
        return;
    }
    let named: Vec<String> = a
        .looks_pinned
        .iter()
        .map(|p| format!("{} ({}) on CPU {}", p.comm, p.pid, p.cpu))
        .collect();
    let _ = writeln!(
        out,
        "  look pinned (every slice on one CPU since some time, waiting while CPUs idled): {}",
        named.join(", ")
    );
    // One rule for the names that look pinned to the first one's CPU.
    let cpu = a.looks_pinned[0].cpu;
    let mut names: Vec<String> = a
        .looks_pinned
        .iter()
        .filter(|p| p.cpu == cpu)
        .map(|p| regex::escape(&p.comm))
        .collect();
    names.sort();
    names.dedup();
    let _ = writeln!(
        out,
        "  if they were, say so: --affinity '^({})$={cpu}' (repeatable, REGEX=CPULIST)",
        names.join("|")
    );
}

pub(crate) fn work_conservation(r: &Report, out: &mut String) {
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
    affinity_use(&w.affinity, out);
    let keys = [
        "cpu",
        "runqueue.mean_depth",
        "runqueue.max_depth",
        "wakeup_preemptions",
        "fairness_jain",
    ];
    Table::of(CPU_COLUMNS, None, &keys).render(&r.cpus, out);
}
