//! The progress line of `analyze` and `compare`: drawn on stderr when it is a terminal (here a
//! pseudo-terminal made by util-linux `script`), absent with `--quiet` or without a terminal, and
//! never a byte of difference on stdout.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_schedtrace");

/// Shell-quotes `s` (single quotes; the paths here have none).
fn q(s: &str) -> String {
    assert!(!s.contains('\''), "{s}");
    format!("'{s}'")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("progress_line");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// stdout of `schedtrace ARGS` with no terminal anywhere (stderr a pipe as well).
fn without_terminal(args: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (out.stdout, out.stderr)
}

/// Runs `schedtrace ARGS` under a pseudo-terminal with stdout redirected to a file: returns that
/// file's bytes and what the terminal got (stderr).
fn under_terminal(args: &[&str], name: &str) -> (Vec<u8>, String) {
    let stdout_file = scratch(&format!("{name}.stdout"));
    let command = std::iter::once(q(BIN))
        .chain(args.iter().map(|a| q(a)))
        .collect::<Vec<_>>()
        .join(" ")
        + " > "
        + &q(stdout_file.to_str().unwrap());
    // -q: no start/done lines; -e: the child's exit status; the typescript file is not needed.
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .env("COLUMNS", "120")
        .output()
        .expect("util-linux `script` runs");
    let terminal = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{command}: {terminal}");
    (std::fs::read(&stdout_file).unwrap(), terminal)
}

/// A large input: 8 MB of `trace-cmd report` text, 308 KB compressed (decompressed and parsed
/// in a few hundred ms: several refreshes of the line).
fn large() -> String {
    path_str(&fixtures::trace("pds-6.1-vm/pp2/report.txt.xz"))
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

#[test]
fn analyze_draws_a_progress_line_on_a_terminal_and_leaves_stdout_alone() {
    let input = large();
    let (plain, plain_err) = without_terminal(&["analyze", &input]);
    // Warnings may go to stderr; the progress line may not, when it is no terminal.
    assert!(
        !String::from_utf8_lossy(&plain_err).contains("reading ["),
        "{}",
        String::from_utf8_lossy(&plain_err)
    );
    let (stdout, terminal) = under_terminal(&["analyze", &input], "analyze");
    assert!(
        terminal.contains("reading ["),
        "no progress line in {terminal:?}"
    );
    assert!(terminal.contains(" events"), "{terminal:?}");
    assert!(terminal.contains("ETA"), "{terminal:?}");
    assert_eq!(stdout, plain, "stdout differs under a terminal");

    let (stdout, terminal) = under_terminal(&["analyze", "--quiet", &input], "analyze-quiet");
    assert!(!terminal.contains("reading"), "--quiet drew {terminal:?}");
    assert_eq!(stdout, plain);
}

#[test]
fn compare_draws_one_line_for_all_its_inputs() {
    let a = large();
    let b = path_str(&fixtures::trace("cfs-6.1-vm/pp2/trace-v6.dat.xz"));
    let (plain, plain_err) = without_terminal(&["compare", &a, &b]);
    // Warnings may go to stderr; the progress line may not, when it is no terminal.
    assert!(
        !String::from_utf8_lossy(&plain_err).contains("reading ["),
        "{}",
        String::from_utf8_lossy(&plain_err)
    );
    let (stdout, terminal) = under_terminal(&["compare", &a, &b], "compare");
    assert!(
        terminal.contains("reading ["),
        "no progress line in {terminal:?}"
    );
    assert_eq!(stdout, plain, "stdout differs under a terminal");
}
