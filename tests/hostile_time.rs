//! Timestamps far apart (issue #11 item 1): the short-term fairness windows between two
//! events cost nothing however many there are, and the jump is named in the ledger.

mod hostile_support;

use hostile_support::{run, scratch, shared_trace, switch_line};
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

/// Bit 62 set in the timestamp of one page header of a real trace.dat (CPU 1, its third
/// page): the analysis ends at once and the ledger names the jump on CPU 1.
#[test]
fn bit_62_in_a_trace_dat_page_timestamp_is_a_named_jump() {
    let Some(mut dat) = shared_trace("cfs-6.1-vm/mi/trace-v6.dat.xz") else {
        return;
    };
    // v6: after "flyrecord\0" one (offset, size) pair per CPU, little-endian.
    let fly = dat.windows(10).position(|w| w == b"flyrecord\0").unwrap() + 10;
    let cpu1 = u64::from_le_bytes(dat[fly + 16..fly + 24].try_into().unwrap()) as usize;
    let page = cpu1 + 2 * 4096;
    let ts = u64::from_le_bytes(dat[page..page + 8].try_into().unwrap()) | 1 << 62;
    dat[page..page + 8].copy_from_slice(&ts.to_le_bytes());
    let dir = scratch("bit62");
    let path = dir.join("mi.dat");
    std::fs::write(&path, dat).unwrap();
    let report = analyze_json(&path);
    let jumps = report["quality"]["time_jumps"].as_array().unwrap();
    assert_eq!(jumps.len(), 1);
    assert_eq!(jumps[0]["cpu"], 1);
    assert!(jumps[0]["to_ns"].as_u64().unwrap() >= 1 << 62);
    let events: u64 = report["quality"]["events"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(events, 1452);
}
