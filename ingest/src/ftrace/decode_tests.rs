//! Unit tests of the record decoder (real 6.18 formats, hand-built records).
use super::*;
use crate::ftrace::format::parse_format;

fn formats() -> Vec<EventFormat> {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/docs/kernel-6.18-formats/"
    );
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
    let cases: [&[u8]; 9] = [
        b"",
        b"\0",
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
    let d = Decoder::new(&formats(), Endian::Little, Some("6.18.0"));
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
    let d = Decoder::new(&formats(), Endian::Big, None);
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
    let d = Decoder::new(&formats(), Endian::Little, None);
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
    let d = Decoder::new(&fmts, Endian::Little, None);
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

/// The per-width integer reads give what the general `Endian::int_at` gives, for every size
/// and sign a format can declare, both byte orders, in and out of bounds.
#[test]
fn int_reads_match_the_general_reader() {
    let record: Vec<u8> = (0..20u8).map(|b| b.wrapping_mul(37) ^ 0x80).collect();
    for endian in [Endian::Little, Endian::Big] {
        for size in 0..=9 {
            for signed in [false, true] {
                for offset in [0, 3, 12, 16, 19, 20, usize::MAX - 2] {
                    let format = EventFormat {
                        id: 1,
                        system: "t".into(),
                        name: "t".into(),
                        fields: vec![Field {
                            name: "f".into(),
                            offset,
                            size,
                            signed,
                            kind: FieldKind::Int,
                        }],
                        print_fmt: String::new(),
                    };
                    let field = Int::of(&format, "f").unwrap();
                    let got = match endian {
                        Endian::Little => field.read::<Le>(&record),
                        Endian::Big => field.read::<Be>(&record),
                    };
                    let want = endian.int_at(&record, offset, size, signed);
                    assert_eq!(
                        got, want,
                        "{endian:?} size {size} signed {signed} @{offset}"
                    );
                }
            }
        }
    }
}

/// A `char[N]` name: the bytes up to the first NUL, at most 16, and the whole field in bounds.
#[test]
fn fixed_comm_of_any_size() {
    let record = b"0123456789abcdefghij\0xyz";
    for size in [0, 1, 5, 15, 16, 17, 20, 24, 25] {
        let field = Str::Fixed { offset: 0, size };
        let got = comm::<Le>(record, field);
        // The general rule: the whole field, cut at 16 bytes and at its first NUL.
        let want = record.get(..size).map(Comm::from_bytes);
        assert_eq!(got, want, "size {size}");
    }
    assert_eq!(
        comm::<Le>(
            record,
            Str::Fixed {
                offset: 4,
                size: 16
            }
        )
        .map(|c| c.to_string()),
        Some("456789abcdefghij".to_string())
    );
}
