//! Decompression bombs and inputs that are not regular files (issue #11 items 2 and 3): a
//! whole-file wrapper is sniffed before it inflates, inflation is capped per input, FIFOs and
//! process substitutions are read as streams.

use crate::hostile_support::{run, scratch, switch_line};
use std::io::Write;
use std::time::Duration;

fn zstd_file(path: &std::path::Path, mut fill: impl FnMut(&mut dyn Write)) {
    let file = std::fs::File::create(path).unwrap();
    let mut enc = zstd::stream::Encoder::new(file, 3).unwrap();
    fill(&mut enc);
    enc.finish().unwrap();
}

/// 2.5 GB of zeros in an 80 KB `.zst`: refused from the first 64 KiB, in a few MB.
#[test]
fn a_zst_of_zeros_is_refused_before_it_inflates() {
    let dir = scratch("zeros");
    let path = dir.join("zeros.zst");
    zstd_file(&path, |w| {
        std::io::copy(
            &mut std::io::Read::take(std::io::repeat(0), 2_500_000_000),
            w,
        )
        .unwrap();
    });
    let r = run(
        &["analyze", path.to_str().unwrap()],
        None,
        Duration::from_secs(20),
    );
    r.expect_code(2).expect_bounded(64, 5);
    assert!(
        r.stderr
            .contains("zeros.zst: offset 0 (0x0): inside the zstd wrapper: unknown format"),
        "{}",
        r.stderr
    );
}

/// Valid trace text that inflates 10000x: stops at 64x the file + 64 MiB with the limit
/// named; `--max-inflate` moves the limit.
#[test]
fn a_text_bomb_stops_at_the_inflation_limit() {
    let dir = scratch("textbomb");
    let path = dir.join("text.zst");
    let line = switch_line("1.000000", ("<idle>", 0), "R", ("a", 1));
    zstd_file(&path, |w| {
        for _ in 0..(3_000_000_000 / line.len()) {
            w.write_all(line.as_bytes()).unwrap();
        }
    });
    let size = std::fs::metadata(&path).unwrap().len();
    let limit = 64 * size + (64 << 20);
    let r = run(
        &["analyze", path.to_str().unwrap()],
        None,
        Duration::from_secs(30),
    );
    r.expect_code(2).expect_bounded(limit / (1 << 20) + 48, 10);
    let want = format!(
        "over the limit of {limit} bytes (64x the {size} compressed bytes read + 64 MiB); raise it with --max-inflate SIZE"
    );
    assert!(r.stderr.contains(&want), "{}\nwant {want}", r.stderr);
    let r = run(
        &["analyze", path.to_str().unwrap(), "--max-inflate", "150M"],
        None,
        Duration::from_secs(30),
    );
    r.expect_code(2).expect_bounded(150 + 48, 10);
    assert!(
        r.stderr
            .contains("over the limit of 157286400 bytes (--max-inflate)"),
        "{}",
        r.stderr
    );
}

/// A small honest `.zst` reads as before.
#[test]
fn an_honest_zst_reads_whole() {
    let dir = scratch("honest");
    let path = dir.join("t.txt.zst");
    let text = switch_line("1.000000", ("<idle>", 0), "R", ("a", 1))
        + &switch_line("1.500000", ("a", 1), "S", ("<idle>", 0));
    zstd_file(&path, |w| w.write_all(text.as_bytes()).unwrap());
    let r = run(
        &["analyze", path.to_str().unwrap(), "--json", "-"],
        None,
        Duration::from_secs(20),
    );
    r.expect_code(0).expect_bounded(64, 5);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["quality"]["events"]["sched_switch"], 2);
}

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A FIFO nobody writes to: no hang in open(), an error that says what is wrong.
#[test]
fn a_fifo_without_a_writer_does_not_block() {
    let dir = scratch("fifo-empty");
    let path = dir.join("fifo");
    mkfifo(&path);
    let r = run(
        &["analyze", path.to_str().unwrap()],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(2).expect_bounded(64, 3);
    assert!(
        r.stderr
            .contains("fifo: a FIFO with no writer: start the program that writes it first"),
        "{}",
        r.stderr
    );
}

/// A FIFO with a writer (as `<(xz -dc t.xz)` gives): read as a stream, the whole trace.
#[test]
fn a_fifo_with_a_writer_is_read_as_a_stream() {
    let dir = scratch("fifo-writer");
    let path = dir.join("fifo");
    mkfifo(&path);
    let text = switch_line("1.000000", ("<idle>", 0), "R", ("a", 1))
        + &switch_line("1.500000", ("a", 1), "S", ("<idle>", 0));
    // Read-write: opening it never blocks, and it is a writer before schedtrace starts.
    let mut writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let feeder = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        writer.write_all(text.as_bytes()).unwrap();
    });
    let r = run(
        &["analyze", path.to_str().unwrap(), "--json", "-"],
        None,
        Duration::from_secs(10),
    );
    feeder.join().unwrap();
    r.expect_code(0).expect_bounded(64, 3);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report["quality"]["events"]["sched_switch"], 2);
}

/// A directory gets words, not "unknown format".
#[test]
fn a_directory_is_named_as_one() {
    let dir = scratch("dir");
    let r = run(
        &["analyze", dir.to_str().unwrap()],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(2);
    assert!(
        r.stderr.contains(
            "is a directory, not a trace file, nor a schedviz capture (traces/ and formats/ in it)"
        ),
        "{}",
        r.stderr
    );
}

/// `perf script` text of cpu-clock samples only: a report that says there are no scheduler
/// events and how to record them, exit 0 (as for a binary perf.data with only cycles).
#[test]
fn a_trace_without_sched_events_is_a_report_that_says_so() {
    let dir = scratch("nosched");
    let path = dir.join("script.txt");
    std::fs::write(
        &path,
        "            perf  7496/7496  [003] 264874.155353:    1001001 cpu-clock: \n\t    ffffffff8a0a6f0e native_safe_halt+0xe ([kernel.kallsyms])\n",
    )
    .unwrap();
    let r = run(
        &["analyze", path.to_str().unwrap()],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(0);
    assert!(
        r.stderr.contains("warning: no scheduler events in the trace (it has: cpu-clock 1): record them with `perf sched record -- CMD`"),
        "{}",
        r.stderr
    );
}

/// Odd inputs get words that say what they are (issue #11 item 12).
#[test]
fn a_tar_archive_and_a_cut_perf_data_are_named() {
    let dir = scratch("odd");
    let tar = dir.join("traces.tar");
    let mut header = vec![0u8; 1024];
    header[..9].copy_from_slice(b"trace.dat");
    header[257..263].copy_from_slice(b"ustar\0");
    std::fs::write(&tar, header).unwrap();
    let r = run(
        &["analyze", tar.to_str().unwrap()],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(2);
    assert!(
        r.stderr
            .contains("offset 257 (0x101): a tar archive that is not a schedviz capture ("),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("); extract it (tar xf) and give the trace.dat / perf.data inside"),
        "{}",
        r.stderr
    );
    let cut = dir.join("perf.data");
    std::fs::write(&cut, b"PERF").unwrap();
    let r = run(
        &["analyze", cut.to_str().unwrap()],
        None,
        Duration::from_secs(10),
    );
    r.expect_code(2);
    assert!(
        r.stderr
            .contains("only 4 bytes, the start of a perf.data: the file is cut short"),
        "{}",
        r.stderr
    );
}
