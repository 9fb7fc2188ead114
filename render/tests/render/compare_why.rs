//! The "o Why" block of `compare --format lkml` on the mi comparison (CFS, EEVDF, PDS
//! with a repeat), parsed back: every sentence's change and named parts are the JSON's
//! `explain` numbers as printed, the parts shown add up to the change, and each run's
//! longest wait is the JSON's.

use crate::compare_layouts::mi_comparison;
use analysis::compare::explain::model::Component;
use analysis::compare::model::Comparison;
use analysis::PieceKind;

fn ms(ns: i64) -> String {
    format!("{:+.3}", ns as f64 / 1e6)
}

/// The block's items: a wrapped line's pieces joined again.
fn items(text: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with("o Why"));
    assert!(lines.next().is_some(), "no o Why block in\n{text}");
    let mut out: Vec<String> = Vec::new();
    for line in lines.take_while(|l| !l.is_empty()) {
        let starts = line.starts_with("  ") && !line.starts_with("   ")
            || line.starts_with("    longest wait:");
        if starts || out.is_empty() {
            out.push(line.trim().to_string());
        } else {
            let last = out.last_mut().unwrap();
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    out
}

/// `a, b (c, d), e` split at the commas outside parentheses.
fn split_parts(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    let mut chars = s.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 && chars.peek() == Some(&' ') => {
                chars.next();
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur);
    out
}

fn kind(k: PieceKind) -> &'static str {
    match k {
        PieceKind::Enqueue => "enqueue",
        PieceKind::Idle => "idle",
        PieceKind::Behind => "behind",
        PieceKind::Unknown => "unknown",
    }
}

#[test]
fn lkml_why_block_parses_back_to_the_json_numbers() {
    let c = mi_comparison();
    for width in [100, 80] {
        let layout = render::compare::Layout {
            width,
            explain: true,
            ..Default::default()
        };
        let text = render::compare::lkml::render(&c, &layout);
        assert!(text.lines().all(|l| l.chars().count() <= width));
        check_block(&c, &text);
    }
    // Off with --no-explain (Layout::explain false).
    let plain = render::compare::lkml::render(
        &c,
        &render::compare::Layout {
            width: 100,
            ..Default::default()
        },
    );
    assert!(!plain.contains("o Why"));
}

/// Every item of the block against the JSON's `explain`.
fn check_block(c: &Comparison, text: &str) {
    let e = c.explain.as_ref().unwrap();
    let items = items(text);
    let mut items = items.iter();
    let mut sentences = 0;
    for s in &e.subjects {
        for ch in &s.changes {
            let item = items.next().expect("a sentence per role and label");
            let head = format!("{} vs {}: ", ch.label, c.base);
            assert!(item.starts_with(&head), "{item}");
            let (_, rest) = item.split_once(" waited ").unwrap();
            let (change, parts) = rest.split_once(" ms: ").unwrap();
            assert_eq!(change, ms(ch.change_ns), "{item}");
            assert!(
                !parts.contains("within the noise"),
                "one repeat in the baseline: no p"
            );
            let ranked: Vec<&Component> =
                ch.components.iter().filter(|p| p.change_ns != 0).collect();
            let parsed = split_parts(parts);
            let mut shown_sum = 0.0;
            for (i, p) in parsed.iter().enumerate() {
                let (value, what) = p.split_once(" ms ").unwrap();
                shown_sum += value.parse::<f64>().unwrap();
                if let Some(more) = what.strip_prefix("in ") {
                    let rest = &ranked[i..];
                    assert_eq!(more, format!("{} more parts", rest.len()), "{item}");
                    assert_eq!(value, ms(rest.iter().map(|p| p.change_ns).sum()), "{item}");
                    continue;
                }
                let want = ranked[i];
                assert_eq!(value, ms(want.change_ns), "{item}: part {i}");
                assert!(what.starts_with(kind(want.kind)), "{item}: part {i}");
                if let Some(o) = &want.occupant {
                    let comm = o.comms.first().or(o.base_comms.first()).unwrap();
                    assert!(
                        what.starts_with(&format!("behind {comm}")),
                        "{item}: {what}"
                    );
                }
            }
            // What is printed adds up to the printed change, to its rounding.
            let change: f64 = ch.change_ns as f64 / 1e6;
            assert!(
                (shown_sum - change).abs() <= 0.0005 * parsed.len() as f64 + 1e-9,
                "{item}"
            );
            sentences += 1;
        }
        if s.changes.is_empty() {
            continue;
        }
        let item = items.next().unwrap();
        let runs = item.strip_prefix("longest wait: ").expect(item);
        for (part, run) in runs
            .split("; ")
            .zip(s.runs.iter().filter(|r| r.longest.is_some()))
        {
            let l = run.longest.as_ref().unwrap();
            let want = format!(
                "{} {:.3} ms of {}: ",
                run.label,
                l.len_ns as f64 / 1e6,
                l.comm
            );
            assert!(part.starts_with(&want), "{part} / {want}");
        }
    }
    assert!(
        sentences >= 10,
        "the four mi roles and the workload, against two runs"
    );
    assert!(items.next().is_none());
}
