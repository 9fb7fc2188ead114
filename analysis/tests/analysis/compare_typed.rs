//! The typed path of `compare` (typed reports handed over as they are, as the TUI does)
//! against the JSON path (every report turned into a `serde_json::Value` first): over the
//! fixture traces, in runs of several repeats, with and without the workload, aliases and a
//! `--comm` filter, the two comparisons are equal value by value. JSON reports (written by
//! this build, and the version-1 report of the CLI's tests) are read into typed reports
//! as the TUI reads them, and compared the same way.

use crate::compare_support::{mi_options, shared};
use analysis::compare::matching::{MatchBy, Matching};
use analysis::compare::{compare, Comparison, Options, Repeat, Run};
use analysis::pipeline::{self, Loaded};
use analysis::Report;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// The fixture traces by label: each scheduler's captures are one run's repeats.
const RUNS: &[(&str, &[&str])] = &[
    (
        "cfs",
        &[
            "cfs-6.1-vm/mi/trace-v6.dat.xz",
            "cfs-6.1-vm/nice/trace-v6.dat.xz",
            "cfs-6.1-vm/pp1/trace-v6.dat.xz",
            "cfs-6.1-vm/pp2/trace-v6.dat.xz",
        ],
    ),
    (
        "eevdf",
        &[
            "eevdf-6.12-vm/mi/trace-v6.dat.xz",
            "eevdf-6.12-vm/nice/trace-v6.dat.xz",
            "eevdf-6.12-vm/pp1/trace-v6.dat.xz",
            "eevdf-6.12-vm/pp2/trace-v6.dat.xz",
        ],
    ),
    (
        "pds",
        &[
            "pds-6.1-vm/mi/trace-v6.dat.xz",
            "pds-6.1-vm/mi-repeat/trace-v6.dat.xz",
            "pds-6.1-vm/nice/trace-v6.dat.xz",
            "pds-6.1-vm/pp1/trace-v6.dat.xz",
            "pds-6.1-vm/pp2/trace-v6.dat.xz",
        ],
    ),
    ("bmq", &["bmq-6.1-vm/nice/trace-v6.dat.xz"]),
    (
        "host",
        &[
            "eevdf-6.18-host/pipe_pinned/trace.dat",
            "eevdf-6.18-host/pipe_pinned/perf.sched.data.xz",
            "eevdf-6.18-host/hackbench/perf.sched.data.xz",
            "eevdf-6.18-host/massive_intr/perf.sched.data.xz",
            "eevdf-6.18-host/cpu_idle/trace.dat",
        ],
    ),
];

fn analysed(path: &Path) -> Report {
    match pipeline::load(path, &Default::default()) {
        Ok(Loaded::Trace(report)) => *report,
        Ok(Loaded::JsonReport(_)) => panic!("{}: a JSON report", path.display()),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// The same report twice: as the JSON path gets it (a `Value`, the samples beside it, as
/// `compare::load` keeps them) and as the typed path does (the report as it is).
fn both(path: &str, mut report: Report) -> (Repeat, Repeat<Arc<Report>>) {
    let json = Repeat {
        path: path.to_string(),
        report: serde_json::to_value(&report).unwrap(),
        from_json_report: false,
        samples: Some(report.tasks.iter().map(|t| t.samples.clone()).collect()),
    };
    assert!(report.tasks.iter().any(|t| t.samples.is_some()), "{path}");
    report.series = None;
    let typed = Repeat {
        path: path.to_string(),
        report: Arc::new(report),
        from_json_report: false,
        samples: None,
    };
    (json, typed)
}

/// A JSON report as both paths get it: parsed into a `Value`, and into a typed report as the
/// TUI reads one (no samples).
fn both_json(path: &str, text: &str) -> (Repeat, Repeat<Arc<Report>>) {
    let typed: Report = serde_json::from_str(text).unwrap();
    let json = Repeat {
        path: path.to_string(),
        // What the typed report serialises to: a report of an older schema gains the
        // fields it lacked as the typed report fills them in.
        report: serde_json::to_value(&typed).unwrap(),
        from_json_report: true,
        samples: None,
    };
    let typed = Repeat {
        path: path.to_string(),
        report: Arc::new(typed),
        from_json_report: true,
        samples: None,
    };
    (json, typed)
}

fn runs() -> (Vec<Run>, Vec<Run<Arc<Report>>>) {
    let mut json = Vec::new();
    let mut typed = Vec::new();
    for (label, paths) in RUNS {
        let (j, t): (Vec<_>, Vec<_>) = paths
            .iter()
            .map(|rel| both(rel, analysed(&shared(rel))))
            .unzip();
        json.push(Run {
            label: label.to_string(),
            repeats: j,
        });
        typed.push(Run {
            label: label.to_string(),
            repeats: t,
        });
    }
    // Reports read back from JSON: two written by this build (one of them of a trace also
    // analysed above), and the version-1 report the CLI's tests keep.
    let mut j = Vec::new();
    let mut t = Vec::new();
    for rel in [
        "pds-6.1-vm/mi/trace-v6.dat.xz",
        "cfs-6.1-vm/pp1/trace-v6.dat.xz",
    ] {
        let text = serde_json::to_string(&analysed(&shared(rel))).unwrap();
        let (a, b) = both_json(rel, &text);
        j.push(a);
        t.push(b);
    }
    let v1 =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/pipe_pinned.report-v1.json.xz");
    let Ok(Loaded::JsonReport(value)) = pipeline::load(&v1, &Default::default()) else {
        panic!("{}: not read as a JSON report", v1.display());
    };
    let (a, b) = both_json("v1", &value.to_string());
    j.push(a);
    t.push(b);
    json.push(Run {
        label: "json".into(),
        repeats: j,
    });
    typed.push(Run {
        label: "json".into(),
        repeats: t,
    });
    (json, typed)
}

/// The first place where `a` and `b` differ, as a JSON path.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (p, q) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                first_difference(p, q, format!("{at}/{k}"))
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, format!("{at}/{i}"))),
        _ => (a != b).then(|| format!("{at}: {a} against {b}")),
    }
}

fn assert_same(what: &str, typed: &Comparison, json: &Comparison) {
    if typed != json {
        let (t, j) = (
            serde_json::to_value(typed).unwrap(),
            serde_json::to_value(json).unwrap(),
        );
        panic!(
            "{what}: the typed comparison differs from the JSON one at {}",
            first_difference(&t, &j, String::new()).unwrap_or_else(|| "(a NaN)".into())
        );
    }
}

#[test]
fn the_typed_path_compares_exactly_as_the_json_path() {
    let (json, typed) = runs();
    let option_sets = [
        ("default", Options::default()),
        (
            "every role, the second run as baseline",
            Options {
                base: Some("eevdf".into()),
                top: usize::MAX,
                ..Options::default()
            },
        ),
        (
            "workload, aliases, --comm, sorted by wakeup p99",
            Options {
                workload: Some(regex::Regex::new("mi-|mintr|mspin|pp-").unwrap()),
                comm: Some(regex::Regex::new("^(mi|mintr|mspin|pp|hackbench|sched)").unwrap()),
                sort: analysis::columns::compare::task_row("wakeup-p99").unwrap(),
                top: 40,
                ..mi_options()
            },
        ),
        (
            "roles by regex",
            Options {
                matching: Matching {
                    by: MatchBy::Regex(regex::Regex::new("^[a-z]+").unwrap()),
                    aliases: Vec::new(),
                },
                top: 25,
                ..Options::default()
            },
        ),
    ];
    for (what, options) in option_sets {
        let j = compare(&json, &options).unwrap();
        let t = compare(&typed, &options).unwrap();
        // Not a comparison of empty tables: every run has rows with values, and the
        // explanation has subjects.
        assert!(j.tasks.tasks.len() >= 5, "{what}");
        assert!(j.system.iter().all(|r| r.cells.len() == RUNS.len() + 1));
        assert!(j.explain.as_ref().is_some_and(|e| !e.subjects.is_empty()));
        assert_same(what, &t, &j);
    }
}
