//! `--strict` and `--max-inflate` belong to one read ([`ingest::ReadOptions`]), not to the
//! process: reads with different options at the same time in one process each keep their own.

use ingest::{Event, ReadOptions};
use std::path::Path;

type Got = ingest::Result<ingest::Ingested>;

fn read(path: &Path, options: ReadOptions) -> Got {
    ingest::read_path_opts(path, &mut |_: &Event| {}, &Default::default(), options)
}

/// `read` 20 times under `a` on one thread and 20 times under `b` on another, at once.
fn at_once(
    a: ReadOptions,
    b: ReadOptions,
    read: impl Fn(ReadOptions) -> Got + Sync,
) -> [Vec<Got>; 2] {
    std::thread::scope(|scope| {
        let twenty = |options| {
            let read = &read;
            scope.spawn(move || (0..20).map(|_| read(options)).collect::<Vec<_>>())
        };
        let (a, b) = (twenty(a), twenty(b));
        [a.join().unwrap(), b.join().unwrap()]
    })
}

/// A pipe-mode perf.data in an `.xz` (218 KiB inflated), read by two threads at once, many
/// times over: the one allowed 100 KB stops at that limit, the one with the default rule reads
/// every event.
#[test]
fn two_reads_at_once_keep_their_own_inflation_limit() {
    let path = fixtures::file("perfdata/sched-events.pipe.data.xz");
    let small = ReadOptions {
        max_inflate: Some(100_000),
        ..Default::default()
    };
    let want = read(&path, ReadOptions::default()).unwrap();
    assert!(want.stats.events["sched_switch"] > 0);
    let [limited, plain] = at_once(small, ReadOptions::default(), |o| read(&path, o));
    for got in limited {
        let e = got.unwrap_err().to_string();
        assert!(
            e.contains("over the limit of 100000 bytes (--max-inflate)"),
            "{e}"
        );
    }
    for got in plain {
        assert_eq!(got.unwrap().stats.events, want.stats.events);
    }
}

/// A trace.dat with one corrupt page, read strictly and leniently by two threads at once: the
/// strict reads fail at the page, the lenient ones skip it.
#[test]
fn two_reads_at_once_keep_their_own_strictness() {
    let path = fixtures::trace("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let mut bytes = ingest::source::load(&path).unwrap().to_vec();
    let tag = bytes.windows(10).position(|w| w == b"flyrecord\0").unwrap();
    let off = u64::from_le_bytes(bytes[tag + 10..tag + 18].try_into().unwrap()) as usize;
    // The commit word of CPU 0's first page, larger than the page.
    bytes[off + 8..off + 16].copy_from_slice(&9000u64.to_le_bytes());
    let strict = ReadOptions {
        strict: true,
        ..Default::default()
    };
    let [strict, lenient] = at_once(strict, ReadOptions::default(), |options| {
        ingest::read_bytes_opts(&bytes, &mut |_: &Event| {}, &Default::default(), options)
    });
    for got in strict {
        let e = got.unwrap_err().to_string();
        assert!(
            e.contains("corrupt page: commit says 9000 data bytes"),
            "{e}"
        );
    }
    for got in lenient {
        let skipped = got.unwrap().stats.skipped;
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].offset, off as u64 + 8);
    }
}
