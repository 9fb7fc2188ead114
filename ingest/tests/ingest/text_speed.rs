//! Throughput of the text reader (ignored by default; run in release):
//! `cargo test --release -p schedtrace-ingest --test ingest text_speed -- --ignored --nocapture`

use crate::text_common::*;
use ingest::Event;
use std::time::Instant;

#[test]
#[ignore]
fn throughput_on_the_largest_text_trace() {
    let bytes = load(&shared(
        "eevdf-6.18-host/pipe_pinned/perf.sched.script.txt.xz",
    ));
    // The same text 16 times over (~68 MB), each copy 10000 s later (still sorted), and
    // plainly repeated (every copy goes back in time: the sort path).
    let sorted = shifted_copies(&bytes, 16);
    let unsorted: Vec<u8> = bytes.repeat(16);
    for (label, input) in [
        ("perf.sched.script.txt (4.2 MB) x1", &bytes),
        ("x16 sorted (68 MB)", &sorted),
        ("x16 unsorted joins (68 MB)", &unsorted),
    ] {
        let rounds = if input.len() < 10 << 20 { 20 } else { 2 };
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        let mut events = 0u64;
        for _ in 0..rounds {
            ingest::text::read(input, &mut |_: &Event| events += 1).unwrap();
        }
        let secs = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu_start;
        let mb = (input.len() * rounds) as f64 / 1e6;
        // The machine is shared: CPU time says what the reader costs, wall time what it got.
        eprintln!(
            "{label}: wall {:.0} MB/s, {:.2} M events/s; per CPU-second {:.0} MB, {:.2} M events ({} threads)",
            mb / secs,
            events as f64 / secs / 1e6,
            mb / cpu,
            events as f64 / cpu / 1e6,
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
    }
}

/// `copies` copies of perf script text, copy k with 10000*k s added to each timestamp.
fn shifted_copies(text: &[u8], copies: u64) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut out = String::with_capacity(text.len() * copies as usize + 1024);
    for k in 0..copies {
        for line in text.lines() {
            let Some(close) = line.find("] ") else {
                out.push_str(line);
                out.push('\n');
                continue;
            };
            let rest = &line[close + 2..];
            let pad = rest.len() - rest.trim_start().len();
            let dot = rest.find('.').unwrap();
            let secs: u64 = rest[pad..dot].parse().unwrap();
            out.push_str(&line[..close + 2 + pad]);
            out.push_str(&(secs + 10_000 * k).to_string());
            out.push_str(&rest[dot..]);
            out.push('\n');
        }
    }
    out.into_bytes()
}

/// CPU time of this process (user + system), from /proc/self/stat (clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let after_comm = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    // Fields 14 and 15 of stat(5), counted from `state` = field 3.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}
