//! The "o Why" block (`compare --explain`; on by default in `--format lkml`): per role
//! (and the workload) and label, one sentence a person can paste — the change of its total
//! wait against the baseline and the parts that explain it, ranked, from
//! `Comparison::explain` (`analysis::compare::explain`) — then each run's longest wait,
//! piece by piece. Times in ms with three decimals (the JSON has whole ns).

use analysis::compare::explain::model::{
    Component, ExplainedSubject, LongestMix, Occupant, WaitChange,
};
use analysis::compare::model::Comparison;
use analysis::PieceKind;

/// Ranked parts named one by one in a sentence; the rest are summed.
const PARTS_NAMED: usize = 4;

/// The block's lines (without a title): each sentence starts a line indented by two
/// spaces, each run's longest wait one indented by four; a line longer than `width` goes on
/// in lines indented by two more. Empty when the comparison has no explanation.
pub fn lines(c: &Comparison, width: Option<usize>) -> Vec<String> {
    let raw = unwrapped(c);
    match width {
        None => raw,
        Some(w) => raw.iter().flat_map(|l| super::grid::wrap(l, w)).collect(),
    }
}

fn unwrapped(c: &Comparison) -> Vec<String> {
    let Some(e) = &c.explain else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in &e.subjects {
        for ch in &s.changes {
            out.push(format!("  {}", sentence(c, s, ch)));
        }
        let missing: Vec<&str> = s
            .runs
            .iter()
            .filter(|r| r.wait_ns.is_none() && present(c, s, &r.label))
            .map(|r| r.label.as_str())
            .collect();
        if !missing.is_empty() {
            out.push(format!(
                "  {}: waits not split in {} (a report written before schema 3)",
                subject_name(c, s, &c.base),
                missing.join(", ")
            ));
        }
        let longest: Vec<String> = s
            .runs
            .iter()
            .filter_map(|r| r.longest.as_ref().map(|l| (r.label.as_str(), l)))
            .map(|(label, l)| format!("{label} {}", mix(l)))
            .collect();
        if !longest.is_empty() && !s.changes.is_empty() {
            out.push(format!("    longest wait: {}", longest.join("; ")));
        }
    }
    out
}

/// `bmq vs cfs: nice5 (role 5) waited +2936.001 ms: +2929.000 ms behind nice0 (role 0) on
/// CPU 1 (median slice 0.750 ms, 2.800 in cfs), +7.001 ms idle`.
pub fn sentence(c: &Comparison, s: &ExplainedSubject, ch: &WaitChange) -> String {
    let mut text = format!(
        "{} vs {}: {} waited {} ms",
        ch.label,
        c.base,
        subject_name(c, s, &ch.label),
        ms(ch.change_ns)
    );
    if let Some(p) = ch.p_value {
        text.push_str(&format!(" (p {p:.3})"));
    }
    let ranked: Vec<&Component> = ch
        .components
        .iter()
        .filter(|p| !p.noise && p.change_ns != 0)
        .collect();
    let noise: Vec<&Component> = ch.components.iter().filter(|p| p.noise).collect();
    let mut parts: Vec<String> = ranked
        .iter()
        .take(PARTS_NAMED)
        .enumerate()
        .map(|(i, p)| part(c, p, i == 0))
        .collect();
    if ranked.len() > PARTS_NAMED {
        let rest: i64 = ranked[PARTS_NAMED..].iter().map(|p| p.change_ns).sum();
        parts.push(format!(
            "{} ms in {} more parts",
            ms(rest),
            ranked.len() - PARTS_NAMED
        ));
    }
    if parts.is_empty() && noise.is_empty() {
        parts.push("no part changed".to_string());
    }
    if !parts.is_empty() {
        text.push_str(": ");
        text.push_str(&parts.join(", "));
    }
    if !noise.is_empty() {
        let list: Vec<String> = noise
            .iter()
            .map(|p| {
                format!(
                    "{} (p {:.3})",
                    part(c, p, false),
                    p.p_value.unwrap_or(f64::NAN)
                )
            })
            .collect();
        text.push_str(&format!("; within the noise: {}", list.join(", ")));
    }
    text
}

/// `+2929.000 ms behind nice0 (role 0) on CPU 1`; the first part, when it is `behind`,
/// also gives the occupant's median slice in both runs.
fn part(c: &Comparison, p: &Component, first: bool) -> String {
    let what = match (p.kind, &p.occupant) {
        (PieceKind::Behind, Some(o)) => {
            let mut w = format!("behind {}", occupant(o));
            if !o.cpus.is_empty() {
                let cpus: Vec<String> = o.cpus.iter().map(u32::to_string).collect();
                let s = if cpus.len() == 1 { "" } else { "s" };
                w.push_str(&format!(" on CPU{s} {}", cpus.join(",")));
            }
            if let (true, Some(now), Some(then)) = (first, o.slice_p50_ns, o.base_slice_p50_ns) {
                w.push_str(&format!(
                    " (median slice {:.3} ms, {:.3} in {})",
                    now / 1e6,
                    then / 1e6,
                    c.base
                ));
            }
            w
        }
        (kind, _) => kind_name(kind).to_string(),
    };
    format!("{} ms {what}", ms(p.change_ns))
}

/// The occupant as the labelled run named it: `nice0 (role 0)`, or its role key alone
/// when that is its name.
fn occupant(o: &Occupant) -> String {
    if o.role == "(others)" {
        return "other tasks (past the ones each task lists)".to_string();
    }
    let comms = if o.comms.is_empty() {
        &o.base_comms
    } else {
        &o.comms
    };
    named(&o.role, comms)
}

/// Whether the subject has tasks in the run `label` (the workload: always).
fn present(c: &Comparison, s: &ExplainedSubject, label: &str) -> bool {
    s.workload
        || c.tasks
            .tasks
            .iter()
            .find(|t| t.name == s.subject)
            .is_some_and(|t| t.present_in.iter().any(|l| l == label))
}

fn subject_name(c: &Comparison, s: &ExplainedSubject, label: &str) -> String {
    if s.workload {
        return format!("the workload /{}/", s.subject);
    }
    let comms = c
        .tasks
        .tasks
        .iter()
        .find(|t| t.name == s.subject)
        .and_then(|t| t.members.iter().find(|m| m.label == label))
        .map(|m| m.comms.clone())
        .unwrap_or_default();
    named(&s.subject, &comms)
}

/// `comm (role KEY)`, or `KEY` when the one name is the key.
fn named(role: &str, comms: &[String]) -> String {
    match comms {
        [] => role.to_string(),
        [one] if one == role => role.to_string(),
        many => format!("{} (role {role})", many.join("/")),
    }
}

/// `51.447 ms: behind 51.447 (mi-work0 19.910, mi-work2 16.248, ...), idle 0.000 on CPU 1`.
fn mix(l: &LongestMix) -> String {
    let mut kinds: Vec<String> = Vec::new();
    for (name, ns) in [
        ("enqueue", l.enqueue_ns),
        ("idle", l.idle_ns),
        ("unknown", l.unknown_ns),
    ] {
        if ns > 0 {
            kinds.push(format!("{name} {:.3}", ns as f64 / 1e6));
        }
    }
    if l.behind_ns > 0 {
        let who: Vec<String> = l
            .behind
            .iter()
            .take(3)
            .map(|o| format!("{} {:.3}", o.comm, o.ns as f64 / 1e6))
            .collect();
        let more = if l.behind.len() > 3 { ", ..." } else { "" };
        kinds.insert(
            0,
            format!(
                "behind {:.3} ({}{more})",
                l.behind_ns as f64 / 1e6,
                who.join(", ")
            ),
        );
    }
    let left = if l.segments_left_out > 0 {
        format!(", {} pieces left out", l.segments_left_out)
    } else {
        String::new()
    };
    format!(
        "{:.3} ms of {}: {}{left}",
        l.len_ns as f64 / 1e6,
        l.comm,
        kinds.join(", ")
    )
}

fn kind_name(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Enqueue => "enqueue",
        PieceKind::Idle => "idle",
        PieceKind::Behind => "behind",
        PieceKind::Unknown => "unknown",
    }
}

/// Signed ms with three decimals.
fn ms(ns: i64) -> String {
    format!("{:+.3}", ns as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::compare::{compare, Options, Repeat, Run};
    use serde_json::json;

    /// A report of one task `a` whose waits were `idle` ns idle and `behind` ns behind `b`.
    fn repeat(idle: u64, behind: u64) -> Repeat {
        let stats = |sum: u64| json!({"count": 1, "sum_ns": sum, "p50_ns": 2_000_000});
        let task = |pid: i64, comm: &str, wait: u64, causes: serde_json::Value| {
            json!({"pid": pid, "comm": comm, "runtime_ns": 1000, "slices": stats(1000),
                   "sched_delay": stats(wait), "wait_causes": causes})
        };
        let causes = json!({"enqueue_ns": 0, "idle_ns": idle, "behind_ns": behind, "unknown_ns": 0,
            "behind": [{"pid": 2, "comm": "b", "ns": behind, "count": 1}],
            "ended_by": {"wakeup_preemption": 0, "occupant_blocked": 0, "occupant_preempted": 0,
                         "occupant_exited": 0, "idle": 0, "pulled": 0, "unknown": 0}});
        let none = json!({"enqueue_ns": 0, "idle_ns": 0, "behind_ns": 0, "unknown_ns": 0,
            "behind": [], "ended_by": causes["ended_by"].clone()});
        Repeat {
            path: "r.json".into(),
            report: json!({"schema_version": 3, "window": {"start_ns": 0, "end_ns": 1_000_000_000},
                "system": {"wait_causes": {}},
                "tasks": [task(1, "a", idle + behind, causes), task(2, "b", 0, none)]}),
            from_json_report: true,
            samples: None,
        }
    }

    /// The sentence of a role whose wait behind `b` grew beyond the noise while its idle
    /// part moved within it: ranked part first, with the occupant's median slice, then the
    /// noise, each with its p.
    #[test]
    fn a_sentence_ranks_parts_and_names_the_noise() {
        let runs = vec![
            Run {
                label: "old".into(),
                repeats: vec![repeat(1_000_000, 10_000_000), repeat(3_000_000, 10_100_000)],
            },
            Run {
                label: "new".into(),
                repeats: vec![repeat(1_100_000, 20_000_000), repeat(2_800_000, 20_300_000)],
            },
        ];
        let c = compare(&runs, &Options::default()).unwrap();
        let e = c.explain.as_ref().unwrap();
        let s = e.subjects.iter().find(|s| s.subject == "a").unwrap();
        let ch = &s.changes[0];
        let p_total = ch.p_value.unwrap();
        let p_behind = ch.components[0].p_value.unwrap();
        let p_idle = ch.components[1].p_value.unwrap();
        assert_eq!(
            sentence(&c, s, ch),
            format!(
                "new vs old: a waited +10.050 ms (p {p_total:.3}): +10.100 ms behind b \
                 (median slice 2.000 ms, 2.000 in old); within the noise: -0.050 ms idle \
                 (p {p_idle:.3})"
            )
        );
        assert!(p_behind < 0.05 && p_idle >= 0.05);
    }
}
