//! The `cpu=N` filter on `cfs-6.1-vm/mi`: the tasks it keeps are those an independent
//! analysis restricted to that CPU (`analyze -C N`) sees running, taken from the same file.

use super::{app, mi, press, sources, trace, CFS_MI};
use crate::state::App;
use std::collections::BTreeSet;

/// pids with runtime in the analysis of the `mi` trace restricted to `cpu` (`-C cpu`).
fn ran_on_by_analysis(cpu: u32) -> BTreeSet<i32> {
    let mut s = sources(&[trace(CFS_MI).display().to_string()]);
    s.config.cpus = Some(vec![cpu]);
    let data = crate::loading::load_now(&s).unwrap();
    let report = &data.inputs[0].report;
    report
        .tasks
        .iter()
        .filter(|t| t.runtime_ns > 0)
        .map(|t| t.pid)
        .collect()
}

fn shown_pids(app: &App) -> BTreeSet<i32> {
    let report = &app.input().unwrap().report;
    let table = app.tasks.table(report);
    app.tasks.rows.iter().map(|&i| table[i].pid).collect()
}

#[test]
fn cpu_filter_keeps_the_tasks_that_ran_there() {
    let all: BTreeSet<i32> = mi().1.inputs[0]
        .report
        .tasks
        .iter()
        .map(|t| t.pid)
        .collect();
    for cpu in [1, 3] {
        let expected = ran_on_by_analysis(cpu);
        // Today's values: the workers and the spinner on CPU 1, schedwl on CPU 3.
        assert!(expected.len() >= 3, "cpu {cpu}: {expected:?}");
        let mut app = app(mi());
        press(&mut app, &format!("2/cpu={cpu}<Enter>"));
        assert!(app.status.is_none(), "{:?}", app.status);
        assert_eq!(shown_pids(&app), expected, "cpu={cpu}");
        // `cpu!=N` keeps the rest, and combines with other terms.
        press(&mut app, &format!("/cpu!={cpu}<Enter>"));
        let rest: BTreeSet<i32> = all.difference(&expected).copied().collect();
        assert_eq!(shown_pids(&app), rest, "cpu!={cpu}");
    }
    let mut app = app(mi());
    press(&mut app, "2/cpu=1 mi-work<Enter>");
    let workers: BTreeSet<i32> = ran_on_by_analysis(1)
        .into_iter()
        .filter(|pid| (245..=247).contains(pid))
        .collect();
    assert_eq!(shown_pids(&app), workers);
}

#[test]
fn cpu_filter_on_grouped_rows_keeps_groups_with_a_member_there() {
    let expected = ran_on_by_analysis(1);
    let mut app = app(mi());
    // By name: the three workers are one row, kept because they ran on CPU 1.
    press(&mut app, "2tt/cpu=1<Enter>");
    let report = &app.input().unwrap().report;
    let table = app.tasks.table(report);
    let kept: Vec<&analysis::TaskRow> = app.tasks.rows.iter().map(|&i| &table[i]).collect();
    let mut members: BTreeSet<i32> = BTreeSet::new();
    for row in &kept {
        let pids = if row.members.is_empty() {
            vec![row.pid]
        } else {
            row.members.clone()
        };
        assert!(pids.iter().any(|p| expected.contains(p)), "{}", row.comm);
        members.extend(pids);
    }
    assert!(expected.is_subset(&members));
}

#[test]
fn cpu_filter_without_a_timeline_is_an_error_that_changes_nothing() {
    let mut loaded = mi().clone();
    // What a JSON report gives: no timeline store.
    loaded.1.inputs[0].timeline = None;
    let mut app = app(&loaded);
    press(&mut app, "2/mi-work<Enter>");
    let rows = app.tasks.rows.clone();
    press(&mut app, "/cpu=1<Enter>");
    let status = app.status.clone().expect("an error");
    assert!(
        status.error && status.text.contains("JSON report"),
        "{status:?}"
    );
    assert_eq!(app.tasks.rows, rows);
    assert_eq!(app.tasks.filter.as_ref().unwrap().text, "mi-work");
}
