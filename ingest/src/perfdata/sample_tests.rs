//! Unit tests of the sample layouts: the fixed-offset fast path and the field-by-field walk
//! agree for every `sample_type` shape; trailers are read from the end.

use super::*;

fn attr(sample_type: u64, read_format: u64) -> Attr {
    Attr {
        sample_type,
        read_format,
        flags: 1 << 18,
        sample_regs_user: 0b1011,
        sample_regs_intr: 0b1,
        branch_sample_type: BRANCH_HW_INDEX,
        ..Attr::default()
    }
}

/// Builds a sample body with every field of `st` in kernel order; returns it and the RAW payload.
fn body(st: u64, read_format: u64) -> (Vec<u8>, Vec<u8>) {
    let mut b = Vec::new();
    let w = |b: &mut Vec<u8>, v: u64| b.extend_from_slice(&v.to_le_bytes());
    let raw: Vec<u8> = (0..12u8).collect();
    if st & IDENTIFIER != 0 {
        w(&mut b, 77)
    }
    if st & IP != 0 {
        w(&mut b, 0xffff_1234)
    }
    if st & TID != 0 {
        w(&mut b, 5 | 6 << 32)
    }
    if st & TIME != 0 {
        w(&mut b, 123_456)
    }
    if st & ADDR != 0 {
        w(&mut b, 1)
    }
    if st & ID != 0 {
        w(&mut b, 77)
    }
    if st & STREAM_ID != 0 {
        w(&mut b, 2)
    }
    if st & CPU != 0 {
        w(&mut b, 3)
    }
    if st & PERIOD != 0 {
        w(&mut b, 1)
    }
    if st & READ != 0 {
        if read_format & READ_GROUP != 0 {
            w(&mut b, 2); // nr
            w(&mut b, 10); // enabled
            for _ in 0..2 {
                w(&mut b, 1);
                w(&mut b, 2);
            } // value, id
        } else {
            w(&mut b, 1);
            w(&mut b, 10);
            w(&mut b, 2); // value, enabled, id
        }
    }
    if st & CALLCHAIN != 0 {
        w(&mut b, 2);
        w(&mut b, 1);
        w(&mut b, 2)
    }
    if st & RAW != 0 {
        b.extend_from_slice(&(raw.len() as u32).to_le_bytes());
        b.extend_from_slice(&raw);
    }
    if st & BRANCH_STACK != 0 {
        w(&mut b, 1);
        w(&mut b, 9);
        for _ in 0..3 {
            w(&mut b, 0)
        }
    }
    if st & REGS_USER != 0 {
        w(&mut b, 2);
        for _ in 0..3 {
            w(&mut b, 0)
        }
    }
    if st & STACK_USER != 0 {
        w(&mut b, 8);
        w(&mut b, 0);
        w(&mut b, 8)
    }
    if st & WEIGHT != 0 {
        w(&mut b, 0)
    }
    if st & DATA_SRC != 0 {
        w(&mut b, 0)
    }
    if st & TRANSACTION != 0 {
        w(&mut b, 0)
    }
    if st & REGS_INTR != 0 {
        w(&mut b, 0)
    } // abi 0: no registers
    if st & PHYS_ADDR != 0 {
        w(&mut b, 0)
    }
    if st & CGROUP != 0 {
        w(&mut b, 0)
    }
    if st & DATA_PAGE_SIZE != 0 {
        w(&mut b, 0)
    }
    if st & CODE_PAGE_SIZE != 0 {
        w(&mut b, 0)
    }
    if st & AUX != 0 {
        w(&mut b, 16);
        w(&mut b, 0);
        w(&mut b, 0)
    }
    (b, raw)
}

#[test]
fn every_field_layout_finds_the_same_values() {
    let sched = IDENTIFIER | IP | TID | TIME | CPU | PERIOD | RAW;
    let everything = ((1u64 << 25) - 1) & !WEIGHT_STRUCT;
    for (st, rf) in [
        (sched, 0),
        (sched | READ, READ_TOTAL_TIME_ENABLED | READ_ID),
        (sched | READ, READ_GROUP | READ_TOTAL_TIME_ENABLED | READ_ID),
        (IP | TID | TIME | ID | PERIOD, 0),
        (everything, READ_TOTAL_TIME_ENABLED | READ_ID),
        (
            everything & !IDENTIFIER,
            READ_GROUP | READ_TOTAL_TIME_ENABLED | READ_ID,
        ),
    ] {
        let format = SampleFormat::new(&attr(st, rf));
        let (b, raw) = body(st, rf);
        let walked = format.parse_walk(Endian::Little, &b).expect("walk");
        let fast = format.parse(Endian::Little, &b).expect("parse");
        let want_raw = (st & RAW != 0).then_some(&raw[..]);
        for s in [walked, fast] {
            assert_eq!(s.raw, want_raw, "{st:#x}");
            assert_eq!(s.time, (st & TIME != 0).then_some(123_456));
            assert_eq!(s.tid, (st & TID != 0).then_some(6));
            assert_eq!(s.cpu, (st & CPU != 0).then_some(3));
            assert_eq!(s.id, (st & (ID | IDENTIFIER) != 0).then_some(77));
        }
        assert_eq!(
            format.time_offset.map(|o| u64_at(Endian::Little, &b, o)),
            (st & TIME != 0).then_some(Some(123_456))
        );
        // One byte short is always detected.
        assert!(
            format
                .parse_walk(Endian::Little, &b[..b.len() - 1])
                .is_err(),
            "{st:#x}"
        );
    }
}

#[test]
fn trailer_is_read_from_the_end() {
    let st = TID | TIME | ID | STREAM_ID | CPU | IDENTIFIER;
    let format = SampleFormat::new(&attr(st, 0));
    assert_eq!(format.trailer_len, 48);
    let mut b = vec![0xaa; 13];
    for v in [5 | 6 << 32, 999, 41, 0, 2, 41u64] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let t = format.trailer(Endian::Little, &b).unwrap();
    assert_eq!(
        (t.pid, t.tid, t.time, t.id, t.cpu),
        (Some(5), Some(6), Some(999), Some(41), Some(2))
    );
    assert_eq!(format.trailer_id_from_end, Some(8));
}

/// The fixed-offset path (compiled per byte order) and the walk read the same values from the
/// same bytes in both byte orders, and both reject every truncation.
#[test]
fn fixed_path_agrees_with_the_walk_in_both_byte_orders() {
    let sched = IDENTIFIER | IP | TID | TIME | CPU | PERIOD | RAW;
    for (st, rf) in [
        (sched, 0),
        (sched | READ, READ_TOTAL_TIME_ENABLED | READ_ID),
        (IP | TID | TIME | ID | PERIOD, 0),
        (TID | TIME | CPU | RAW, 0),
    ] {
        let format = SampleFormat::new(&attr(st, rf));
        assert!(format.fixed.is_some(), "{st:#x}");
        let (b, _) = body(st, rf);
        for endian in [Endian::Little, Endian::Big] {
            let fast = format.parse(endian, &b);
            let walked = format.parse_walk(endian, &b);
            assert_eq!(
                format!("{fast:?}"),
                format!("{walked:?}"),
                "{st:#x} {endian:?}"
            );
            for cut in 0..b.len() {
                assert!(format.parse(endian, &b[..cut]).is_err(), "{st:#x} {cut}");
            }
        }
    }
}
