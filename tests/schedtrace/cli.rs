//! End-to-end tests of the `schedtrace` binary: flags, output shapes, exit codes.
//! The numbers themselves are checked against kernel ground truth in the crates' own tests;
//! here the bundled fixture's ground truth checks that the wiring passes them through.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/pipe_pinned.eevdf-6.18.trace.dat"
);
const GROUND_TRUTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/pipe_pinned.eevdf-6.18.groundtruth.json"
);

fn schedtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(args)
        .output()
        .expect("run schedtrace")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_report(args: &[&str]) -> Value {
    let mut all = vec!["analyze", FIXTURE, "--json", "-"];
    all.extend_from_slice(args);
    let out = schedtrace(&all);
    assert!(out.status.success(), "schedtrace failed: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("--json - prints one JSON document")
}

fn ground_truth_tasks() -> Vec<Value> {
    let gt: Value = serde_json::from_str(&std::fs::read_to_string(GROUND_TRUTH).unwrap()).unwrap();
    gt["tasks"].as_array().unwrap().clone()
}

fn task(report: &Value, pid: i64) -> &Value {
    report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["pid"] == pid)
        .unwrap_or_else(|| panic!("no task {pid}"))
}

#[test]
fn text_report_has_header_tasks_and_cpus() {
    let out = schedtrace(&["analyze", FIXTURE]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("6.18.44-fc-v657"),
        "kernel release in the header:\n{text}"
    );
    assert!(text.contains("trace.dat"), "format in the header");
    for gt in ground_truth_tasks() {
        let name = format!("{}:{}", gt["comm"].as_str().unwrap(), gt["pid"]);
        assert!(text.contains(&name), "task row {name} in:\n{text}");
    }
    assert!(text.to_lowercase().contains("cpu"), "per-CPU section");
}

#[test]
fn json_report_carries_the_kernel_counters() {
    let report = json_report(&[]);
    assert_eq!(report["schema_version"], 3);
    assert_eq!(report["source"]["format"], "trace.dat");
    assert_eq!(report["source"]["kernel_release"], "6.18.44-fc-v657");
    assert_eq!(report["quality"]["wakeup_event"], "sched_waking");
    for gt in ground_truth_tasks() {
        let t = task(&report, gt["pid"].as_i64().unwrap());
        let kernel_vol = gt["proc_sched"]["nr_voluntary_switches"].as_i64().unwrap();
        let kernel_invol = gt["proc_sched"]["nr_involuntary_switches"]
            .as_i64()
            .unwrap();
        let vol = t["switches"]["voluntary"].as_i64().unwrap();
        let invol = t["switches"]["involuntary"].as_i64().unwrap();
        // Each task read its counters shortly before exiting: the trace may hold a few more switches
        // (the exit switch among them), never fewer.
        assert!(
            (kernel_vol..=kernel_vol + 3).contains(&vol),
            "voluntary {vol} vs kernel {kernel_vol}"
        );
        assert!(
            (kernel_invol..=kernel_invol + 3).contains(&invol),
            "involuntary {invol} vs kernel {kernel_invol}"
        );
    }
}

#[test]
fn pid_filter_sort_and_top() {
    let gt = ground_truth_tasks();
    let pid = gt[0]["pid"].as_i64().unwrap();
    let report = json_report(&["-p", &pid.to_string()]);
    let tasks = report["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0]["pid"], pid);

    // `--top` cuts the text table, not the JSON: every row, in `--sort` order.
    let all = json_report(&[]);
    let report = json_report(&["--sort", "switches", "--top", "3"]);
    let tasks = report["tasks"].as_array().unwrap();
    assert!(tasks.len() > 3);
    assert_eq!(tasks.len(), all["tasks"].as_array().unwrap().len());
    let switches = |t: &Value| {
        t["switches"]["voluntary"].as_i64().unwrap()
            + t["switches"]["involuntary"].as_i64().unwrap()
    };
    assert!(tasks.windows(2).all(|w| switches(&w[0]) >= switches(&w[1])));
    let out = schedtrace(&["analyze", FIXTURE, "--sort", "switches", "--top", "3"]);
    let text = stdout(&out);
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("task:pid"))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(rows.len(), 3, "{text}");
    let first = format!("{}:{}", tasks[0]["comm"].as_str().unwrap(), tasks[0]["pid"]);
    assert!(rows[0].contains(&first), "{first} first in:\n{text}");
}

#[test]
fn comm_filter_takes_a_regex() {
    let report = json_report(&["--comm", "^pp-[ab]$"]);
    let mut comms: Vec<String> = report["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["comm"].as_str().unwrap().to_string())
        .collect();
    comms.sort();
    assert_eq!(comms, ["pp-a", "pp-b"]);
}

#[test]
fn time_window_clips_the_report() {
    let full = json_report(&[]);
    let start = full["window"]["start_ns"].as_u64().unwrap();
    let end = full["window"]["end_ns"].as_u64().unwrap();
    let mid = start + (end - start) / 2;
    let arg = format!("{:.9},", mid as f64 / 1e9);
    let half = json_report(&["--time", &arg]);
    let half_start = half["window"]["start_ns"].as_u64().unwrap();
    assert!(
        half_start.abs_diff(mid) < 2,
        "window starts at the requested time: {half_start} vs {mid}"
    );
    let busy = |r: &Value| {
        r["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["busy_ns"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert!(busy(&half) < busy(&full));
}

/// `-C 1`: only CPU 1 in the per-CPU table, and each task's time counted on CPU 1 only. The
/// ping-pong pair was pinned to CPU 1 (the kernel's `cpus_allowed_list`), so it keeps nearly all
/// of its runtime; the builders sharing the machine lose what they ran on CPU 0.
#[test]
fn cpu_filter_keeps_one_cpu() {
    let full = json_report(&[]);
    let one = json_report(&["-C", "1"]);
    let cpus: Vec<u64> = one["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["cpu"].as_u64().unwrap())
        .collect();
    assert_eq!(cpus, vec![1]);
    let runtime = |r: &Value, pid: u64| {
        r["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["pid"] == pid)
            .map_or(0, |t| t["runtime_ns"].as_u64().unwrap())
    };
    let pong = (runtime(&one, 18146), runtime(&full, 18146));
    assert!(
        pong.0 as f64 >= 0.99 * pong.1 as f64 && pong.0 <= pong.1,
        "{pong:?}"
    );
    let mut lost_some = false;
    for t in full["tasks"].as_array().unwrap() {
        let pid = t["pid"].as_u64().unwrap();
        let (on_one, all) = (runtime(&one, pid), runtime(&full, pid));
        assert!(on_one <= all, "pid {pid}: {on_one} > {all}");
        lost_some |= on_one < all;
    }
    assert!(lost_some, "some task ran on CPU 0");
}

#[test]
fn json_to_file_and_text_to_stdout() {
    let dir = std::env::temp_dir().join(format!("schedtrace-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("report.json");
    let out = schedtrace(&["analyze", FIXTURE, "--json", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("pp-a"));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(written["schema_version"], 3);
    std::fs::remove_dir_all(&dir).ok();
}

fn bad_input(name: &str, bytes: &[u8]) -> (Output, PathBuf) {
    let dir = std::env::temp_dir().join(format!("schedtrace-bad-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    (schedtrace(&["analyze", path.to_str().unwrap()]), path)
}

#[test]
fn bad_inputs_exit_2_with_file_offset_and_cause() {
    let real = std::fs::read(FIXTURE).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty.dat", vec![]),
        (
            "junk.bin",
            vec![0x00, 0xff, 0x13, 0x37, 0x00, 0x01, 0x02, 0x80],
        ),
        ("truncated-header.dat", real[..30].to_vec()),
        ("truncated-middle.dat", real[..real.len() / 2].to_vec()),
    ];
    for (name, bytes) in cases {
        let (out, path) = bad_input(name, &bytes);
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{name}: exit code; stderr: {err}"
        );
        assert!(
            err.contains(path.to_str().unwrap()),
            "{name}: error names the file: {err}"
        );
        assert!(!err.contains("panicked"), "{name}: no panic: {err}");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{name}: one-line error: {err}"
        );
        if name != "empty.dat" {
            assert!(
                err.contains("offset"),
                "{name}: error names the offset: {err}"
            );
        }
    }
}

#[test]
fn missing_file_and_bad_flags() {
    let out = schedtrace(&["analyze", "/nonexistent/trace.dat"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/nonexistent/trace.dat"));
    let out = schedtrace(&["analyze", FIXTURE, "--time", "5,1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("END must be after START"));
}

fn analyze_via_stdin(path: &str) -> Value {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(["analyze", "-", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Decompressed, as `perf record -o -` or `trace-cmd` would write them into the pipe.
    let bytes = ingest::source::load(std::path::Path::new(path))
        .unwrap()
        .to_vec();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn analyze_file(path: &str) -> Value {
    let out = schedtrace(&["analyze", path, "--json", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn reads_stdin() {
    let from_stdin = analyze_via_stdin(FIXTURE);
    let from_file = json_report(&[]);
    assert_eq!(from_stdin["tasks"], from_file["tasks"]);
}

/// `perf record -o - | schedtrace analyze -`: a pipe-mode perf.data through stdin (the fixture
/// was recorded here with `perf record -o -`, see fixtures/README.md).
#[test]
fn reads_perf_pipe_mode_from_stdin() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/perfdata/sched-events.pipe.data.xz"
    );
    let from_stdin = analyze_via_stdin(path);
    assert_eq!(from_stdin["source"]["format"], "perf.data");
    assert_eq!(from_stdin["source"]["format_version"], "pipe");
    assert!(
        from_stdin["quality"]["events"]["sched_switch"]
            .as_u64()
            .unwrap()
            > 100
    );
    let from_file = analyze_file(path);
    assert_eq!(from_stdin["tasks"], from_file["tasks"]);
    assert_eq!(
        from_stdin["quality"]["events"],
        from_file["quality"]["events"]
    );
}

/// A pipe-mode `perf sched record` with 108 rounds and a loss on CPU 1, read as a stream from
/// stdin: the same report as from the file, the loss in the ledger, and the stream held in
/// a buffer a fraction of its size.
#[test]
fn streams_a_perf_sched_record_pipe_from_stdin() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/perfdata/sched-record.pipe.data.xz"
    );
    let from_stdin = analyze_via_stdin(path);
    let from_file = analyze_file(path);
    assert_eq!(from_stdin["tasks"], from_file["tasks"]);
    assert_eq!(from_stdin["cpus"], from_file["cpus"]);
    assert_eq!(from_stdin["quality"], from_file["quality"]);
    assert_eq!(from_stdin["quality"]["events"]["sched_switch"], 24151);
    let held: u64 = from_stdin["source"]["extra"]["perf.stream_peak_buffered_bytes"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(held < 6_919_876 / 2, "{held}");
}

/// A text trace records no kernel release; PDS prints priorities 152..191, so without the release
/// the fairness weights are unknown and left out (not guessed). `--kernel-release` supplies it and
/// the text then gives the trace.dat's fairness ratios (up to the text's microsecond timestamps).
#[test]
fn kernel_release_for_text_traces() {
    let shared = fixtures::trace("pds-6.1-vm/nice");
    let shared = shared.display();
    let dat = analyze_file(&format!("{shared}/trace-v6.dat.xz"));
    let text = analyze_file(&format!("{shared}/report.txt.xz"));
    assert!(text["source"]["kernel_release"].is_null());
    let out = schedtrace(&[
        "analyze",
        &format!("{shared}/report.txt.xz"),
        "--kernel-release",
        "6.1.192-prjc-pds",
        "--json",
        "-",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let with: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(with["source"]["kernel_release"], "6.1.192-prjc-pds");
    assert_eq!(with["source"]["scheduler"], dat["source"]["scheduler"]);
    for comm in ["nice0", "nice5"] {
        let find = |r: &Value| {
            r["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["comm"] == comm)
                .unwrap()
                .clone()
        };
        assert!(
            find(&text)["fairness"].is_null(),
            "{comm}: no weights without the release"
        );
        let (a, b) = (
            find(&dat)["fairness"]["ratio"].as_f64().unwrap(),
            find(&with)["fairness"]["ratio"].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() < 1e-4,
            "{comm}: fairness ratio {a} (trace.dat) vs {b} (text + --kernel-release)"
        );
    }
}
