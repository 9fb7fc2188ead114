//! `compare`'s explanation of each role's change of wait (`explain`), on the real captures:
//! `mi` on CFS, EEVDF and PDS (PDS's tasks matched through aliases) and `nice` on BMQ
//! against CFS. Every total and part is recomputed here from the single-run reports' task
//! rows, and the parts add up to the change exactly.

use crate::compare_support::*;
use analysis::compare::explain::model::{Explain, ExplainedSubject};
use analysis::compare::matching::Matching;
use analysis::compare::{compare, Options};
use analysis::PieceKind;
use serde_json::Value;
use std::collections::BTreeMap;

/// The parts of the tasks `take` picks in one report, as this test reads them: kind (and
/// the occupant's role, through `role`) → ns.
fn parts(
    report: &Value,
    take: &dyn Fn(&str) -> bool,
    role: &dyn Fn(&str) -> String,
) -> BTreeMap<(String, String), i64> {
    let mut out: BTreeMap<(String, String), i64> = BTreeMap::new();
    let mut delay = 0i64;
    let mut sum = 0i64;
    for t in report["tasks"].as_array().unwrap() {
        if !take(t["comm"].as_str().unwrap()) {
            continue;
        }
        let w = &t["wait_causes"];
        delay += t["sched_delay"]["sum_ns"].as_i64().unwrap();
        for kind in ["enqueue", "idle", "unknown"] {
            let ns = w[format!("{kind}_ns")].as_i64().unwrap();
            *out.entry((kind.into(), String::new())).or_default() += ns;
            sum += ns;
        }
        for b in w["behind"].as_array().unwrap() {
            let occupant = match b["pid"].as_i64() {
                Some(_) => role(b["comm"].as_str().unwrap()),
                None => "(others)".into(),
            };
            let ns = b["ns"].as_i64().unwrap();
            *out.entry(("behind".into(), occupant)).or_default() += ns;
            sum += ns;
        }
    }
    assert_eq!(sum, delay, "the parts add up to the sched delay");
    out.retain(|_, ns| *ns != 0);
    out
}

fn kind_name(k: PieceKind) -> &'static str {
    match k {
        PieceKind::Enqueue => "enqueue",
        PieceKind::Idle => "idle",
        PieceKind::Behind => "behind",
        PieceKind::Unknown => "unknown",
    }
}

/// Every change of `s` against what `parts` gives for the base and the label.
fn check_subject(
    s: &ExplainedSubject,
    base: &BTreeMap<(String, String), i64>,
    label: &[BTreeMap<(String, String), i64>],
) {
    assert_eq!(
        s.runs[0].wait_ns,
        Some(base.values().sum()),
        "{}",
        s.subject
    );
    for (ch, mine) in s.changes.iter().zip(label) {
        let what = format!("{} {}", s.subject, ch.label);
        assert_eq!(ch.base_wait_ns, base.values().sum::<i64>(), "{what}");
        assert_eq!(ch.wait_ns, mine.values().sum::<i64>(), "{what}");
        assert_eq!(ch.change_ns, ch.wait_ns - ch.base_wait_ns, "{what}");
        let sum: i64 = ch.components.iter().map(|c| c.change_ns).sum();
        assert_eq!(sum, ch.change_ns, "{what}: the parts add up to the change");
        let mut keys: Vec<&(String, String)> = base.keys().chain(mine.keys()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(ch.components.len(), keys.len(), "{what}");
        for c in &ch.components {
            let key = (
                kind_name(c.kind).to_string(),
                c.occupant
                    .as_ref()
                    .map_or(String::new(), |o| o.role.clone()),
            );
            let (b, l) = (
                base.get(&key).copied().unwrap_or(0),
                mine.get(&key).copied().unwrap_or(0),
            );
            assert_eq!(
                (c.base_ns, c.ns, c.change_ns),
                (b, l, l - b),
                "{what} {key:?}"
            );
        }
        // One repeat a side: no p, every part ranked, by the size of its change.
        let sizes: Vec<u64> = ch
            .components
            .iter()
            .map(|c| c.change_ns.unsigned_abs())
            .collect();
        assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{what}: {sizes:?}");
        assert!(ch
            .components
            .iter()
            .enumerate()
            .all(|(i, c)| c.rank == Some(i + 1) && !c.noise));
    }
}

fn mi() -> (Explain, Vec<Value>) {
    let repeats: Vec<_> = ["cfs-6.1-vm", "eevdf-6.12-vm", "pds-6.1-vm"]
        .iter()
        .map(|k| load(&format!("{k}/mi/trace-v6.dat.xz")))
        .collect();
    let reports: Vec<Value> = repeats.iter().map(|r| r.report.clone()).collect();
    let runs = ["cfs", "eevdf", "pds"]
        .iter()
        .zip(repeats)
        .map(|(l, r)| run(l, vec![r]))
        .collect::<Vec<_>>();
    (
        compare(&runs, &mi_options()).unwrap().explain.unwrap(),
        reports,
    )
}

fn alias(comm: &str) -> String {
    MI_ALIASES
        .iter()
        .find(|(a, _)| *a == comm)
        .map_or(comm.to_string(), |(_, b)| b.to_string())
}

#[test]
fn mi_every_role_s_parts_add_up_to_its_change() {
    let (e, reports) = mi();
    let workload = regex::Regex::new("mi-|mintr|mspin").unwrap();
    let mut seen = 0;
    for s in &e.subjects {
        let take: Box<dyn Fn(&str) -> bool> = if s.workload {
            Box::new(|c: &str| workload.is_match(c))
        } else {
            let role = s.subject.clone();
            Box::new(move |c: &str| alias(c) == role)
        };
        let all: Vec<_> = reports.iter().map(|r| parts(r, &*take, &alias)).collect();
        if all[0].is_empty() {
            continue;
        }
        check_subject(s, &all[0], &all[1..]);
        seen += 1;
    }
    assert!(seen >= 5, "the four mi roles and the workload");
    // The spinner's waits on EEVDF: almost all behind the three massive_intr tasks, on CPU 1.
    let spin = e.subjects.iter().find(|s| s.subject == "mi-spin").unwrap();
    let eevdf = &spin.changes[0];
    assert_eq!(eevdf.change_ns, 2_181_581_168 - 2_234_402_624);
    let top = eevdf.components[0].occupant.as_ref().unwrap();
    assert_eq!(
        (top.role.as_str(), top.cpus.as_slice()),
        ("mi-work1", &[1u32][..])
    );
    // Behind parts carry the occupant's median slice in both runs, from its task row.
    let p50 = |r: &Value, comm: &str| {
        r["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["comm"] == comm)
            .unwrap()["slices"]["p50_ns"]
            .as_f64()
    };
    assert_eq!(top.base_slice_p50_ns, p50(&reports[0], "mi-work1"));
    assert_eq!(top.slice_p50_ns, p50(&reports[1], "mi-work1"));
    let pds = &spin.changes[1];
    let o = pds.components[0].occupant.as_ref().unwrap();
    assert_eq!(
        (o.comms.as_slice(), o.base_comms.as_slice()),
        (&["mintr0".to_string()][..], &["mi-work0".to_string()][..])
    );
    assert_eq!(o.slice_p50_ns, p50(&reports[2], "mintr0"));
    // The tail: each run's longest wait of the role is its task's, piece by piece.
    for (run, report) in spin.runs.iter().zip(&reports) {
        let l = run.longest.as_ref().unwrap();
        let row = report["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| alias(t["comm"].as_str().unwrap()) == "mi-spin")
            .unwrap();
        assert_eq!(
            l.len_ns,
            row["sched_delay"]["max_ns"].as_u64().unwrap(),
            "{}",
            run.label
        );
        assert_eq!(
            l.enqueue_ns + l.idle_ns + l.behind_ns + l.unknown_ns,
            l.len_ns,
            "{}",
            run.label
        );
    }
}

#[test]
fn nice_on_bmq_waits_behind_the_nice0_role() {
    let cfs = load("cfs-6.1-vm/nice/trace-v6.dat.xz");
    let bmq = load("bmq-6.1-vm/nice/trace-v6.dat.xz");
    let reports = [cfs.report.clone(), bmq.report.clone()];
    let opts = Options {
        matching: Matching {
            by: Matching::regex(r"nice-?n?(\d)").unwrap(),
            aliases: vec![],
        },
        workload: Some(regex::Regex::new("^nice").unwrap()),
        comm: Some(regex::Regex::new("^nice").unwrap()),
        ..Options::default()
    };
    let c = compare(&[run("cfs", vec![cfs]), run("bmq", vec![bmq])], &opts).unwrap();
    let e = c.explain.unwrap();
    let five = e.subjects.iter().find(|s| s.subject == "5").unwrap();
    let role = |c: &str| opts.matching.role(c);
    let take = |c: &str| role(c) == "5";
    check_subject(
        five,
        &parts(&reports[0], &take, &role),
        &[parts(&reports[1], &take, &role)],
    );
    let ch = &five.changes[0];
    let top = &ch.components[0];
    assert_eq!(top.occupant.as_ref().unwrap().role, "0");
    assert!(
        top.change_ns as f64 >= 0.99 * ch.change_ns as f64,
        "{} of {}",
        top.change_ns,
        ch.change_ns
    );
    // In BMQ itself, 99.96 % of nice5's wait is behind nice0.
    let bmq = &five.runs[1];
    assert!(bmq.behind_ns.unwrap() as f64 >= 0.99 * bmq.wait_ns.unwrap() as f64);
    assert_eq!(bmq.longest.as_ref().unwrap().behind[0].comm, "nice0");
}

/// PDS's two mi captures as repeats on both sides (in the other order on one): the means
/// are the same, every part's Welch p is 1, so every part is noise, unranked, and the
/// parts still add up (to a change of 0); each mean is the two sched delays' mean, rounded.
#[test]
fn repeats_on_both_sides_put_every_unmoved_part_in_the_noise() {
    let (a, b) = (
        "pds-6.1-vm/mi/trace-v6.dat.xz",
        "pds-6.1-vm/mi-repeat/trace-v6.dat.xz",
    );
    let sums: Vec<i64> = [a, b]
        .iter()
        .map(|f| {
            let r = load(f).report;
            r["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t["comm"] == "mspin")
                .map(|t| t["sched_delay"]["sum_ns"].as_i64().unwrap())
                .sum()
        })
        .collect();
    let runs = [
        run("one", vec![load(a), load(b)]),
        run("two", vec![load(b), load(a)]),
    ];
    let c = compare(&runs, &Options::default()).unwrap();
    let e = c.explain.unwrap();
    let spin = e.subjects.iter().find(|s| s.subject == "mspin").unwrap();
    let total = sums[0] + sums[1];
    assert_eq!(spin.runs[0].wait_ns, Some((total + 1).div_euclid(2)));
    let ch = &spin.changes[0];
    assert_eq!(ch.change_ns, 0);
    assert_eq!(ch.components.iter().map(|c| c.change_ns).sum::<i64>(), 0);
    assert_eq!(ch.p_value, Some(1.0));
    assert!(!ch.components.is_empty());
    for c in &ch.components {
        assert_eq!(
            (c.p_value, c.noise, c.rank),
            (Some(1.0), true, None),
            "{c:?}"
        );
    }
}
