//! The same capture in several renderings gives the same report (GitHub issue "Text and Perfetto
//! traces in"): binary vs the text its own tools printed, a trace.dat vs the ftrace text of the very
//! same run, and trace.dat -> Perfetto -> report vs trace.dat -> report.
//!
//! Text renderings carry microsecond timestamps (`trace-cmd report` rounds, ftrace and `perf script`
//! truncate), so every duration may differ by up to 1 us per sample; counts must be equal.

use analysis::{Config, Report, TaskRow};
use std::path::{Path, PathBuf};

const US: u64 = 1_000;

fn analyze(path: &Path, time_window: Option<(u64, u64)>) -> Report {
    let config = Config {
        time_window,
        ..Config::default()
    };
    analysis::pipeline::analyze(
        path,
        &analysis::pipeline::Options {
            config,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn shared(rel: &str) -> PathBuf {
    fixtures::trace(rel)
}

/// `a` and `b` agree when every duration sample may differ by `tol` ns.
fn assert_same_tasks(
    what: &str,
    a: &Report,
    b: &Report,
    tol: u64,
    only: impl Fn(&TaskRow) -> bool,
) {
    let mut compared = 0;
    for ta in a.tasks.iter().filter(|t| only(t)) {
        let tb = b.tasks.iter().find(|t| t.pid == ta.pid).unwrap_or_else(|| {
            panic!(
                "{what}: task {}:{} missing from the second rendering",
                ta.comm, ta.pid
            )
        });
        let who = format!("{what}: {}:{}", ta.comm, ta.pid);
        assert_eq!(
            ta.switches.voluntary, tb.switches.voluntary,
            "{who}: voluntary"
        );
        assert_eq!(
            ta.switches.involuntary, tb.switches.involuntary,
            "{who}: involuntary"
        );
        assert_eq!(ta.wakeups, tb.wakeups, "{who}: wakeups");
        assert_eq!(ta.migrations, tb.migrations, "{who}: migrations");
        let slices = ta.slices.count.max(tb.slices.count) + 1;
        assert!(
            ta.runtime_ns.abs_diff(tb.runtime_ns) <= tol * slices,
            "{who}: runtime {} vs {}",
            ta.runtime_ns,
            tb.runtime_ns
        );
        for (name, sa, sb) in [
            ("slices", &ta.slices, &tb.slices),
            ("wakeup latency", &ta.wakeup_latency, &tb.wakeup_latency),
            ("preemption wait", &ta.preemption_wait, &tb.preemption_wait),
            ("sched delay", &ta.sched_delay, &tb.sched_delay),
        ] {
            assert_eq!(sa.count, sb.count, "{who}: {name} count");
            assert!(
                sa.sum_ns.abs_diff(sb.sum_ns) <= tol * sa.count,
                "{who}: {name} sum {} vs {}",
                sa.sum_ns,
                sb.sum_ns
            );
            assert!(
                sa.max_ns.abs_diff(sb.max_ns) <= tol,
                "{who}: {name} max {} vs {}",
                sa.max_ns,
                sb.max_ns
            );
            assert!(
                sa.p99_ns.abs_diff(sb.p99_ns) <= tol,
                "{who}: {name} p99 {} vs {}",
                sa.p99_ns,
                sb.p99_ns
            );
        }
        compared += 1;
    }
    assert!(compared > 0, "{what}: no task compared");
}

fn assert_same_cpus(what: &str, a: &Report, b: &Report, tol: u64) {
    assert_eq!(a.cpus.len(), b.cpus.len(), "{what}: CPUs");
    for (ca, cb) in a.cpus.iter().zip(&b.cpus) {
        assert_eq!(ca.switches, cb.switches, "{what}: cpu {} switches", ca.cpu);
        let bound = tol * (ca.switches + 1);
        assert!(
            ca.busy_ns.abs_diff(cb.busy_ns) <= bound,
            "{what}: cpu {} busy {} vs {}",
            ca.cpu,
            ca.busy_ns,
            cb.busy_ns
        );
    }
}

fn assert_same_quality(what: &str, a: &Report, b: &Report) {
    assert_eq!(
        a.quality.events, b.quality.events,
        "{what}: events per kind"
    );
    assert_eq!(
        a.quality.wakeup_event, b.quality.wakeup_event,
        "{what}: wakeup event"
    );
}

const VM_RUNS: &[&str] = &[
    "cfs-6.1-vm/pp1",
    "cfs-6.1-vm/pp2",
    "cfs-6.1-vm/mi",
    "cfs-6.1-vm/nice",
    "eevdf-6.12-vm/pp1",
    "eevdf-6.12-vm/pp2",
    "eevdf-6.12-vm/mi",
    "eevdf-6.12-vm/nice",
    "pds-6.1-vm/pp1",
    "pds-6.1-vm/pp2",
    "pds-6.1-vm/mi",
    "pds-6.1-vm/mi-repeat",
    "pds-6.1-vm/nice",
    "bmq-6.1-vm/nice",
];

#[test]
fn vm_trace_dat_equals_its_trace_cmd_report() {
    for run in VM_RUNS {
        let dat = analyze(&shared(&format!("{run}/trace-v6.dat.xz")), None);
        let txt = analyze(&shared(&format!("{run}/report.txt.xz")), None);
        assert_same_quality(run, &dat, &txt);
        // trace-cmd report rounds each timestamp to the nearest us: a duration moves by < 1 us.
        assert_same_tasks(run, &dat, &txt, US, |_| true);
        assert_same_cpus(run, &dat, &txt, US);
        assert!(
            dat.window.start_ns.abs_diff(txt.window.start_ns) <= US / 2,
            "{run}: window start"
        );
        assert!(
            dat.window.end_ns.abs_diff(txt.window.end_ns) <= US / 2,
            "{run}: window end"
        );
    }
}

#[test]
fn host_trace_dat_equals_its_trace_cmd_report() {
    let dat = analyze(&shared("eevdf-6.18-host/pipe_pinned/trace.dat"), None);
    let txt = analyze(
        &shared("eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz"),
        None,
    );
    assert_same_quality("pipe_pinned", &dat, &txt);
    assert_same_tasks("pipe_pinned trace.dat vs report", &dat, &txt, US, |_| true);
    assert_same_cpus("pipe_pinned trace.dat vs report", &dat, &txt, US);
}

#[test]
fn host_perf_data_equals_its_perf_script() {
    for run in ["pipe_pinned", "hackbench"] {
        let data = analyze(
            &shared(&format!("eevdf-6.18-host/{run}/perf.sched.data.xz")),
            None,
        );
        let txt = analyze(
            &shared(&format!("eevdf-6.18-host/{run}/perf.sched.script.txt.xz")),
            None,
        );
        assert_same_quality(run, &data, &txt);
        // perf script truncates to us. Tasks that only appear in perf's side-band COMM/FORK
        // records (names without events) exist only in the binary rendering: compare the tasks
        // that have scheduling events.
        assert_same_tasks(run, &data, &txt, US, |t| {
            t.slices.count + t.wakeups + t.unknown_ns > 0
        });
        assert_same_cpus(run, &data, &txt, US);
    }
}

/// `fixtures/capture-dual.sh`: one run recorded by trace-cmd and by a second tracefs instance as
/// ftrace text at the same time. The text covers a little more time, so both are compared over
/// the trace.dat's window shrunk by 2 ms on each side (state before it is tracked in both).
/// Each tracefs instance has its own ring buffer, and the kernel reads the clock for each buffer
/// as it writes the event into it, so the same event carries slightly different times in the two
/// files (seen here: up to 1.9 us, e.g. one sched_switch at 3055.983521865 in the trace.dat and
/// 3055.983520 in the text): durations are compared within 4 us (truncation + clock reads).
#[test]
fn trace_dat_equals_ftrace_text_of_the_same_run() {
    let dat_path = fixtures::file("dual.trace.dat.xz");
    let txt_path = fixtures::file("dual.ftrace.txt.xz");
    let full = analyze(&dat_path, None);
    let window = (
        full.window.start_ns + 2_000_000,
        full.window.end_ns - 2_000_000,
    );
    let dat = analyze(&dat_path, Some(window));
    let txt = analyze(&txt_path, Some(window));
    let perl = |t: &TaskRow| t.comm == "perl";
    assert_eq!(
        dat.tasks.iter().filter(|t| perl(t)).count(),
        2,
        "the ping-pong pair"
    );
    assert!(dat
        .tasks
        .iter()
        .filter(|t| perl(t))
        .all(|t| t.switches.voluntary > 1000));
    assert_same_tasks("dual capture", &dat, &txt, 4 * US, perl);
}

#[test]
fn trace_dat_to_perfetto_and_back_gives_the_same_report() {
    let dir = std::env::temp_dir().join(format!("schedtrace-renderings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (input, compact) in [
        (shared("cfs-6.1-vm/pp2/trace-v6.dat.xz"), false),
        (shared("cfs-6.1-vm/pp2/trace-v6.dat.xz"), true),
        (shared("pds-6.1-vm/mi/trace-v6.dat.xz"), true),
        (fixtures::file("pipe_pinned.eevdf-6.18.trace.dat"), false),
        (fixtures::file("pipe_pinned.eevdf-6.18.trace.dat"), true),
    ] {
        let out = dir.join("converted.perfetto-trace");
        let opts = ingest::perfetto::WriterOptions {
            compact_sched: compact,
            ..Default::default()
        };
        ingest::perfetto::convert(&input, &out, opts, Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let direct = analyze(&input, None);
        let via = analyze(&out, None);
        let what = format!("{} (compact_sched {compact})", input.display());
        // Exactly equal: Perfetto keeps nanoseconds.
        assert_eq!(
            serde_json::to_value(&direct.tasks).unwrap(),
            serde_json::to_value(&via.tasks).unwrap(),
            "{what}: tasks"
        );
        // Non-sched events (`print`, ...) are not written to Perfetto. They only matter for when
        // a CPU's timeline becomes known (an event says who runs there), i.e. its unknown_ns.
        let has_other = direct
            .quality
            .events
            .keys()
            .any(|k| !k.starts_with("sched_"));
        let cpus = |r: &Report| {
            let mut v = serde_json::to_value(&r.cpus).unwrap();
            for c in v.as_array_mut().unwrap() {
                if has_other {
                    c.as_object_mut().unwrap().remove("unknown_ns");
                }
            }
            v
        };
        assert_eq!(cpus(&direct), cpus(&via), "{what}: cpus");
        assert_eq!(
            (direct.window.start_ns, direct.window.end_ns),
            (via.window.start_ns, via.window.end_ns),
            "{what}"
        );
        let sched = |r: &Report| {
            r.quality
                .events
                .iter()
                .filter(|(k, _)| k.starts_with("sched_"))
                .map(|(k, v)| (k.clone(), *v))
                .collect::<Vec<_>>()
        };
        assert_eq!(sched(&direct), sched(&via), "{what}: sched events per kind");
    }
    std::fs::remove_dir_all(&dir).ok();
}
