//! Round trip on real traces: trace.dat → events → Perfetto (plain and
//! compact_sched) → events must give back exactly the same sched event stream
//! (every field of every event, in the same order), the same task names, loss
//! marks at the same places, and the same kernel release and CPU count.

use ingest::perfetto::{Writer, WriterOptions};
use ingest::{Event, EventKind, Ingested};
use std::collections::BTreeMap;
use std::path::Path;

fn shared(rel: &str) -> String {
    format!("{}/../../shared/traces/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn read(bytes: &[u8]) -> (Vec<Event>, Ingested) {
    let mut events = Vec::new();
    let ingested = ingest::read_bytes(bytes, &mut |e: &Event| events.push(*e)).unwrap();
    (events, ingested)
}

fn is_sched(e: &Event) -> bool {
    !matches!(
        e.kind,
        EventKind::TaskName { .. } | EventKind::Lost { .. } | EventKind::Other
    )
}

/// Per CPU: how many sched events of that CPU came before each loss mark.
fn loss_positions(events: &[Event]) -> BTreeMap<u32, Vec<usize>> {
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    let mut marks: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for e in events {
        match e.kind {
            EventKind::Lost { .. } => marks
                .entry(e.cpu)
                .or_default()
                .push(*seen.get(&e.cpu).unwrap_or(&0)),
            _ if is_sched(e) => *seen.entry(e.cpu).or_default() += 1,
            _ => {}
        }
    }
    marks
}

fn names(events: &[Event]) -> Vec<(i32, i32, Vec<u8>)> {
    let mut v: Vec<_> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::TaskName { pid, tgid, comm } => Some((pid, tgid, comm.as_bytes().to_vec())),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

struct Outcome {
    bytes: usize,
    sched: usize,
    compact: (u64, u64),
}

fn round_trip(rel: &str, compact_sched: bool) -> Outcome {
    let input = ingest::input::load(Path::new(&shared(rel))).unwrap();
    let (orig, orig_meta) = read(&input);
    let mut writer = Writer::new(
        Vec::new(),
        WriterOptions {
            compact_sched,
            max_bundle_events: 500,
        },
    );
    for e in &orig {
        ingest::EventSink::event(&mut writer, e);
    }
    let (out, stats) = writer.finish(&orig_meta.meta).unwrap();
    assert_eq!(ingest::Format::detect(&out).unwrap(), ingest::Format::Perfetto);
    let (back, back_meta) = read(&out);

    let a: Vec<Event> = orig.iter().filter(|e| is_sched(e)).copied().collect();
    let b: Vec<Event> = back.iter().filter(|e| is_sched(e)).copied().collect();
    assert!(a.len() > 2_000, "{rel}: only {} sched events", a.len());
    assert_eq!(a.len(), b.len(), "{rel}: sched event count");
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "{rel} compact={compact_sched}: sched event #{i} differs");
    }
    assert_eq!(names(&orig), names(&back), "{rel}: task names");
    assert_eq!(loss_positions(&orig), loss_positions(&back), "{rel}: loss marks");
    assert_eq!(back_meta.meta.kernel_release, orig_meta.meta.kernel_release);
    assert_eq!(back_meta.meta.cpus, orig_meta.meta.cpus);
    for name in [
        "sched_switch",
        "sched_waking",
        "sched_wakeup",
        "sched_wakeup_new",
        "sched_migrate_task",
        "sched_process_fork",
        "sched_process_exit",
        "sched_process_free",
    ] {
        assert_eq!(
            orig_meta.stats.events.get(name),
            back_meta.stats.events.get(name),
            "{rel}: count of {name}"
        );
    }
    assert_eq!(back_meta.stats.out_of_order, 0);
    assert!(back_meta.stats.rejected.is_empty(), "{:?}", back_meta.stats.rejected);
    Outcome {
        bytes: out.len(),
        sched: a.len(),
        compact: (stats.compact_switches, stats.compact_wakings),
    }
}

#[test]
fn cfs_6_1_pp2_plain_and_compact() {
    let plain = round_trip("cfs-6.1-vm/pp2/trace-v6.dat.xz", false);
    let compact = round_trip("cfs-6.1-vm/pp2/trace-v6.dat.xz", true);
    assert_eq!(plain.compact, (0, 0));
    // Nearly every switch and waking can use the compact form, and it is smaller.
    assert!(compact.compact.0 > 0 && compact.compact.1 > 0);
    assert!(compact.bytes < plain.bytes, "{} vs {}", compact.bytes, plain.bytes);
    eprintln!(
        "pp2: {} sched events, plain {} B, compact {} B ({} switches, {} wakings compact)",
        plain.sched, plain.bytes, compact.bytes, compact.compact.0, compact.compact.1
    );
}

#[test]
fn eevdf_6_18_pipe_pinned_plain_and_compact() {
    round_trip("eevdf-6.18-host/pipe_pinned/trace.dat", false);
    round_trip("eevdf-6.18-host/pipe_pinned/trace.dat", true);
}

#[test]
fn pds_6_1_mi_plain_and_compact() {
    round_trip("pds-6.1-vm/mi/trace-v6.dat.xz", false);
    round_trip("pds-6.1-vm/mi/trace-v6.dat.xz", true);
}

#[test]
fn pds_6_1_pp2_plain_and_compact() {
    round_trip("pds-6.1-vm/pp2/trace-v6.dat.xz", false);
    round_trip("pds-6.1-vm/pp2/trace-v6.dat.xz", true);
}
