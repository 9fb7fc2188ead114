//! A page of a real trace.dat whose header is intact but whose payload is random (issue #11
//! item 4): the records it seems to hold are not events. The page is skipped whole and named in
//! the ledger (CPU, offset, bytes, reason), the CPU gets a loss mark, and no event of it is
//! accepted: the trace reads exactly as with that page empty.

use ingest::damage::Skipped;
use ingest::{Event, EventKind, Ingested};
use std::collections::BTreeMap;

const PAGE: usize = 4096;
/// The page header of a 64-bit kernel: timestamp and commit word.
const HEADER: usize = 16;

fn read(bytes: &[u8]) -> (Ingested, Vec<Event>) {
    let mut events = Vec::new();
    let got = ingest::read_bytes(bytes, &mut |e: &Event| events.push(*e)).unwrap();
    (got, events)
}

/// The CPU and file offset of page `n` (at most its last) of the `i`-th CPU with data of a v6
/// trace.dat.
fn page_of(dat: &[u8], i: usize, n: usize) -> (usize, usize) {
    let layout = ingest::tracedat::v6::parse(dat).unwrap();
    let cpu = &layout.cpus[i];
    let ingest::tracedat::layout::CpuSource::Raw { bytes, offset } = cpu.source else {
        panic!("v6 pages are raw");
    };
    let n = n.min(bytes.len() / PAGE - 1);
    (cpu.cpu as usize, offset as usize + n * PAGE)
}

/// xorshift64: a fixed stream per seed, so every run tests the same pages.
fn random_bytes(seed: u64, out: &mut [u8]) {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for b in out {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = (x >> 24) as u8;
    }
}

/// Fills `data` with records that frame (4-byte headers of type_len 1..=4, their payloads
/// random) up to its end, each header's time delta `delta(random)`, then null padding.
fn framed_garbage(seed: u64, data: &mut [u8], delta: impl Fn(u32) -> u32) {
    let mut noise = vec![0u8; data.len()];
    random_bytes(seed, &mut noise);
    data.fill(0);
    let mut pos = 0;
    while pos + 20 <= data.len() {
        let r = u32::from_le_bytes(noise[pos..pos + 4].try_into().unwrap());
        let type_len = 1 + (r & 3);
        let header = type_len | (delta(r >> 2) & 0x07ff_ffff) << 5;
        data[pos..pos + 4].copy_from_slice(&header.to_le_bytes());
        let end = pos + 4 + 4 * type_len as usize;
        data[pos + 4..end].copy_from_slice(&noise[pos + 4..end]);
        pos = end;
    }
    // Null padding (type_len 29, no delta): the rest of the page is unused.
    data[pos..pos + 4].copy_from_slice(&29u32.to_le_bytes());
}

/// Events per kind, loss marks apart.
fn kinds(events: &[Event]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for e in events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::Lost { .. }))
    {
        *m.entry(e.kind.name()).or_insert(0) += 1;
    }
    m
}

/// The ledger of a read with a skipped page is that of the trace with the page empty: the page is
/// decoded once, into the batch, and what its records added (events by name, unknown ids and
/// malformed records, out-of-order steps, lost-event marks) is taken back with them.
fn same_ledger(got: &Ingested, want: &Ingested, what: &str) {
    assert_eq!(got.stats.events, want.stats.events, "{what}");
    assert_eq!(got.stats.rejected, want.stats.rejected, "{what}");
    assert_eq!(
        got.stats.reject_examples, want.stats.reject_examples,
        "{what}"
    );
    assert_eq!(got.stats.out_of_order, want.stats.out_of_order, "{what}");
    assert_eq!(got.meta.extra, want.meta.extra, "{what}");
}

#[test]
fn a_random_payload_under_an_intact_header_is_skipped_whole() {
    let clean = ingest::source::load(&fixtures::trace("cfs-6.1-vm/mi/trace-v6.dat.xz"))
        .unwrap()
        .to_vec();
    // Page 10 of CPU 1 (of its 18), as in the issue; the first of CPU 2's two; the only page
    // of CPU 3 (no next page to compare its times with).
    for (i, n) in [(1, 10), (2, 0), (3, usize::MAX)] {
        let (cpu, page) = page_of(&clean, i, n);
        let commit = u64::from_le_bytes(clean[page + 8..page + 16].try_into().unwrap());
        assert!(
            commit & 0x07ff_ffff > 0,
            "page {n} of CPU {cpu} holds records"
        );
        // The same trace with that page holding no record: what a skipped page must give.
        let mut empty = clean.clone();
        empty[page + 8..page + 16].copy_from_slice(&0u64.to_le_bytes());
        let (want_got, want) = read(&empty);
        for seed in 1..=8 {
            let mut dat = clean.clone();
            random_bytes(seed, &mut dat[page + HEADER..page + PAGE]);
            let (got, events) = read(&dat);
            let what = format!("CPU {cpu} page {n} seed {seed}");
            assert_eq!(
                got.stats.skipped.len(),
                1,
                "{what}: {:?}",
                got.stats.skipped
            );
            let Skipped {
                cpu: c,
                offset,
                bytes,
                reason,
            } = &got.stats.skipped[0];
            assert_eq!(
                (*c, *offset, *bytes),
                (
                    Some(cpu as u32),
                    (page + HEADER) as u64,
                    (PAGE - HEADER) as u64
                ),
                "{what}: {reason}"
            );
            assert!(reason.starts_with("corrupt page: "), "{what}: {reason}");
            assert!(
                got.stats.rejected.is_empty(),
                "{what}: {:?}",
                got.stats.rejected
            );
            assert_eq!(kinds(&events), kinds(&want), "{what}: {reason}");
            same_ledger(&got, &want_got, &what);
            // The CPU's tasks are unknown from the skipped page on.
            let losses = |evs: &[Event]| {
                evs.iter()
                    .filter(|e| {
                        e.cpu == cpu as u32 && matches!(e.kind, EventKind::Lost { count: None })
                    })
                    .count()
            };
            assert_eq!(losses(&events), losses(&want) + 1, "{what}");
        }
    }
}

/// Records that frame but are noise: with random time deltas, the page's time runs past the
/// next page's; with no time passing, their random event ids are not in the trace's formats.
/// Either way the page is skipped whole and named, and the trace reads as with it empty.
#[test]
fn framed_noise_is_caught_by_its_times_or_its_ids() {
    let clean = ingest::source::load(&fixtures::trace("cfs-6.1-vm/mi/trace-v6.dat.xz"))
        .unwrap()
        .to_vec();
    let (cpu, page) = page_of(&clean, 1, 10);
    let commit = u64::from_le_bytes(clean[page + 8..page + 16].try_into().unwrap());
    let data = page + HEADER..page + HEADER + (commit & 0x07ff_ffff) as usize;
    let mut empty = clean.clone();
    empty[page + 8..page + 16].copy_from_slice(&0u64.to_le_bytes());
    let (want_got, want) = read(&empty);
    for seed in 1..=8 {
        for (timed, why) in [
            (true, "past the next page's"),
            (false, "event ids the trace has no format for"),
        ] {
            let mut dat = clean.clone();
            framed_garbage(seed, &mut dat[data.clone()], |r| if timed { r } else { 0 });
            let (got, events) = read(&dat);
            let what = format!("seed {seed}, timed {timed}");
            assert_eq!(
                got.stats.skipped.len(),
                1,
                "{what}: {:?}",
                got.stats.skipped
            );
            let s = &got.stats.skipped[0];
            assert_eq!(
                (s.cpu, s.offset),
                (Some(cpu as u32), data.start as u64),
                "{what}"
            );
            assert!(s.reason.contains(why), "{what}: {}", s.reason);
            assert_eq!(kinds(&events), kinds(&want), "{what}");
            same_ledger(&got, &want_got, &what);
        }
    }
}

/// The real pages of every reference trace pass the checks: no page of an honest capture is
/// taken for garbage.
#[test]
fn no_page_of_a_real_trace_is_taken_for_garbage() {
    for rel in [
        "cfs-6.1-vm/mi/trace-v6.dat.xz",
        "cfs-6.1-vm/pp1/trace-v6.dat.xz",
        "eevdf-6.12-vm/nice/trace-v6.dat.xz",
        "pds-6.1-vm/mi/trace-v6.dat.xz",
        "bmq-6.1-vm/nice/trace-v6.dat.xz",
        "eevdf-6.18-host/pipe_pinned/trace.dat",
    ] {
        let bytes = ingest::source::load(&fixtures::trace(rel)).unwrap();
        let (got, _) = read(&bytes);
        assert!(
            got.stats.skipped.is_empty(),
            "{rel}: {:?}",
            got.stats.skipped
        );
    }
}
