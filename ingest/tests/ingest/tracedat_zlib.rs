//! The zlib-compressed v7 fixture (fixtures/README.md): event counts equal the
//! `trace-cmd report` of the v6 original, and every event equals the v6 decoding.

use crate::tracedat_common::{assert_same_events, load, read_all, report_counts, report_lines};

#[test]
fn zlib_v7_fixture_matches_v6_original_and_report() {
    let zlib = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/cfs-6.1-pp1.v7-zlib.dat"
    ))
    .unwrap();
    let (ingested, events) = read_all(&zlib);
    assert_eq!(ingested.meta.format_version, "7 (zlib)");
    let report = String::from_utf8(load("cfs-6.1-vm/pp1/report.txt.xz")).unwrap();
    assert_eq!(ingested.stats.events, report_counts(&report_lines(&report)));
    assert_eq!(ingested.stats.events["sched_switch"], 4092);
    let (v6, v6_events) = read_all(&load("cfs-6.1-vm/pp1/trace-v6.dat.xz"));
    assert_same_events((&ingested, &events), (&v6, &v6_events), "zlib v7 vs v6");
}
