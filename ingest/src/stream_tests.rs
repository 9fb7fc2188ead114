use super::*;
use std::io::Write;

const MEMINFO: &str = "MemTotal:       16367768 kB\nMemFree:         1234567 kB\n\
                       MemAvailable:    8388608 kB\nBuffers:          100000 kB\n";

fn limited(bytes: u64) -> ReadOptions {
    ReadOptions {
        max_inflate: Some(bytes),
        ..ReadOptions::default()
    }
}

/// A reader that counts what it hands out, to show how far a refusal read.
struct Tally<R> {
    inner: R,
    taken: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for Tally<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.taken
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

fn load_err(prefix: &[u8], reader: impl Read + Send, options: ReadOptions) -> String {
    match load(prefix.to_vec(), reader, &Progress::new(), options) {
        Ok(bytes) => panic!("{} bytes held", bytes.len()),
        Err(e) => e.to_string(),
    }
}

/// The error of an endless `stream` with no bound, checked to have been read no further than
/// its first [`SNIFF`] bytes.
fn refused_from_head(stream: impl Read + Send) -> String {
    let taken = std::sync::Arc::default();
    let tally = Tally {
        inner: stream,
        taken: std::sync::Arc::clone(&taken),
    };
    let err = load_err(&[], tally, limited(u64::MAX));
    assert_eq!(
        taken.load(std::sync::atomic::Ordering::Relaxed),
        SNIFF as u64
    );
    err
}

#[test]
fn the_limit_is_half_the_memory_available_or_the_flag() {
    let limit = Limit::from_meminfo(ReadOptions::default(), Some(MEMINFO));
    assert_eq!(limit.bytes, 8388608 * 1024 / 2);
    assert_eq!(limit.rule, "half the 8192 MiB of memory available");
    let flag = Limit::from_meminfo(limited(1 << 20), Some(MEMINFO));
    assert_eq!(
        flag,
        Limit {
            bytes: 1 << 20,
            rule: "--max-inflate".into()
        }
    );
    let unknown = Limit::from_meminfo(ReadOptions::default(), Some("MemTotal: 1 kB\n"));
    assert_eq!(unknown.bytes, 4 << 30);
    assert_eq!(unknown.rule, "4096 MiB: the memory available is unknown");
}

/// Endless zeros: refused after the first 64 KiB, the bytes named.
#[test]
fn an_endless_stream_of_no_trace_is_refused_from_its_head() {
    let err = refused_from_head(std::io::repeat(0));
    assert_eq!(
        err,
        "offset 0 (0x0): unknown format: starts with [00, 00, 00, 00, 00, 00, 00, 00]; \
         expected trace.dat, perf.data, Perfetto protobuf or trace text"
    );
}

/// `yes` without end: "y\n" over and over.
struct Yes;

impl Read for Yes {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        for (i, b) in out.iter_mut().enumerate() {
            *b = if i % 2 == 0 { b'y' } else { b'\n' };
        }
        Ok(out.len() & !1)
    }
}

/// `yes |`: endless text with no event line, refused after the first 64 KiB, not held up to
/// the bound; a finite stream of event lines longer than that head is held whole.
#[test]
fn endless_text_with_no_event_line_is_refused_from_its_head() {
    let err = refused_from_head(Yes);
    assert_eq!(
        err,
        "offset 0 (0x0): text with no event line in its first 64 KiB: expected trace text \
         (ftrace, trace-cmd report or perf script lines such as \
         `comm-pid [cpu] sec.usec: sched_switch: ...`)"
    );
    let line =
        b"  bash-1234  [001]  100.000001: sched_wakeup: comm=cat pid=5 prio=120 target_cpu=001\n";
    let text: Vec<u8> = line.repeat(2 * SNIFF / line.len());
    let held = load(Vec::new(), &text[..], &Progress::new(), limited(1 << 30)).unwrap();
    assert_eq!(held.len(), text.len());
    // A long header of comments is let through when one event line follows it in the head.
    let mut late = b"# comment\n".repeat(SNIFF / 10 - 10);
    late.extend_from_slice(&text);
    let held = load(Vec::new(), &late[..], &Progress::new(), limited(1 << 30)).unwrap();
    assert_eq!(held.len(), late.len());
}

/// 0x0a then bytes that are no packet: a file would go to the Perfetto reader, a stream is
/// refused.
#[test]
fn a_stream_starting_like_perfetto_must_be_a_packet() {
    let err = load_err(
        &[0x0a, 0xff, 0xff, 0xff],
        std::io::repeat(0xff),
        limited(u64::MAX),
    );
    assert!(
        err.contains("unknown format: starts with [0a, ff, ff, ff, ff, ff, ff, ff], not a well-formed Perfetto packet"),
        "{err}"
    );
}

/// A trace.dat magic followed by endless bytes: held up to the limit, then an error at the
/// limit's offset that names what was held and the limit; one byte under it, the whole is held.
#[test]
fn a_trace_dat_head_is_held_up_to_the_limit() {
    let magic = b"\x17\x08Dtracing6\0";
    let err = load_err(magic, std::io::repeat(0xab), limited(1 << 20));
    assert_eq!(
        err,
        "offset 1048576 (0x100000): a trace.dat is read whole, and a stream (not a regular file, \
         which is mapped) is held in memory up to 1048576 bytes (--max-inflate): this one is \
         longer; give the file itself, or raise the limit with --max-inflate SIZE"
    );
    let exact = std::io::repeat(0xab).take((1 << 20) - magic.len() as u64);
    let held = load(magic.to_vec(), exact, &Progress::new(), limited(1 << 20)).unwrap();
    assert_eq!(held.len(), 1 << 20);
    assert_eq!(&held[..magic.len()], magic);
}

fn zstd_of(fill: impl FnOnce(&mut dyn Write)) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    fill(&mut enc);
    enc.finish().unwrap()
}

/// A zstd stream of zeros: its inflated head is checked like a plain stream's.
#[test]
fn a_compressed_stream_is_checked_inside_its_wrapper() {
    let zeros = zstd_of(|w| {
        std::io::copy(&mut std::io::repeat(0).take(64 << 20), w).unwrap();
    });
    let err = load_err(&[], std::io::Cursor::new(zeros), limited(u64::MAX));
    assert_eq!(
        err,
        "offset 0 (0x0): inside the zstd wrapper: unknown format: starts with \
         [00, 00, 00, 00, 00, 00, 00, 00]; expected trace.dat, perf.data, Perfetto protobuf or \
         trace text"
    );
}

/// Trace text in a zstd stream that inflates past the stream's limit (under the inflation
/// budget): the error names the format inside the wrapper; under the limit the text is held.
/// With `--max-inflate`, the same number is the budget, whose error comes first.
#[test]
fn a_compressed_stream_is_held_inflated_within_the_limit() {
    let line = "          <idle>-0     [000] d..2. 1.000000: sched_switch: prev_comm=a\n";
    let lines = (4 << 20) / line.len();
    let text = zstd_of(|w| {
        for _ in 0..lines {
            w.write_all(line.as_bytes()).unwrap();
        }
    });
    let small = Limit {
        bytes: 2 << 20,
        rule: "a test's".into(),
    };
    let load_small = |options| {
        let reader = std::io::Cursor::new(text.clone());
        match load_within(Vec::new(), reader, &Progress::new(), options, &small) {
            Ok(bytes) => panic!("{} bytes held", bytes.len()),
            Err(e) => e.to_string(),
        }
    };
    assert_eq!(
        load_small(ReadOptions::default()),
        "offset 2097152 (0x200000): trace text inside the zstd wrapper is read whole, and a \
         stream (not a regular file, which is mapped) is held in memory up to 2097152 bytes (a \
         test's): this one is longer; give the file itself, or raise the limit with \
         --max-inflate SIZE"
    );
    let err = load_small(limited(2 << 20));
    assert!(
        err.contains("zstd decompression failed after ")
            && err.contains(" over the limit of 2097152 bytes (--max-inflate); raise it with --max-inflate SIZE"),
        "{err}"
    );
    let reader = std::io::Cursor::new(text);
    let held = load(Vec::new(), reader, &Progress::new(), limited(8 << 20)).unwrap();
    assert_eq!(held.len(), lines * line.len());
    assert!(held.starts_with(line.as_bytes()));
}
