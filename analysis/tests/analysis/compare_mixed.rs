//! Mixed inputs: one label from trace-cmd's trace.dat, one from perf's perf.data, both
//! recorded at the same time on the EEVDF 6.18 host (`pipe_pinned`: 5000 round trips
//! between pp-a and pp-b). Both parse, the two tasks are matched by name across the
//! formats, and their switch counts agree.

use crate::compare_support::*;
use analysis::compare::{compare, Options};

#[test]
fn trace_dat_and_perf_data_of_one_run_match_task_by_task() {
    let dat = load("eevdf-6.18-host/pipe_pinned/trace.dat");
    let perf = load("eevdf-6.18-host/pipe_pinned/perf.sched.data.xz");
    let c = compare(
        &[run("trace-cmd", vec![dat]), run("perf", vec![perf])],
        &Options {
            sort: analysis::columns::compare::task_row("switches").unwrap(),
            ..Options::default()
        },
    )
    .unwrap();
    let formats: Vec<Option<&str>> = c
        .runs
        .iter()
        .map(|r| r.repeats[0].format.as_deref())
        .collect();
    assert_eq!(formats, [Some("trace.dat"), Some("perf.data")]);
    for r in &c.runs {
        assert_eq!(r.kernel_releases, ["6.18.44-fc-v657"]);
    }

    // Switch rows are rates per second of each trace's window: back to counts.
    let window_s: Vec<f64> = c
        .runs
        .iter()
        .map(|r| r.repeats[0].window_ns as f64 / 1e9)
        .collect();
    let count = |row: &analysis::compare::model::MetricRow, i: usize| {
        row.cells[i].mean.unwrap() * window_s[i]
    };
    for task in ["pp-a", "pp-b"] {
        let t = c.tasks.tasks.iter().find(|t| t.name == task).unwrap();
        assert_eq!(t.present_in, ["trace-cmd", "perf"], "{task}");
        // Switches: both recorders see the same ones (pp-a: 2463 voluntary, the kernel's
        // 2462 plus the final switch-out at exit); allow 0.5 % between the recorders.
        for key in ["switches", "voluntary", "involuntary"] {
            let row = task_row(&c, task, key);
            let (a, b) = (count(row, 0), count(row, 1));
            assert!(a > 2000.0, "{task} {key}: {a}");
            assert!(
                (a - b).abs() <= 0.005 * a,
                "{task} {key}: trace.dat {a} vs perf.data {b}"
            );
            // Within the tolerance, so never flagged.
            assert_eq!(cell(row, "perf").flag, None, "{task} {key}");
        }
        // Runtime agrees within 1 % (the recorders' clocks and event sets differ).
        let row = task_row(&c, task, "runtime");
        let (a, b) = (
            cell(row, "trace-cmd").mean.unwrap(),
            cell(row, "perf").mean.unwrap(),
        );
        assert!((a - b).abs() <= 0.01 * a, "{task} runtime: {a} vs {b}");
    }
    assert_close(
        "pp-a voluntary",
        Some(count(task_row(&c, "pp-a", "voluntary"), 0)),
        Some(2463.0),
    );
    assert_close(
        "pp-b voluntary",
        Some(count(task_row(&c, "pp-b", "voluntary"), 1)),
        Some(2592.0),
    );
}
