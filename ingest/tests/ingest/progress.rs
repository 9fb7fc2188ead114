//! `ingest::Progress` seen from another thread, as a progress bar sees it: while a real trace of
//! every format loads, the byte counter only rises and ends at the total, and the event counter
//! ends at the number of events the sink got; a cancelled load stops within one chunk of work
//! with the distinct cancellation error.

use ingest::{Event, Progress};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::thread;

/// The inputs: one per reader, uncompressed (6-8 MB, several chunks of every reader), and one
/// compressed file (the decompressor's share). Made once per test binary (the tests run in
/// parallel threads of one process).
fn inputs() -> &'static [(&'static str, PathBuf)] {
    static INPUTS: OnceLock<Vec<(&'static str, PathBuf)>> = OnceLock::new();
    INPUTS.get_or_init(|| {
        vec![
            ("trace.dat v6", plain("eevdf-6.12-vm/pp2/trace-v6.dat.xz")),
            (
                "trace.dat v7",
                plain("eevdf-6.18-host/pipe_pinned/trace.v7-nocomp.dat.xz"),
            ),
            (
                "perf.data",
                plain("eevdf-6.18-host/massive_intr/perf.sched.data.xz"),
            ),
            (
                "trace-cmd report text",
                plain("pds-6.1-vm/pp2/report.txt.xz"),
            ),
            ("Perfetto", perfetto_file()),
            ("xz", fixtures::trace("eevdf-6.12-vm/pp2/trace-v6.dat.xz")),
        ]
    })
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("progress");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Writes `out` with `make` unless an earlier run did (renamed into place when complete).
fn once(out: PathBuf, make: impl FnOnce(&Path)) -> PathBuf {
    if !out.exists() {
        let partial = out.with_extension(format!("{}.partial", std::process::id()));
        make(&partial);
        std::fs::rename(&partial, &out).unwrap();
    }
    out
}

/// A fixture trace decompressed into the scratch folder.
fn plain(rel: &str) -> PathBuf {
    let name = rel.replace('/', "_").trim_end_matches(".xz").to_string();
    once(scratch(&name), |to| {
        std::fs::write(to, &*ingest::source::load(&fixtures::trace(rel)).unwrap()).unwrap()
    })
}

/// The pp2 trace.dat written as Perfetto.
fn perfetto_file() -> PathBuf {
    once(scratch("pp2.perfetto-trace"), |to| {
        let from = fixtures::trace("eevdf-6.12-vm/pp2/trace-v6.dat.xz");
        ingest::perfetto::convert(&from, to, Default::default(), Default::default()).unwrap();
    })
}

/// Loads `path` while another thread samples the byte counter until the load is over.
fn load_watched(path: &Path) -> (Vec<u64>, u64, Progress) {
    let progress = Progress::new();
    let done = AtomicBool::new(false);
    let mut events = 0u64;
    let samples = thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut seen = Vec::new();
            while !done.load(Ordering::Acquire) {
                seen.push(progress.bytes());
                thread::yield_now();
            }
            seen
        });
        ingest::read_path_with(path, &mut |_: &Event| events += 1, &progress)
            .unwrap_or_else(|e| panic!("{e}"));
        done.store(true, Ordering::Release);
        watcher.join().unwrap()
    });
    (samples, events, progress)
}

#[test]
fn the_counter_rises_monotonically_to_the_total_while_a_trace_loads() {
    for (what, path) in inputs() {
        // Whether the watcher gets the CPU while a load is under way is up to the scheduler (a
        // load takes tens of ms); every attempt checks the counter, the attempts only wait for
        // one in which the watcher saw it between 0 and the total.
        let mut between = 0;
        for attempt in 1..=ATTEMPTS {
            let (samples, events, progress) = load_watched(path);
            let total = progress.total().expect("a file has a total");
            assert!(
                samples.windows(2).all(|w| w[0] <= w[1]),
                "{what}: the byte counter went back"
            );
            assert!(
                samples.iter().all(|&b| b <= total),
                "{what}: past the total"
            );
            assert_eq!(
                progress.bytes(),
                total,
                "{what}: not at the total at the end"
            );
            assert_eq!(progress.events(), events, "{what}: event counter");
            let unpacked = ingest::source::load(path).unwrap().len() as u64;
            let packed = std::fs::metadata(path).unwrap().len();
            // A compressed file is worked through twice: compressed, then plain.
            let expected = if unpacked == packed {
                unpacked
            } else {
                unpacked + packed
            };
            assert_eq!(total, expected, "{what}: total");
            between = samples.iter().filter(|&&b| b > 0 && b < total).count();
            if between > 0 {
                eprintln!(
                    "{what}: attempt {attempt}: {} samples, {between} between 0 and {total}, {events} events",
                    samples.len()
                );
                break;
            }
        }
        assert!(
            between > 0,
            "{what}: no intermediate value in {ATTEMPTS} loads"
        );
    }
}

/// Loads of one input before the watcher must have seen it under way.
const ATTEMPTS: usize = 50;

/// The most bytes a reader may still report after `cancel()`: the chunks already under way,
/// one per worker. trace.dat fills 64 pages of each CPU in parallel (up to 4 CPUs here, 4 KiB
/// pages); text parses chunks of 1 MiB (8 MB of text in 2 threads x 4 chunks: the minimum),
/// extended to the end of a line, on each rayon thread; perf.data and Perfetto report every 256 KiB, at the first record or
/// packet boundary past it (a record is at most 64 KiB); a decompressor pulls blocks of a few KiB.
fn one_chunk(what: &str) -> u64 {
    let threads = rayon::current_num_threads().max(2) as u64;
    match what {
        w if w.starts_with("trace.dat") => 4 * 64 * 4096,
        w if w.starts_with("trace-cmd report") => threads * ((1 << 20) + 4096),
        "xz" => 64 << 10,
        _ => (256 << 10) + (64 << 10),
    }
}

/// Reads `path` with `progress`, expecting the cancellation error; returns where it stopped.
fn read_cancelled(what: &str, path: &Path, progress: &Progress) -> u64 {
    let result = ingest::read_path_with(path, &mut |_: &Event| {}, progress);
    let err = result.expect_err(what);
    assert!(err.is_cancelled(), "{what}: {err}");
    let stopped = progress.bytes();
    let total = progress.total().unwrap();
    assert!(stopped < total, "{what}: read to the end ({total} bytes)");
    stopped
}

/// Cancelled before it starts, every reader stops at its first chunk boundary: each one looks
/// at the flag there (a reader that did not would read to the end).
#[test]
fn a_load_cancelled_up_front_stops_at_the_first_chunk() {
    for (what, path) in inputs() {
        let progress = Progress::new();
        progress.cancel();
        let stopped = read_cancelled(what, path, &progress);
        assert!(
            stopped <= one_chunk(what),
            "{what}: {stopped} bytes read after the cancellation"
        );
    }
}

/// Cancelled by another thread while it loads (as a progress bar's Ctrl-C would): the readers
/// slow enough for a thread to catch them under way stop within one chunk of the moment. A load
/// that ends before the canceller got the CPU proves nothing and is tried again.
#[test]
fn a_load_cancelled_from_another_thread_stops_within_one_chunk() {
    for (what, path) in inputs() {
        if !["trace.dat v6", "trace-cmd report text", "xz"].contains(what) {
            continue;
        }
        let caught = (1..=ATTEMPTS).find_map(|_| {
            let progress = Progress::new();
            let (result, at_cancel) = thread::scope(|s| {
                let canceller = s.spawn(|| {
                    while progress.bytes() == 0 {
                        thread::yield_now();
                    }
                    progress.cancel();
                    progress.bytes()
                });
                let result = ingest::read_path_with(path, &mut |_: &Event| {}, &progress);
                (result, canceller.join().unwrap())
            });
            let err = result.err()?;
            assert!(err.is_cancelled(), "{what}: {err}");
            let stopped = progress.bytes();
            assert!(
                stopped < progress.total().unwrap(),
                "{what}: read to the end"
            );
            Some((at_cancel, stopped))
        });
        let (at_cancel, stopped) =
            caught.unwrap_or_else(|| panic!("{what}: every load ended before its cancellation"));
        assert!(
            stopped - at_cancel <= one_chunk(what),
            "{what}: {} bytes read after the cancellation at {at_cancel}",
            stopped - at_cancel
        );
        eprintln!("{what}: cancelled at {at_cancel}, stopped at {stopped}");
    }
}
