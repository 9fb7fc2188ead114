//! The text reader over every real text trace (fixtures/traces, and the public ones beside the clone): per-event-name counts
//! equal an independent count of the lines, no rejected line, events in time order,
//! and the sched events decoded into their own kinds.

use crate::text_common::*;

/// Reads `rel`, checks counts against the independent counter and returns the result.
fn check(rel: &str, flavour: &str, cpus: u32) -> (ingest::Ingested, Vec<ingest::Event>) {
    let bytes = load(&shared(rel));
    let (got, events) = read_text(&bytes);
    let expected = count_by_name(&bytes);
    assert!(!expected.is_empty(), "{rel}: counter found nothing");
    assert_eq!(got.stats.events, expected, "{rel}: counts by name");
    assert!(
        got.stats.rejected.is_empty(),
        "{rel}: rejected {:?} {:?}",
        got.stats.rejected,
        got.stats.reject_examples
    );
    assert_eq!(got.meta.format_version, flavour, "{rel}: flavour");
    assert_eq!(got.meta.cpus, Some(cpus), "{rel}: cpus");
    assert!(
        events.windows(2).all(|w| w[0].ts <= w[1].ts),
        "{rel}: time order"
    );
    // Every sched and cpu_idle line became its own kind, everything else Other (no lost
    // markers here).
    let kinds = kinds(&events);
    for name in [
        "sched_switch",
        "sched_waking",
        "sched_wakeup",
        "sched_wakeup_new",
        "sched_migrate_task",
        "sched_process_fork",
        "sched_process_exit",
        "sched_process_free",
        "cpu_idle",
    ] {
        assert_eq!(
            kinds.get(name).copied().unwrap_or(0),
            expected.get(name).copied().unwrap_or(0),
            "{rel}: {name}"
        );
    }
    let sched: u64 = kinds
        .iter()
        .filter(|(k, _)| k.starts_with("sched_"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(
        ["other", "print", "cpu_idle"]
            .iter()
            .map(|k| kinds.get(k).copied().unwrap_or(0))
            .sum::<u64>()
            + sched,
        events.len() as u64
    );
    assert_eq!(events.len() as u64, expected.values().sum::<u64>());
    (got, events)
}

#[test]
fn vm_trace_cmd_reports() {
    // Each kernel x workload `report.txt.xz` (trace-cmd 3.1.6, sched plugin rendering).
    let mut total = 0;
    for kernel in ["cfs-6.1-vm", "eevdf-6.12-vm", "pds-6.1-vm", "bmq-6.1-vm"] {
        for wl in ["pp1", "pp2", "mi", "nice", "mi-repeat"] {
            let rel = format!("{kernel}/{wl}/report.txt.xz");
            if !shared(&rel).exists() {
                continue;
            }
            let (got, events) = check(&rel, "trace-cmd report", 4);
            total += events.len();
            assert_eq!(got.stats.out_of_order, 0, "{rel}");
        }
    }
    // 13 reports; pinned so that a counter bug that hides lines in both cannot pass.
    assert_eq!(total, 188_323, "total events over the VM reports");
}

#[test]
fn host_perf_sched_scripts_and_report() {
    let mut totals = Vec::new();
    for (rel, flavour) in [
        (
            "eevdf-6.18-host/pipe_pinned/perf.sched.script.txt.xz",
            "perf script",
        ),
        (
            "eevdf-6.18-host/hackbench/perf.sched.script.txt.xz",
            "perf script",
        ),
        (
            "eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz",
            "trace-cmd report",
        ),
    ] {
        let (got, events) = check(rel, flavour, 2);
        assert_eq!(got.stats.out_of_order, 0, "{rel}");
        totals.push(events.len());
    }
    assert_eq!(totals, [31_466, 21_994, 22_686]);
}

#[test]
fn public_text_traces() {
    if fixtures::public_missing() {
        return;
    }
    let mut totals = Vec::new();
    for (rel, flavour, cpus) in [
        ("public/lisa/trace_txt.trace.txt.xz", "trace-cmd report", 6),
        ("public/trappy/trace_sched.txt", "trace-cmd report", 6),
        ("public/trappy/raw_trace.txt", "trace-cmd report", 6),
        ("public/trappy/trace_systrace.html", "systrace", 6),
        (
            "public/expected/lisa_sched_load.trace.dat.report.txt.xz",
            "trace-cmd report",
            6,
        ),
        (
            "public/expected/lisa_sched_load.trace.dat.report-raw.txt.xz",
            "trace-cmd report",
            6,
        ),
        (
            "public/expected/derived_sched_load.v7.zstd.dat.report.txt.xz",
            "trace-cmd report",
            6,
        ),
        (
            "public/expected/derived_sched_load.v7.zstd.dat.report-raw.txt.xz",
            "trace-cmd report",
            6,
        ),
        (
            "public/expected/trappy_trace.dat.report.txt",
            "trace-cmd report",
            8,
        ),
        (
            "public/expected/trappy_trace.dat.report-raw.txt",
            "trace-cmd report",
            8,
        ),
        (
            "public/expected/trappy_trace_idle.dat.report.txt",
            "trace-cmd report",
            6,
        ),
        (
            "public/expected/trappy_trace_idle.dat.report-raw.txt",
            "trace-cmd report",
            6,
        ),
        (
            "public/expected/perfparser_probe.data.file.perf-script.txt",
            "perf script",
            1,
        ),
    ] {
        let (_, events) = check(rel, flavour, cpus);
        totals.push(events.len());
    }
    // Sizes from public/README.md (trace-cmd's own event counts of the .dat files).
    assert_eq!(
        totals,
        [2941, 11, 3, 10, 3724, 3724, 3724, 3724, 525, 525, 43, 43, 1]
    );
}
