//! What a recording's sidecar changes in the analysis besides the allowed CPUs: the fairness
//! weights come from the nice it sampled where the events' `prio` is ambiguous (BMQ's
//! untraced boost), and only there.

use analysis::pipeline::{analyze, Options};
use analysis::recording::{Recording, TaskSample, FORMAT_VERSION};
use std::sync::Arc;

/// A recording that saw the `nice` capture's two workers at these nice values.
fn recording(tasks: &[(i32, i32)]) -> Options {
    let rec = Recording {
        schedtrace_recording: FORMAT_VERSION,
        tasks: tasks
            .iter()
            .map(|&(pid, nice)| TaskSample {
                pid,
                nice,
                cpus: "1".into(),
                policy: "SCHED_OTHER".into(),
                why: "first".into(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let mut o = Options::default();
    o.config.recording = Some(Arc::new(("hand-made".into(), rec)));
    o
}

fn weights(kernel: &str, pids: [i32; 2], o: &Options) -> (Vec<Option<u32>>, String) {
    let path = fixtures::trace(&format!("{kernel}/nice/trace-v6.dat.xz"));
    let r = analyze(&path, o).unwrap();
    let w = pids
        .iter()
        .map(|&p| {
            let t = r.tasks.iter().find(|t| t.pid == p).unwrap();
            t.fairness.as_ref().map(|f| f.weight)
        })
        .collect();
    (w, r.system.fairness.prio_scale)
}

#[test]
fn a_recorded_nice_sets_the_weight_where_prio_is_ambiguous() {
    // BMQ: nice0 (pid 188) and nice5 (189); prio with the boost assumed gives 1024 and 335.
    let (plain, _) = weights("bmq-6.1-vm", [188, 189], &Options::default());
    assert_eq!(plain, vec![Some(1024), Some(335)]);
    // Recorded at nice 0 and nice 10: the kernel's weights of those (1024, 110).
    let (recorded, scale) = weights("bmq-6.1-vm", [188, 189], &recording(&[(188, 0), (189, 10)]));
    assert_eq!(recorded, vec![Some(1024), Some(110)]);
    assert!(
        scale.contains("from the nice the recording sampled"),
        "{scale}"
    );
    // Mainline's prio is exact: the recording does not override it.
    let cfs = analyze(
        &fixtures::trace("cfs-6.1-vm/nice/trace-v6.dat.xz"),
        &Options::default(),
    )
    .unwrap();
    let pids: Vec<i32> = cfs
        .tasks
        .iter()
        .filter(|t| t.comm.starts_with("nice"))
        .map(|t| t.pid)
        .collect();
    let (a, b) = (pids[0], pids[1]);
    let (plain, _) = weights("cfs-6.1-vm", [a, b], &Options::default());
    let (recorded, scale) = weights("cfs-6.1-vm", [a, b], &recording(&[(a, 10), (b, 10)]));
    assert_eq!(plain, recorded);
    assert!(!scale.contains("recording"), "{scale}");
}
