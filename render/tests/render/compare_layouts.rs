//! The layouts of `compare` (render::compare) on a real comparison: the mi workload on
//! CFS, EEVDF and PDS (PDS with a repeat), tasks matched through PDS's names. The LKML
//! layout is parsed back to the JSON numbers; markdown and the wide text show the same
//! blocks; every line fits the width asked for.

use analysis::compare::matching::{MatchBy, Matching};
use analysis::compare::model::Comparison;
use analysis::compare::{compare, Options, Run};

/// The mi workload on CFS, EEVDF and PDS (PDS twice), its tasks matched through the
/// names PDS gave them (`mintr0..2` for the massive_intr tasks, `mspin` for the spinner).
pub(crate) fn mi_comparison() -> Comparison {
    let captures: [(&str, &[&str]); 3] = [
        ("cfs", &["cfs-6.1-vm/mi"]),
        ("eevdf", &["eevdf-6.12-vm/mi"]),
        ("pds", &["pds-6.1-vm/mi", "pds-6.1-vm/mi-repeat"]),
    ];
    let runs: Vec<Run> = captures
        .iter()
        .map(|(label, dirs)| Run {
            label: label.to_string(),
            repeats: dirs
                .iter()
                .map(|dir| {
                    let path = fixtures::trace(&format!("{dir}/trace-v6.dat.xz"));
                    analysis::compare::load::load(&path, &Default::default())
                        .unwrap_or_else(|e| panic!("{dir}: {e}"))
                })
                .collect(),
        })
        .collect();
    let aliases = [
        "mintr0=mi-work0",
        "mintr1=mi-work1",
        "mintr2=mi-work2",
        "mspin=mi-spin",
    ];
    let opts = Options {
        matching: Matching {
            by: MatchBy::Exact,
            aliases: aliases
                .iter()
                .map(|a| Matching::parse_alias(a).unwrap())
                .collect(),
        },
        workload: Some(regex::Regex::new("mi-|mintr|mspin").unwrap()),
        ..Options::default()
    };
    compare(&runs, &opts).unwrap()
}

/// A printed number and half a unit of its last printed digit (`-` as None).
type Printed = Option<(f64, f64)>;

/// `1.05 [ -5.18]( 2.04)`: (normalized, change, CV).
fn parse_cell(text: &str) -> (Printed, Printed, Printed) {
    let num = |s: &str| {
        let s = s.trim();
        let decimals = s.split_once('.').map_or(0, |(_, d)| d.len() as i32);
        s.parse::<f64>()
            .ok()
            .map(|v| (v, 0.5 * 10f64.powi(-decimals)))
    };
    let (norm, rest) = text.split_once('[').unwrap();
    let (change, rest) = rest.split_once("](").unwrap();
    let (cv, _) = rest.split_once(')').unwrap();
    (
        num(norm.split_whitespace().last().unwrap_or("")),
        num(change),
        num(cv),
    )
}

#[test]
fn lkml_layout_of_mi_parses_back_to_the_json_numbers() {
    let c = mi_comparison();
    for width in [100usize, 80] {
        let layout = render::compare::Layout {
            width,
            ..Default::default()
        };
        let text = render::compare::lkml::render(&c, &layout);
        for line in text.lines() {
            assert!(line.chars().count() <= width, "{width}: {line:?}");
        }
        assert!(text.contains("Interpretation: Lower is better"));
        assert!(text.contains("Statistic     : AMean"));
        // Every cell of every block: the numbers of the JSON, rounded as printed.
        let mut cells = 0;
        let mut columns: Vec<String> = Vec::new();
        for line in text.lines() {
            if line.trim_start().starts_with("Case:") {
                columns = line
                    .split("[pct imp](CV)")
                    .map(|h| h.split_whitespace().last().unwrap_or("").to_string())
                    .collect();
                columns.pop();
                continue;
            }
            if !line.contains("](") || columns.is_empty() {
                continue;
            }
            let parts: Vec<&str> = line
                .split_inclusive(')')
                .filter(|p| p.contains('['))
                .collect();
            assert_eq!(parts.len(), columns.len(), "{line}");
            let case = line.split_whitespace().next().unwrap();
            for (label, part) in columns.iter().zip(parts) {
                let (norm, change, cv) = parse_cell(part.trim_start_matches(['*', '^', ' ']));
                let found = c
                    .system
                    .iter()
                    .chain(c.tasks.tasks.iter().flat_map(|t| t.metrics.iter()))
                    .flat_map(|r| r.cells.iter())
                    .filter(|x| &x.label == label)
                    .any(|x| {
                        let same = |a: Printed, b: Option<f64>| match (a, b) {
                            (Some((a, half)), Some(b)) => (a - b).abs() <= half + 1e-9,
                            (None, None) => true,
                            _ => false,
                        };
                        same(norm, x.normalized) && same(change, x.change_pct) && same(cv, x.cv_pct)
                    });
                assert!(found, "{case} {label}: {part} not in the JSON");
                cells += 1;
            }
        }
        assert!(cells > 30, "{cells} cells parsed");
        // PDS has two repeats: a CV in its cells, and the flag legend says threshold-only
        // for the runs with one.
        assert!(text.contains("threshold-only"));
    }
}

#[test]
fn markdown_and_wide_text_show_the_same_blocks() {
    let c = mi_comparison();
    let md = render::compare::markdown::render(&c, &Default::default());
    // One table per block, one row per role: the header, the rule, then the four roles.
    let block = md
        .split("### task runtime share")
        .nth(1)
        .expect("a runtime share block");
    let rows: Vec<&str> = block
        .lines()
        .skip_while(|l| !l.starts_with("| case |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(rows[0], "| case | cfs | eevdf | pds |");
    assert!(rows.iter().any(|r| r.starts_with("| mi-spin |")), "{block}");
    // The default text leaves the --wide-only metrics out and fits 100 columns.
    let default = render::compare::text::render(
        &c,
        &render::compare::Layout {
            width: 100,
            ..Default::default()
        },
    );
    let wide = render::compare::text::render(
        &c,
        &render::compare::Layout {
            wide: true,
            ..Default::default()
        },
    );
    assert!(!default.contains("task slice p99") && wide.contains("task slice p99"));
    assert!(
        default.lines().all(|l| l.chars().count() <= 100),
        "{default}"
    );
}
