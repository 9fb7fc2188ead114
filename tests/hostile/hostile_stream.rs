//! Inputs that are not regular files and never end (issue 31): a character device, a FIFO, a
//! pipe on standard input, a compressed stream. Each is told from its first bytes before more is
//! read, or held within a stated bound, and ends with exit 2 within a time and peak-RSS bound.

use crate::hostile_support::{run, run_fed, scratch, Run};
use std::io::Write;
use std::process::ChildStdin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The peak RSS of a stream refused from its head: it reads 64 KiB and needs ~7 MiB alone; the
/// margin is for what the test process lends a child spawned while it holds buffers (`main.rs`).
const REFUSED_MIB: u64 = 96;
const EXPECTED: &str = "expected trace.dat, perf.data, Perfetto protobuf or trace text";
const ZEROS: &str = "unknown format: starts with [00, 00, 00, 00, 00, 00, 00, 00]";
/// A real trace.dat of the repository (its header, then its pages).
const TRACE_DAT: &str = "pipe_pinned.eevdf-6.18.trace.dat";

fn analyze_stream(args: &[&str], feed: impl FnOnce(ChildStdin) + Send + 'static) -> Run {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    run_fed(&all, Some(Box::new(feed)), Duration::from_secs(60))
}

/// Writes `chunk` over and over (at most `total` bytes) until the reader goes away.
fn write_repeated(mut to: impl Write, chunk: &[u8], total: u64) {
    let mut written = 0;
    while written < total && to.write_all(chunk).is_ok() {
        written += chunk.len() as u64;
    }
}

/// Bytes that are no trace and do not compress: a linear congruential generator's.
fn garbage(n: usize) -> Vec<u8> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect()
}

fn expect_stderr(r: &Run, want: &str) {
    assert!(r.stderr.contains(want), "{}\nwant {want}", r.stderr);
}

/// `/dev/zero`, a character device that never ends: refused from its first 64 KiB.
#[test]
fn dev_zero_is_refused_at_once() {
    let r = run(&["analyze", "/dev/zero"], None, Duration::from_secs(20));
    r.expect_code(2).expect_bounded(REFUSED_MIB, 5);
    expect_stderr(
        &r,
        &format!("/dev/zero: offset 0 (0x0): {ZEROS}; {EXPECTED}"),
    );
}

/// `/dev/urandom`: refused from its head whatever it starts with (one time in 256 a 0x0a, the
/// key of a Perfetto packet; one in 65536 the magic of a gzip wrapper).
#[test]
fn dev_urandom_is_refused_at_once() {
    for _ in 0..4 {
        let r = run(&["analyze", "/dev/urandom"], None, Duration::from_secs(20));
        r.expect_code(2).expect_bounded(REFUSED_MIB, 5);
        expect_stderr(&r, "/dev/urandom: offset 0 (0x0): ");
    }
}

/// A FIFO whose writer sends zeros without end.
#[test]
fn an_endless_fifo_of_zeros_is_refused_at_once() {
    let dir = scratch("fifo-zeros");
    let path = dir.join("fifo");
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Read-write, so that it has a writer before schedtrace opens it; non-blocking, so that the
    // writer can stop once schedtrace is gone (its own read end keeps the FIFO open).
    let mut writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on our own open descriptor with integer arguments.
        unsafe { libc::fcntl(writer.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
    }
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let feeder = std::thread::spawn(move || {
        let zeros = vec![0u8; 1 << 16];
        let mut written = 0u64;
        while !stopped.load(Ordering::Relaxed) {
            match writer.write(&zeros) {
                Ok(n) => written += n as u64,
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        written
    });
    let r = run(
        &["analyze", path.to_str().unwrap()],
        None,
        Duration::from_secs(20),
    );
    stop.store(true, Ordering::Relaxed);
    let written = feeder.join().unwrap();
    r.expect_code(2).expect_bounded(REFUSED_MIB, 5);
    expect_stderr(&r, &format!("fifo: offset 0 (0x0): {ZEROS}; {EXPECTED}"));
    assert!(written >= 1 << 16, "the writer wrote {written} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}

/// 3 GB of zeros piped to standard input: refused from the first 64 KiB, not read whole.
#[test]
fn three_gb_of_zeros_on_stdin_are_refused_at_once() {
    let r = analyze_stream(&["-"], |pipe| {
        write_repeated(pipe, &[0u8; 1 << 20], 3_000_000_000)
    });
    r.expect_code(2).expect_bounded(REFUSED_MIB, 5);
    expect_stderr(&r, &format!("-: offset 0 (0x0): {ZEROS}; {EXPECTED}"));
}

/// `yes | schedtrace analyze -`: text without end and without an event line, refused from its
/// first 64 KiB (it used to be held up to the memory bound before the text reader refused it).
#[test]
fn endless_text_with_no_event_line_on_stdin_is_refused_at_once() {
    let r = analyze_stream(&["-"], |pipe| {
        write_repeated(pipe, &b"y\n".repeat(1 << 19), u64::MAX)
    });
    r.expect_code(2).expect_bounded(REFUSED_MIB, 5);
    expect_stderr(
        &r,
        "-: offset 0 (0x0): text with no event line in its first 64 KiB: expected trace text",
    );
}

/// The first MiB of a real trace.dat, then garbage without end, on standard input: held up to
/// the bound (`--max-inflate`), then an error naming the offset, the format and the bound.
#[test]
fn a_trace_dat_head_then_endless_garbage_stops_at_the_bound() {
    let dat = std::fs::read(fixtures::file(TRACE_DAT)).unwrap();
    let head = dat[..1 << 20].to_vec();
    let r = analyze_stream(&["-", "--max-inflate", "256M"], move |mut pipe| {
        if pipe.write_all(&head).is_ok() {
            write_repeated(pipe, &garbage(1 << 20), u64::MAX);
        }
    });
    r.expect_code(2).expect_bounded(256 + 64, 20);
    expect_stderr(
        &r,
        "-: offset 268435456 (0x10000000): a trace.dat is read whole, and a stream (not a regular \
         file, which is mapped) is held in memory up to 268435456 bytes (--max-inflate): this one \
         is longer; give the file itself, or raise the limit with --max-inflate SIZE",
    );
}

/// A zstd stream of zeros without end: its inflated head is refused at once.
#[test]
fn an_endless_zstd_stream_of_zeros_is_refused_at_once() {
    let r = analyze_stream(&["-"], |pipe| {
        let Ok(mut enc) = zstd::stream::Encoder::new(pipe, 1) else {
            return;
        };
        write_repeated(&mut enc, &[0u8; 1 << 20], u64::MAX);
    });
    r.expect_code(2).expect_bounded(REFUSED_MIB, 5);
    expect_stderr(
        &r,
        &format!("-: offset 0 (0x0): inside the zstd wrapper: {ZEROS}; {EXPECTED}"),
    );
}

/// A zstd stream that inflates without end behind a valid trace.dat head: the inflation budget
/// of a compressed input (64 times the compressed bytes read + 64 MiB) stops it.
#[test]
fn an_endless_zstd_stream_of_a_trace_dat_head_stops_at_the_budget() {
    let dat = std::fs::read(fixtures::file(TRACE_DAT)).unwrap();
    // A quarter MiB that compresses to less: the budget stays under 64 + 16 MiB.
    let head = dat[..1 << 18].to_vec();
    let r = analyze_stream(&["-"], move |pipe| {
        let Ok(mut enc) = zstd::stream::Encoder::new(pipe, 1) else {
            return;
        };
        if enc.write_all(&head).is_ok() {
            write_repeated(&mut enc, &[0u8; 1 << 20], u64::MAX);
        }
    });
    r.expect_code(2).expect_bounded(80 + 48, 20);
    for want in [
        "-: offset ",
        ": zstd decompression failed after ",
        " output bytes: decompression bomb? the zstd wrapper would inflate the input to ",
        " compressed bytes read + 64 MiB); raise it with --max-inflate SIZE",
    ] {
        expect_stderr(&r, want);
    }
}

/// A Perfetto trace on standard input (which must frame as packets over its first 64 KiB)
/// gives the report of the same file.
#[test]
fn a_perfetto_trace_on_stdin_reads_as_the_file() {
    let dir = scratch("perfetto-stdin");
    let out = dir.join("t.pftrace");
    let dat = fixtures::file(TRACE_DAT);
    run(
        &[
            "convert",
            dat.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        None,
        Duration::from_secs(60),
    )
    .expect_code(0);
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.len() > 1 << 16, "{} bytes", bytes.len());
    let file = run(
        &["analyze", out.to_str().unwrap(), "--json", "-"],
        None,
        Duration::from_secs(60),
    );
    let piped = run(
        &["analyze", "-", "--json", "-"],
        Some(bytes),
        Duration::from_secs(60),
    );
    file.expect_code(0);
    piped.expect_code(0).expect_bounded(256, 30);
    let (file, piped): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&file.stdout).unwrap(),
        serde_json::from_str(&piped.stdout).unwrap(),
    );
    assert!(file["quality"]["events"]["sched_switch"].as_u64().unwrap() > 1000);
    assert_eq!(piped["quality"], file["quality"]);
    assert_eq!(piped["tasks"], file["tasks"]);
    let _ = std::fs::remove_dir_all(&dir);
}
