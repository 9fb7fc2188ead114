//! Every trace.dat of fixtures/traces (and the public ones beside the clone): per-event-name counts equal the counts of
//! the stored `trace-cmd report` text (the independent reference), the stream is
//! time-ordered, and the metadata is what the file says.

use crate::tracedat_common::{assert_same_events, check_against_report};

fn vm(kernel: &str, workloads: &[&str]) {
    for w in workloads {
        let (ingested, _) = check_against_report(
            &format!("{kernel}/{w}/trace-v6.dat.xz"),
            &format!("{kernel}/{w}/report.txt.xz"),
        );
        assert_eq!(ingested.meta.format_version, "6");
        assert_eq!(ingested.meta.cpus, Some(4), "{kernel}/{w}");
    }
}

#[test]
fn cfs_6_1_vm() {
    vm("cfs-6.1-vm", &["mi", "nice", "pp1", "pp2"]);
}

#[test]
fn eevdf_6_12_vm() {
    vm("eevdf-6.12-vm", &["mi", "nice", "pp1", "pp2"]);
}

#[test]
fn pds_6_1_vm() {
    vm("pds-6.1-vm", &["mi", "mi-repeat", "nice", "pp1", "pp2"]);
}

#[test]
fn bmq_6_1_vm() {
    vm("bmq-6.1-vm", &["nice"]);
}

#[test]
fn eevdf_6_18_host_v7_zstd_and_none() {
    let report = "eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz";
    let (zstd, events_zstd) = check_against_report("eevdf-6.18-host/pipe_pinned/trace.dat", report);
    assert_eq!(zstd.meta.format_version, "7 (zstd)");
    assert!(
        zstd.meta
            .kernel_release
            .as_deref()
            .unwrap()
            .starts_with("6.18"),
        "{:?}",
        zstd.meta.kernel_release
    );
    let (none, events_none) =
        check_against_report("eevdf-6.18-host/pipe_pinned/trace.v7-nocomp.dat.xz", report);
    assert_eq!(none.meta.format_version, "7 (none)");
    assert_same_events(
        (&zstd, &events_zstd),
        (&none, &events_none),
        "v7 zstd vs none",
    );
    eprintln!("6.18 meta: {:?}", zstd.meta);
}

#[test]
fn public_lisa_v6_and_derived_v7_zstd() {
    if fixtures::public_missing() {
        return;
    }
    let (lisa, events_v6) = check_against_report(
        "public/lisa/sched_load.trace.dat.xz",
        "public/expected/lisa_sched_load.trace.dat.report.txt.xz",
    );
    assert_eq!(lisa.stats.events["sched_switch"], 399);
    assert_eq!(lisa.meta.cpus, Some(6));
    let (v7, events_v7) = check_against_report(
        "public/derived/sched_load.v7.zstd.dat",
        "public/expected/derived_sched_load.v7.zstd.dat.report.txt.xz",
    );
    assert_eq!(v7.meta.format_version, "7 (zstd)");
    assert_same_events((&lisa, &events_v6), (&v7, &events_v7), "lisa v6 vs v7");
}

#[test]
fn public_trappy_32_bit_and_idle() {
    if fixtures::public_missing() {
        return;
    }
    let (t32, _) = check_against_report(
        "public/trappy/trace.dat.xz",
        "public/expected/trappy_trace.dat.report.txt",
    );
    assert_eq!(t32.meta.extra["kernel_long_size"], "4");
    assert_eq!(t32.stats.events.values().sum::<u64>(), 525);
    assert_eq!(t32.meta.clock.as_deref(), Some("local"));
    let (idle, _) = check_against_report(
        "public/trappy/trace_idle.dat.xz",
        "public/expected/trappy_trace_idle.dat.report.txt",
    );
    assert_eq!(idle.stats.events["sched_switch"], 23);
}
