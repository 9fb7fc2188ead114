//! `--series 10ms` on the `mi` and `nice` runs of every VM kernel: each CPU's per-window
//! busy time sums to its busy_ns, switches and wakeup preemptions to its counts, the
//! histograms hold every wakeup latency of the report, and the per-window Jain values'
//! mean is the report's 10 ms short-term mean.

use analysis::{Config, FairSet};

const MS10: u64 = 10_000_000;

fn analyze(rel: &str, fair_set: &str) -> analysis::Report {
    let path = fixtures::trace(rel);
    let config = Config {
        series: Some(MS10),
        fair_set: Some(FairSet::parse(fair_set).unwrap()),
        ..Default::default()
    };
    analysis::pipeline::analyze(
        &path,
        &analysis::pipeline::Options {
            config,
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn windows_add_up_to_the_report_on_mi_and_nice() {
    let runs = [
        ("cfs-6.1-vm", "mi", "^mi-"),
        ("eevdf-6.12-vm", "mi", "^mi-"),
        ("pds-6.1-vm", "mi", "^(mintr|mspin)"),
        ("cfs-6.1-vm", "nice", "nice"),
        ("eevdf-6.12-vm", "nice", "nice"),
        ("pds-6.1-vm", "nice", "nice"),
        ("bmq-6.1-vm", "nice", "nice"),
    ];
    for (kernel, run, set) in runs {
        let r = analyze(&format!("{kernel}/{run}/trace-v6.dat.xz"), set);
        let name = format!("{kernel}/{run}");
        let s = r.series.as_ref().expect("asked for");
        assert_eq!(s.window_ns, MS10);
        assert_eq!(s.start_ns, r.window.start_ns);
        assert_eq!(s.windows, r.window.len_ns().div_ceil(MS10), "{name}");
        assert_eq!(s.cpus.len(), r.cpus.len());
        for (c, row) in s.cpus.iter().zip(&r.cpus) {
            assert_eq!(c.cpu, row.cpu);
            assert_eq!(
                c.busy_ns.iter().sum::<u64>(),
                row.busy_ns,
                "{name} cpu {}",
                row.cpu
            );
            assert_eq!(c.switches.iter().sum::<u64>(), row.switches, "{name}");
            assert_eq!(
                c.wakeup_preemptions.iter().sum::<u64>(),
                row.wakeup_preemptions
            );
            assert_eq!(c.lost_events.iter().sum::<u64>(), row.lost_events);
            assert!(c.busy_ns.iter().all(|&b| b <= MS10));
        }
        let latencies: u64 = s.wakeup_latency_log2.iter().flatten().sum();
        assert_eq!(latencies, r.system.wakeup_latency.count, "{name}");
        let short = &r.system.fairness.short_term[0];
        assert_eq!(short.window_ns, MS10);
        let jain: Vec<f64> = s.jain.iter().flatten().copied().collect();
        assert_eq!(jain.len() as u64, short.windows, "{name}");
        assert!(jain.len() > 250, "{name}: {}", jain.len());
        let mean = jain.iter().sum::<f64>() / jain.len() as f64;
        assert!(
            (mean - short.mean.unwrap()).abs() < 1e-12,
            "{name}: {mean} vs {short:?}"
        );
        // The fair set's tasks, with a lag at every window they competed through.
        assert!(
            !s.lag.is_empty()
                && s.lag
                    .iter()
                    .all(|l| l.lag_ns.iter().flatten().count() > 200)
        );
    }
}

/// A report with series (and a grouped one) is valid against schemas/report.schema.json,
/// which describes the series and the other schema-2 blocks.
#[test]
fn series_reports_match_the_json_schema() {
    let schema_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).expect("valid schema");
    let r = analyze("eevdf-6.12-vm/mi/trace-v6.dat.xz", "^mi-");
    let grouped = r.select(&analysis::Selection {
        group: analysis::GroupBy::Name,
        ..Default::default()
    });
    for report in [&r, &grouped] {
        let json = serde_json::to_value(report).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        for p in [
            "/series/cpus/0/busy_ns/0",
            "/system/affinity/wakeup_cpu_pairs",
            "/system/wakeup_preemption/triples",
            "/tasks/0/histograms/slices_log2",
        ] {
            assert!(json.pointer(p).is_some(), "{p}");
        }
    }
}
