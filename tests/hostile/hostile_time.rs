//! Timestamps far apart (issue #11 item 1): the short-term fairness windows between two
//! events cost nothing however many there are, and the jump is named in the ledger.

use crate::hostile_support::{run, scratch, shared_trace, switch_line};
use serde_json::Value;
use std::time::Duration;

fn analyze_json(path: &std::path::Path) -> Value {
    let r = run(
        &["analyze", path.to_str().unwrap(), "--json", "-"],
        None,
        Duration::from_secs(20),
    );
    r.expect_code(0).expect_bounded(64, 5);
    serde_json::from_str(&r.stdout).unwrap()
}

/// Task a runs from 1 s while b waits on the same CPU, until a jump of 1e10 s: every window
/// in between has a (ratio 2) and b (ratio 0), Jain's index 0.5.
#[test]
fn a_jump_of_1e10_seconds_closes_every_window_in_one_step() {
    let dir = scratch("jump");
    let path = dir.join("jump.txt");
    let mut text = String::from(
        "          <idle>-0     [000] d..2.     1.000000: sched_wakeup: comm=b pid=2 prio=120 target_cpu=000\n",
    );
    text += &switch_line("1.000000", ("<idle>", 0), "R", ("a", 1));
    text += &switch_line("10000000001.000000", ("a", 1), "R", ("b", 2));
    std::fs::write(&path, text).unwrap();
    let report = analyze_json(&path);
    let short = report["system"]["fairness"]["short_term"]
        .as_array()
        .unwrap();
    // 1e10 s of windows of 10 ms, 100 ms, 1 s.
    let windows: Vec<u64> = short
        .iter()
        .map(|s| s["windows"].as_u64().unwrap())
        .collect();
    assert_eq!(
        windows,
        [1_000_000_000_000, 100_000_000_000, 10_000_000_000]
    );
    for s in short {
        assert_eq!(s["mean"], 0.5);
        assert_eq!(s["min"], 0.5);
    }
    let jumps = &report["quality"]["time_jumps"];
    assert_eq!(
        jumps,
        &serde_json::json!([{"cpu": 0, "from_ns": 1_000_000_000u64, "to_ns": 10_000_000_001_000_000_000u64}])
    );
}

/// The same two tasks over 25 ms: windows closed one by one still give exact counts (2 of
/// 10 ms; none of 100 ms), and a gap under an hour is no jump.
#[test]
fn short_gaps_keep_the_window_count_and_are_no_jump() {
    let dir = scratch("short");
    let path = dir.join("short.txt");
    let mut text = String::from(
        "          <idle>-0     [000] d..2.     1.000000: sched_wakeup: comm=b pid=2 prio=120 target_cpu=000\n",
    );
    text += &switch_line("1.000000", ("<idle>", 0), "R", ("a", 1));
    text += &switch_line("1.025000", ("a", 1), "R", ("b", 2));
    std::fs::write(&path, text).unwrap();
    let report = analyze_json(&path);
    let short = &report["system"]["fairness"]["short_term"];
    assert_eq!(short[0]["windows"], 2);
    assert_eq!(short[1]["windows"], 0);
    assert_eq!(report["quality"].get("time_jumps"), None);
}

/// A switch at u64::MAX ns: the window end saturates there and must not loop.
#[test]
fn a_timestamp_of_u64_max_ns_ends() {
    let dir = scratch("max");
    for (name, text) in [
        (
            "one.txt",
            switch_line("18446744073.709551615", ("<idle>", 0), "R", ("a", 1)),
        ),
        (
            "two.txt",
            switch_line("1.000000", ("<idle>", 0), "R", ("a", 1))
                + &switch_line("18446744073.709551615", ("a", 1), "R", ("<idle>", 0)),
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let report = analyze_json(&path);
        let jumps = report["quality"]
            .get("time_jumps")
            .map_or(0, |j| j.as_array().unwrap().len());
        assert_eq!(jumps, usize::from(name == "two.txt"), "{name}");
    }
}

/// The trace.dat `dat` with bit 62 set in the timestamp of CPU 1's page `page` (`None`: its
/// last), analysed.
fn with_bit_62(mut dat: Vec<u8>, page: Option<usize>, name: &str) -> (Value, usize) {
    // v6: after "flyrecord\0" one (offset, size) pair per CPU, little-endian.
    let fly = dat.windows(10).position(|w| w == b"flyrecord\0").unwrap() + 10;
    let word = |at: usize| u64::from_le_bytes(dat[at..at + 8].try_into().unwrap()) as usize;
    let (cpu1, size) = (word(fly + 16), word(fly + 24));
    let at = cpu1 + page.unwrap_or(size / 4096 - 1) * 4096;
    let ts = word(at) as u64 | 1 << 62;
    dat[at..at + 8].copy_from_slice(&ts.to_le_bytes());
    let path = scratch(name).join("mi.dat");
    std::fs::write(&path, dat).unwrap();
    (analyze_json(&path), at)
}

fn event_sum(report: &Value) -> u64 {
    report["quality"]["events"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum()
}

/// Bit 62 set in the timestamp of one page header of a real trace.dat (CPU 1). On its last page
/// the analysis ends at once and the ledger names the jump on CPU 1, every event read. On its
/// third page, whose records then run far past the next page's time, the page is taken for
/// damage: skipped and named, no jump.
#[test]
fn bit_62_in_a_trace_dat_page_timestamp_is_a_named_jump() {
    let Some(dat) = shared_trace("cfs-6.1-vm/mi/trace-v6.dat.xz") else {
        return;
    };
    let (report, _) = with_bit_62(dat.clone(), None, "bit62last");
    let jumps = report["quality"]["time_jumps"].as_array().unwrap();
    assert_eq!(jumps.len(), 1);
    assert_eq!(jumps[0]["cpu"], 1);
    assert!(jumps[0]["to_ns"].as_u64().unwrap() >= 1 << 62);
    assert_eq!(event_sum(&report), 1452);
    assert!(
        report["quality"]["skipped"].is_null(),
        "{}",
        report["quality"]
    );

    let (report, at) = with_bit_62(dat, Some(2), "bit62third");
    assert!(
        report["quality"]["time_jumps"].is_null(),
        "{}",
        report["quality"]
    );
    let skipped = report["quality"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0]["cpu"], 1);
    assert_eq!(skipped[0]["offset"], at as u64 + 16);
    let reason = skipped[0]["reason"].as_str().unwrap();
    assert!(reason.contains("past the next page's"), "{reason}");
    assert!(event_sum(&report) < 1452);
}

/// A two-line trace from 80 s: `--time` in seconds from 0 selects nothing and says so;
/// `+0.1,+0.3` (relative) and `80.1s,300ms`-style units select the middle.
#[test]
fn time_outside_the_trace_warns_and_relative_times_select() {
    let dir = scratch("reltime");
    let path = dir.join("t.txt");
    let text = switch_line("80.000000", ("<idle>", 0), "R", ("a", 1))
        + &switch_line("80.500000", ("a", 1), "S", ("<idle>", 0));
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let r = run(
        &["analyze", p, "--time", "0.5,1.5", "--json", "-"],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(0);
    assert!(
        r.stderr.contains("warning: --time 0.5,1.5 is outside the trace, which runs from 80.000000 s to 80.500000 s"),
        "{}",
        r.stderr
    );
    for args in [["--time", "+0.1,+0.3"], ["--time", "80.1s,80300ms"]] {
        let mut all = vec!["analyze", p, "--json", "-"];
        all.extend_from_slice(&args);
        let r = run(&all, None, Duration::from_secs(10));
        r.expect_code(0);
        assert_eq!(r.stderr, "", "{args:?}");
        let report: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(report["window"]["start_ns"], 80_100_000_000u64, "{args:?}");
        assert_eq!(report["window"]["end_ns"], 80_300_000_000u64, "{args:?}");
        let a = report["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["pid"] == 1)
            .unwrap();
        assert_eq!(a["runtime_ns"], 200_000_000u64, "{args:?}");
    }
}

/// Filters that match nothing say so on stderr; an invalid `--comm` regex is an error before
/// the trace is read.
#[test]
fn empty_filters_warn_and_a_bad_regex_is_an_error() {
    let dir = scratch("filters");
    let path = dir.join("t.txt");
    let text = switch_line("80.000000", ("<idle>", 0), "R", ("mintr", 1))
        + &switch_line("80.500000", ("mintr", 1), "S", ("<idle>", 0));
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    let warned = |args: &[&str], want: &str| {
        let mut all = vec!["analyze", p];
        all.extend_from_slice(args);
        let r = run(&all, None, Duration::from_secs(10));
        r.expect_code(0);
        assert!(r.stderr.contains(want), "{args:?}: {}", r.stderr);
    };
    warned(
        &["-p", "4242"],
        "warning: -p 4242: no task with that pid in the trace (1 task;",
    );
    warned(&["-C", "9"], "warning: -C: the trace has CPU 0, not 9");
    warned(
        &["--comm", "xyz"],
        "warning: --comm \"xyz\" matches no task name; names in the trace: mintr",
    );
    warned(
        &["--group", "process"],
        "warning: --group process: the trace records no tgids",
    );
    let r = run(
        &["analyze", p, "--comm", "mintr["],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(2);
    assert!(
        r.stderr
            .contains("--comm \"mintr[\" is not a valid regular expression"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("\"mintr\\\\[\""), "{}", r.stderr);
}

fn fixture(rel: &str) -> Vec<u8> {
    let raw =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/").to_string() + rel).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut xz2::read::XzDecoder::new(&raw[..]), &mut out).unwrap();
    out
}

/// A pipe-mode perf.data with perf's own closing lines appended (`> file 2>&1`): the records
/// are read (exactly as many events as without the tail) and the tail is named.
#[test]
fn text_after_a_pipe_mode_perf_data_is_named_not_fatal() {
    let clean = fixture("perfdata/sched-events.pipe.data.xz");
    let tail = b"[ perf record: Woken up 1 times to write data ]\n[ perf record: Captured and wrote 0.000 MB - ]\n";
    let dir = scratch("perftail");
    let (a, b) = (dir.join("clean.data"), dir.join("tail.data"));
    std::fs::write(&a, &clean).unwrap();
    std::fs::write(&b, [&clean[..], tail].concat()).unwrap();
    let (want, got) = (analyze_json(&a), analyze_json(&b));
    assert_eq!(want["quality"]["events"], got["quality"]["events"]);
    assert_eq!(
        got["quality"]["skipped"],
        serde_json::json!([{
            "cpu": null,
            "offset": clean.len(),
            "bytes": tail.len(),
            "reason": format!("{} bytes of text after the last record: \"[ perf record: Woken up 1 times to write data ]\"", tail.len()),
        }])
    );
    let r = run(
        &["analyze", b.to_str().unwrap(), "--strict"],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(2);
}

/// 4 KiB of random bytes over page 10 of CPU 1 of a real trace.dat: that page is skipped and
/// listed, every other page read; `--strict` keeps the hard error.
#[test]
fn a_random_page_in_a_trace_dat_is_skipped_and_listed() {
    let Some(mut dat) = shared_trace("cfs-6.1-vm/mi/trace-v6.dat.xz") else {
        return;
    };
    let fly = dat.windows(10).position(|w| w == b"flyrecord\0").unwrap() + 10;
    let cpu1 = u64::from_le_bytes(dat[fly + 16..fly + 24].try_into().unwrap()) as usize;
    let page = cpu1 + 10 * 4096;
    // A fixed xorshift stream: the same "random" page every run, whose commit word is absurd.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in &mut dat[page..page + 4096] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let dir = scratch("randpage");
    let path = dir.join("mi.dat");
    std::fs::write(&path, &dat).unwrap();
    let report = analyze_json(&path);
    let skipped = report["quality"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0]["cpu"], 1);
    assert_eq!(skipped[0]["offset"], page as u64 + 8);
    assert_eq!(skipped[0]["bytes"], 4096 - 8);
    assert!(skipped[0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("corrupt page: commit says"));
    let lost = report["quality"]["lost_events"].as_array().unwrap();
    assert!(
        lost.iter().any(|l| l["cpu"] == 1 && l["count"].is_null()),
        "{lost:?}"
    );
    let r = run(
        &["analyze", path.to_str().unwrap(), "--strict"],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(2);
    assert!(r.stderr.contains("corrupt page"), "{}", r.stderr);
}

/// Three tasks start on three CPUs at 1 s; at 1e10 s each CPU switches out a task it never
/// switched in (a context-switch bug): every task's time from 1 s on is unknown, some 1e19 ns
/// each, whose sum passes u64 ns (found by the `pipeline` fuzz target on a perf.data with a
/// corrupt timestamp). Sums saturate instead of wrapping or panicking, and the 10 ms series
/// over the 1e10 s window stops at its window limit instead of allocating for all of it.
#[test]
fn unknown_time_past_u64_in_total_saturates_and_the_series_is_cut() {
    let dir = scratch("saturate");
    let path = dir.join("saturate.txt");
    let cpu_line = |cpu: usize, line: String| line.replacen("[000]", &format!("[{cpu:03}]"), 1);
    let mut text = String::new();
    for c in 0..3 {
        let a = format!("a{c}");
        text += &cpu_line(
            c,
            switch_line(
                &format!("1.00000{c}"),
                ("<idle>", 0),
                "R",
                (&a, 10 + c as i32),
            ),
        );
    }
    for c in 0..3 {
        let z = format!("z{c}");
        text += &cpu_line(
            c,
            switch_line(
                &format!("10000000001.00000{c}"),
                (&z, 20 + c as i32),
                "S",
                ("<idle>", 0),
            ),
        );
    }
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    for group in ["pid", "name"] {
        let r = run(
            &[
                "analyze", file, "--group", group, "--series", "10ms", "--json", "-",
            ],
            None,
            Duration::from_secs(20),
        );
        r.expect_code(0).expect_bounded(128, 10);
        let report: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(
            report["quality"]["context_switch_bugs"],
            serde_json::json!([{"cpu": 0, "count": 1}, {"cpu": 1, "count": 1}, {"cpu": 2, "count": 1}]),
            "{group}"
        );
        // Each a-task is unknown for about 1e19 ns: their total is the ceiling, not a wrap.
        assert_eq!(report["quality"]["unknown_ns"], u64::MAX, "{group}");
        let series = &report["series"];
        assert_eq!(series["windows"], analysis::series::MAX_WINDOWS as u64);
        let cut = 1_000_000_000u64 + analysis::series::MAX_WINDOWS as u64 * 10_000_000;
        assert_eq!(series["cut_at_ns"], cut, "{group}");
        assert!(
            r.stderr.contains("--series: the window holds more than"),
            "{}",
            r.stderr
        );
    }
    for view in ["1", "4", "9"] {
        let r = run(
            &["tui", "--print", "--keys", view, file],
            None,
            Duration::from_secs(20),
        );
        r.expect_code(0).expect_bounded(256, 10);
    }
}
