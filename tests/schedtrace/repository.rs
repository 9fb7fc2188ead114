//! The repository explains itself: every path that README.md, `--help` and docs/ mention exists
//! in it, and docs/guide.md has a legend entry for every column header that `analyze` and
//! `compare` print (headers parsed out of real output of the binary).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_schedtrace");

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn run(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The top-level folders of the repository that a mentioned path can start with.
const TOP: [&str; 11] = [
    "fixtures/",
    "docs/",
    "schemas/",
    "bench/",
    "src/",
    "ingest/",
    "analysis/",
    "tests/",
    "tui/",
    ".ci/",
    "README.md",
];

/// Path-like words of `text`: starting with a top-level folder of the repository (after
/// quotes, backticks, parentheses), up to the first character that cannot be in a path.
fn mentioned_paths(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "._-/*".contains(c);
    for (i, _) in text.char_indices() {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| is_path_char(c) || c == '~') {
            continue; // inside a word, or `../shared/...` (outside, on purpose)
        }
        let rest = &text[i..];
        if !TOP.iter().any(|t| rest.starts_with(t)) {
            continue;
        }
        let end = rest.find(|c: char| !is_path_char(c)).unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches(['.', ',']);
        found.insert(path.to_string());
    }
    found
}

/// Exists, where `*` stands for any one path component (`fixtures/traces/*/ground_truth.json`).
fn exists(root: &Path, path: &str) -> bool {
    match path.split_once('*') {
        None => root.join(path).exists(),
        Some((head, tail)) => {
            let dir = root.join(head.trim_end_matches('/'));
            let tail = tail
                .trim_start_matches(|c| c != '/')
                .trim_start_matches('/');
            std::fs::read_dir(&dir).is_ok_and(|entries| {
                entries
                    .flatten()
                    .any(|e| tail.is_empty() || exists(&e.path(), tail))
            })
        }
    }
}

#[test]
fn every_path_in_the_readme_help_and_docs_exists() {
    let mut sources: Vec<(String, String)> = ["README.md", "fixtures/README.md"]
        .iter()
        .map(|f| (f.to_string(), read(f)))
        .collect();
    for entry in std::fs::read_dir(Path::new(ROOT).join("docs")).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("docs/{}", path.file_name().unwrap().to_str().unwrap());
        sources.push((name, std::fs::read_to_string(&path).unwrap()));
    }
    for cmd in [
        &["--help"][..],
        &["analyze", "--help"],
        &["compare", "--help"],
        &["convert", "--help"],
    ] {
        sources.push((format!("schedtrace {}", cmd.join(" ")), run(cmd)));
    }
    let mut checked = 0;
    let mut missing = Vec::new();
    for (source, text) in &sources {
        for path in mentioned_paths(text) {
            checked += 1;
            if !exists(Path::new(ROOT), &path) {
                missing.push(format!("{source}: {path}"));
            }
        }
        assert!(
            !text.contains("../shared/docs"),
            "{source} points outside the repository"
        );
    }
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
    assert!(
        checked > 30,
        "only {checked} paths found: is the scan broken?"
    );
}

/// Column names of the legend: the first backticked words of every table row of docs/guide.md
/// (`| \`system\` / \`task\` | ...` gives both).
fn legend() -> BTreeSet<String> {
    let guide = read("docs/guide.md");
    let mut names = BTreeSet::new();
    for line in guide.lines() {
        let Some(cell) = line.strip_prefix("| ").and_then(|l| l.split(" |").next()) else {
            continue;
        };
        for (i, part) in cell.split('`').enumerate() {
            if i % 2 == 1 {
                names.insert(part.to_string());
            }
        }
    }
    names
}

/// Header lines of the tables in `text`: the line above each rule of dashes.
fn headers(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .filter(|w| {
            let rule = w[1].trim();
            rule.len() > 10 && rule.bytes().all(|b| b == b'-')
        })
        .map(|w| w[0])
        .collect()
}

/// Splits a header into legend names, longest match first (columns are right-aligned with one
/// space between some of them, so spaces alone cannot split it). Unknown text is an error.
fn split_header<'a>(header: &'a str, legend: &BTreeSet<String>) -> Result<Vec<String>, &'a str> {
    let mut rest = header.trim_start();
    let mut columns = Vec::new();
    while !rest.is_empty() {
        let name = legend
            .iter()
            .filter(|n| {
                rest.starts_with(n.as_str())
                    && !matches!(rest[n.len()..].chars().next(), Some(c) if c != ' ')
            })
            .max_by_key(|n| n.len())
            .ok_or(rest)?;
        columns.push(name.clone());
        rest = rest[name.len()..].trim_start();
    }
    Ok(columns)
}

/// What the tables of `compare`'s text print: the first-column header of every table (`metric`,
/// `role`), the row names of the system tables and the metric of each task table (from its
/// title `task METRIC (UNIT): DIRECTION`), each matched against the legend's names.
fn compare_names(text: &str, legend: &BTreeSet<String>) -> Vec<String> {
    let directions = [": lower is better", ": higher is better", ": neutral"];
    let mut names = Vec::new();
    let mut in_system = false;
    for line in text.lines() {
        if let Some(title) = directions
            .iter()
            .find_map(|d| line.find(d).map(|i| &line[..i]))
        {
            in_system = title.starts_with("system (");
            if let Some(task) = title.strip_prefix("task ") {
                let metric = task.split(" (").next().unwrap();
                names.push(metric.to_string());
            }
            continue;
        }
        let cell = line.trim_start();
        if cell.is_empty() {
            // A blank line between the column groups of one wrapped table.
            continue;
        }
        if !line.starts_with(' ') {
            in_system = false;
            continue;
        }
        let first = cell.split(' ').next().unwrap();
        if first == "metric" || first == "role" {
            names.push(first.to_string());
        } else if in_system {
            let name = legend
                .iter()
                .filter(|n| cell.starts_with(n.as_str()) && cell[n.len()..].starts_with(' '))
                .max_by_key(|n| n.len())
                .unwrap_or_else(|| {
                    panic!("docs/guide.md has no legend entry for the row {cell:?}")
                });
            names.push(name.clone());
        }
    }
    names
}

#[test]
fn the_guide_explains_every_column_that_analyze_and_compare_print() {
    let legend = legend();
    let trace = |rel: &str| fixtures::trace(rel).to_str().unwrap().to_string();
    let juno = fixtures::file("juno-r0.topology.json");
    let outputs = [
        run(&["analyze", &trace("cfs-6.1-vm/mi/trace-v6.dat.xz")]),
        run(&[
            "analyze",
            &trace("eevdf-6.18-host/massive_intr/perf.sched.data.xz"),
            "--group",
            "name",
        ]),
        run(&[
            "analyze",
            &trace("pds-6.1-vm/nice/trace-v6.dat.xz"),
            "--topology",
            juno.to_str().unwrap(),
            "-C",
            "0,1",
        ]),
    ];
    let compared = [
        run(&[
            "compare",
            &trace("cfs-6.1-vm/nice/trace-v6.dat.xz"),
            &trace("eevdf-6.12-vm/nice/trace-v6.dat.xz"),
            &format!(
                "pds={},{}",
                trace("pds-6.1-vm/mi/trace-v6.dat.xz"),
                trace("pds-6.1-vm/mi-repeat/trace-v6.dat.xz")
            ),
            "--wide",
        ]),
        run(&[
            "compare",
            &trace("cfs-6.1-vm/nice/trace-v6.dat.xz"),
            &trace("pds-6.1-vm/nice/trace-v6.dat.xz"),
            "--match",
            r"nice-?n?(\d)",
            "--workload",
            "^nice",
            "--wide",
        ]),
    ];
    let mut seen = BTreeSet::new();
    for out in &compared {
        let names = compare_names(out, &legend);
        assert!(names.len() >= 10, "no compare tables found in\n{out}");
        seen.extend(names);
    }
    for out in &outputs {
        let found = headers(out);
        assert!(found.len() >= 2, "no tables found in\n{out}");
        for header in found {
            match split_header(header, &legend) {
                Ok(columns) => seen.extend(columns),
                Err(rest) => {
                    panic!("docs/guide.md has no legend entry for {rest:?} (header {header:?})")
                }
            }
        }
    }
    for must in [
        "dly avg us",
        "w-cpu",
        "xllc",
        "warm%",
        "top%",
        "wk-pre",
        "caused",
        "suffer",
        "lat max at s",
        "metric",
        "role",
        "runtime share",
        "Jain's index",
        "preempted on wakeup/s",
    ] {
        assert!(
            seen.contains(must),
            "{must} was not among the printed headers {seen:?}"
        );
    }
}
