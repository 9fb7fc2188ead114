//! Before/after check of the analysis redesign: `analyze`'s text and JSON on every trace of
//! `tests/golden/cases.txt` are exactly the outputs stored in `tests/golden/out` (written by
//! `tests/golden/regen.sh` from the binary before the change). A change that alters an output
//! on purpose regenerates them and says why in its commit.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

struct Case {
    name: String,
    trace: String,
    args: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("tests/golden/cases.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.splitn(3, '|').map(str::trim);
            Case {
                name: parts.next().unwrap().to_string(),
                trace: parts.next().unwrap().to_string(),
                args: parts
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .map(String::from)
                    .collect(),
            }
        })
        .collect()
}

/// Where a case's trace is, relative to the repository root (as `regen.sh` resolves it).
fn resolve(trace: &str) -> String {
    if trace.starts_with("fixtures/") {
        return trace.to_string();
    }
    if trace.starts_with("public/") {
        return format!("../shared/traces/{trace}");
    }
    format!("fixtures/traces/{trace}")
}

fn run(path: &str, args: &[String], json: bool) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_schedtrace"));
    cmd.current_dir(ROOT).arg("analyze").arg(path).args(args);
    if json {
        cmd.args(["--json", "-"]);
    }
    let out = cmd.output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .replace(path, "<TRACE>")
}

fn expected(name: &str, json: bool) -> String {
    let dir = PathBuf::from(ROOT).join("tests/golden/out");
    if json {
        let file = std::fs::File::open(dir.join(format!("{name}.json.xz"))).unwrap();
        let mut s = String::new();
        xz2::read::XzDecoder::new(file)
            .read_to_string(&mut s)
            .unwrap();
        s
    } else {
        std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap()
    }
}

/// The first line where two outputs differ, for a message that says where.
fn first_difference(got: &str, want: &str) -> String {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        if g != w {
            return format!("line {}:\n  got:  {g}\n  want: {w}", i + 1);
        }
    }
    format!(
        "lengths differ: got {} lines, want {}",
        got.lines().count(),
        want.lines().count()
    )
}

#[test]
fn analyze_outputs_are_unchanged() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases() {
        let path = resolve(&case.trace);
        if !Path::new(ROOT).join(&path).exists() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{}: {path} is missing",
                case.name
            );
            eprintln!("golden: skipped {} ({path} missing)", case.name);
            continue;
        }
        for json in [false, true] {
            let got = run(&path, &case.args, json);
            let want = expected(&case.name, json);
            if got != want {
                failures.push(format!(
                    "{} ({}): {}",
                    case.name,
                    if json { "json" } else { "text" },
                    first_difference(&got, &want)
                ));
            }
        }
        checked += 1;
    }
    assert!(checked > 0, "no golden case could be checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
