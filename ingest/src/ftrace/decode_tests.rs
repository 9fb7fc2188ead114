//! Unit tests of the record decoder (real 6.18 formats, hand-built records).
use super::*;
use crate::ftrace::format::parse_format;

fn formats() -> Vec<EventFormat> {
    let dir = fixtures::file("kernel-6.18-formats");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_string();
        if let Some(rest) = file.strip_suffix(".format") {
            let system = rest.split('_').next().unwrap();
            out.push(parse_format(system, &std::fs::read(&path).unwrap()).unwrap());
        }
    }
    out
}

fn header(id: u16, pid: i32, buf: &mut Vec<u8>) {
    buf.extend_from_slice(&id.to_le_bytes());
    buf.extend_from_slice(&[0, 0]);
    buf.extend_from_slice(&pid.to_le_bytes());
}

fn comm16(name: &str) -> [u8; 16] {
    let mut c = [0u8; 16];
    c[..name.len()].copy_from_slice(name.as_bytes());
    c
}

/// `Comm::from_bytes` finds the NUL word-wide: same result as the plain byte rule.
#[test]
fn comm_from_bytes_is_the_bytes_up_to_the_first_nul() {
    let cases: [&[u8]; 10] = [
        b"",
        b"\0",
        b"\0junk after an empty name",
        b"cat",
        b"cat\0junk",
        b"swapper/1\0\0\0\0\0\0\0",
        b"exactly16bytes!!",
        b"longer than sixteen bytes\0",
        b"\x80\x01\xff\0\x01",
        b"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\0",
    ];
    for raw in cases {
        let end = raw
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(raw.len())
            .min(16);
        let c = Comm::from_bytes(raw);
        assert_eq!(c.as_bytes(), &raw[..end], "{raw:?}");
        let mut padded = [0u8; 16];
        padded[..end].copy_from_slice(&raw[..end]);
        assert_eq!(c, Comm::from_bytes(&padded), "{raw:?}");
    }
}

#[test]
fn sched_switch_6_18_record() {
    let d = Decoder::new(
        &formats(),
        Endian::Little,
        Some("6.18.0"),
        &Default::default(),
    );
    let mut r = Vec::new();
    header(372, 42, &mut r);
    r.extend_from_slice(&comm16("cat"));
    r.extend_from_slice(&42i32.to_le_bytes());
    r.extend_from_slice(&120i32.to_le_bytes());
    r.extend_from_slice(&0x100i64.to_le_bytes());
    r.extend_from_slice(&comm16("swapper/1"));
    r.extend_from_slice(&0i32.to_le_bytes());
    r.extend_from_slice(&120i32.to_le_bytes());
    let Decoded::Event {
        name,
        current_pid,
        kind,
    } = d.decode(&r)
    else {
        panic!("{:?}", d.decode(&r))
    };
    assert_eq!((d.event_name(name), current_pid), ("sched_switch", 42));
    let EventKind::Switch {
        prev,
        prev_state,
        next,
    } = kind
    else {
        panic!()
    };
    assert_eq!(
        (prev.pid, prev.comm.to_string(), prev.prio),
        (42, "cat".into(), 120)
    );
    assert_eq!(prev_state, PrevState::Preempted);
    assert_eq!((next.pid, next.comm.to_string()), (0, "swapper/1".into()));
    assert!(matches!(d.decode(&r[..50]), Decoded::Malformed { .. }));
    assert_eq!(
        d.decode(&[0xff, 0xff, 0, 0]),
        Decoded::Unknown { id: 0xffff }
    );
}

/// No big-endian trace.dat exists in public: a hand-built big-endian record.
#[test]
fn big_endian_sched_switch_and_data_loc() {
    let d = Decoder::new(&formats(), Endian::Big, None, &Default::default());
    let mut r = Vec::new();
    r.extend_from_slice(&372u16.to_be_bytes());
    r.extend_from_slice(&[0, 0]);
    r.extend_from_slice(&7i32.to_be_bytes());
    r.extend_from_slice(&comm16("a"));
    r.extend_from_slice(&7i32.to_be_bytes());
    r.extend_from_slice(&100i32.to_be_bytes());
    r.extend_from_slice(&2i64.to_be_bytes());
    r.extend_from_slice(&comm16("b"));
    r.extend_from_slice(&8i32.to_be_bytes());
    r.extend_from_slice(&(-1i32).to_be_bytes());
    let Decoded::Event {
        current_pid, kind, ..
    } = d.decode(&r)
    else {
        panic!()
    };
    assert_eq!(current_pid, 7);
    let EventKind::Switch {
        prev,
        prev_state,
        next,
    } = kind
    else {
        panic!()
    };
    assert_eq!(
        (prev.pid, prev.prio, prev_state, next.pid, next.prio),
        (7, 100, PrevState::Blocked, 8, -1)
    );
    let mut r = Vec::new();
    r.extend_from_slice(&371u16.to_be_bytes());
    r.extend_from_slice(&[0, 0, 0, 0, 0, 1]);
    r.extend_from_slice(&((3u32 << 16) | 28).to_be_bytes());
    for v in [5i32, 120, 0, 1] {
        r.extend_from_slice(&v.to_be_bytes());
    }
    r.extend_from_slice(b"ab\0");
    let Decoded::Event { kind, .. } = d.decode(&r) else {
        panic!()
    };
    assert_eq!(
        kind,
        EventKind::Migrate {
            task: TaskRef {
                pid: 5,
                comm: "ab".into(),
                prio: 120
            },
            orig_cpu: 0,
            dest_cpu: 1
        }
    );
}

#[test]
fn data_loc_comm_in_6_18_migrate_and_fork() {
    let d = Decoder::new(&formats(), Endian::Little, None, &Default::default());
    // sched_migrate_task: comm __data_loc @8, pid @12, prio @16, orig @20, dest @24, "kworker" @28.
    let mut r = Vec::new();
    header(371, 7, &mut r);
    r.extend_from_slice(&((8u32 << 16) | 28).to_le_bytes());
    for v in [99i32, 120, 1, 3] {
        r.extend_from_slice(&v.to_le_bytes());
    }
    r.extend_from_slice(b"kworker\0");
    let Decoded::Event { kind, .. } = d.decode(&r) else {
        panic!()
    };
    let EventKind::Migrate {
        task,
        orig_cpu,
        dest_cpu,
    } = kind
    else {
        panic!()
    };
    assert_eq!(
        (
            task.pid,
            task.comm.to_string(),
            task.prio,
            orig_cpu,
            dest_cpu
        ),
        (99, "kworker".into(), 120, 1, 3)
    );
    // A data_loc pointing outside the record is malformed, not a panic.
    r[8] = 200;
    assert!(matches!(d.decode(&r), Decoded::Malformed { .. }));
}

#[test]
fn other_events_and_missing_fields() {
    let mut fmts = formats();
    // Drop target_cpu from sched_waking (as in some old kernels).
    let waking = fmts.iter_mut().find(|f| f.name == "sched_waking").unwrap();
    waking
        .fields
        .retain(|f| f.name != "target_cpu" && f.name != "prio");
    let id = waking.id as u16;
    let d = Decoder::new(&fmts, Endian::Little, None, &Default::default());
    let mut r = Vec::new();
    header(id, 0, &mut r);
    r.extend_from_slice(&comm16("a"));
    r.extend_from_slice(&5i32.to_le_bytes());
    let Decoded::Event { kind, .. } = d.decode(&r) else {
        panic!()
    };
    assert_eq!(
        kind,
        EventKind::Waking {
            task: TaskRef {
                pid: 5,
                comm: "a".into(),
                prio: -1
            },
            target_cpu: -1
        }
    );
    let stat = fmts
        .iter()
        .find(|f| f.name == "sched_stat_runtime")
        .unwrap();
    let mut r = Vec::new();
    header(stat.id as u16, 3, &mut r);
    let Decoded::Event {
        name,
        current_pid,
        kind,
    } = d.decode(&r)
    else {
        panic!()
    };
    assert_eq!(
        (d.event_name(name), current_pid, kind),
        ("sched_stat_runtime", 3, EventKind::Other)
    );
    assert_eq!(d.event_count(), fmts.len());
}

/// The usual-layout path gives exactly what the general plan gives: real records of a 6.1
/// trace (switch, waking, wakeup, migrate, fork, exit), each also cut at every length, read in
/// both byte orders (for big-endian, `common_type` is swapped so the formats still match; the
/// other fields read as nonsense, which must agree too).
#[test]
fn usual_layout_path_agrees_with_the_general_plan() {
    use crate::ftrace::{PageDecoder, PageItem};
    use crate::tracedat::layout::CpuSource;
    let path = fixtures::trace("cfs-6.1-vm/pp1/trace-v6.dat.xz");
    let bytes = crate::source::load(&path).unwrap();
    let layout = crate::tracedat::v6::parse(&bytes).unwrap();
    let pages = PageDecoder::new(layout.endian, layout.header_page);
    let mut records: Vec<Vec<u8>> = Vec::new();
    for cpu in &layout.cpus {
        let CpuSource::Raw { bytes, .. } = cpu.source else {
            panic!("v6 pages are raw")
        };
        for page in bytes.chunks_exact(layout.page_size).take(40) {
            pages
                .decode_page(page, 0, &mut |item| {
                    if let PageItem::Record { payload, .. } = item {
                        records.push(payload.to_vec())
                    }
                })
                .unwrap();
        }
    }
    assert!(records.len() > 3000, "{}", records.len());
    for endian in [Endian::Little, Endian::Big] {
        let usual = Decoder::new(&layout.formats, endian, Some("6.1.0"), &Default::default());
        let mut general = usual.clone();
        for slot in general.slots.iter_mut().flatten() {
            slot.usual = None;
        }
        let with_usual = usual.slots.iter().flatten().filter(|s| s.usual.is_some());
        assert_eq!(with_usual.count(), 4, "switch, waking, wakeup, wakeup_new");
        let mut events = 0;
        for record in &mut records {
            if endian == Endian::Big {
                record.swap(0, 1);
            }
            for len in 0..=record.len() {
                let want = general.decode(&record[..len]);
                assert_eq!(
                    usual.decode(&record[..len]),
                    want,
                    "{record:?} cut at {len}"
                );
                events += matches!(want, Decoded::Event { .. }) as usize;
            }
        }
        assert!(events > 3000, "{events}");
    }
}
