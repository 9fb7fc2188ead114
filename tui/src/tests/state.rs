//! The state machine on `cfs-6.1-vm/mi`, keys only, no terminal.

use super::{app, mi, mi_compare, press, shown_labels};
use crate::action::View;

#[test]
fn one_run_opens_on_the_overview_and_two_on_compare() {
    assert_eq!(app(mi()).view, View::Overview);
    assert_eq!(app(mi_compare()).view, View::Compare);
}

#[test]
fn tasks_by_runtime_start_with_the_spinner() {
    let mut app = app(mi());
    press(&mut app, "2");
    assert_eq!(app.view, View::Tasks);
    assert_eq!(shown_labels(&app)[0], "mi-spin:248");
    // The order is the report's runtime order, largest first.
    let report = &app.input().unwrap().report;
    let runtimes: Vec<u64> = app
        .tasks
        .rows
        .iter()
        .map(|&i| report.tasks[i].runtime_ns)
        .collect();
    assert!(runtimes.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(
        runtimes[0],
        report.tasks.iter().map(|t| t.runtime_ns).max().unwrap()
    );
}

#[test]
fn filter_keeps_the_workers_and_esc_brings_all_back() {
    let mut app = app(mi());
    let all = app.input().unwrap().report.tasks.len();
    press(&mut app, "2/mi-work<Enter>");
    let report = &app.input().unwrap().report;
    let mut pids: Vec<i32> = app
        .tasks
        .rows
        .iter()
        .map(|&i| report.tasks[i].pid)
        .collect();
    pids.sort_unstable();
    assert_eq!(pids, [245, 246, 247]);
    press(&mut app, "<Esc>");
    assert_eq!(app.tasks.rows.len(), all);
    assert_eq!(
        app.view,
        View::Tasks,
        "Esc clears the filter before it goes back"
    );
    // `/!` inverts: everything but the workers.
    press(&mut app, "/!mi-work<Enter>");
    assert_eq!(app.tasks.rows.len(), all - 3);
}

#[test]
fn typed_predicates_select_by_value() {
    let mut app = app(mi());
    press(&mut app, "2/lat.p99>20ms<Enter>");
    let report = &app.input().unwrap().report;
    let expected: Vec<i32> = {
        let mut p: Vec<i32> = report
            .tasks
            .iter()
            .filter(|t| t.wakeup_latency.p99_ns > 20_000_000)
            .map(|t| t.pid)
            .collect();
        p.sort_unstable();
        p
    };
    let mut got: Vec<i32> = app
        .tasks
        .rows
        .iter()
        .map(|&i| report.tasks[i].pid)
        .collect();
    got.sort_unstable();
    assert!(!expected.is_empty());
    assert_eq!(got, expected);
}

#[test]
fn invert_reverses_and_g_selects_the_last_row() {
    let mut app = app(mi());
    press(&mut app, "2");
    let before = shown_labels(&app);
    press(&mut app, "I");
    let mut after = shown_labels(&app);
    after.reverse();
    assert_eq!(after, before);
    press(&mut app, "G");
    assert_eq!(app.selected(), app.tasks.rows.len() - 1);
    press(&mut app, "g");
    assert_eq!(app.selected(), 0);
}

#[test]
fn malformed_filter_shows_an_error_and_changes_nothing() {
    let mut app = app(mi());
    press(&mut app, "2/mi-work<Enter>j");
    let (rows, cursor) = (app.tasks.rows.clone(), app.selected());
    press(&mut app, "/mi(<Enter>");
    let status = app.status.clone().expect("an error message");
    assert!(status.error && status.text.contains("mi("), "{status:?}");
    assert_eq!(app.tasks.rows, rows);
    assert_eq!(app.selected(), cursor);
    assert_eq!(app.tasks.filter.as_ref().unwrap().text, "mi-work");
}

#[test]
fn grouping_by_name_merges_the_workers() {
    let mut app = app(mi());
    press(&mut app, "2tt/mi-work<Enter>");
    let report = &app.input().unwrap().report;
    let rows = app.tasks.rows.clone();
    assert_eq!(rows.len(), 1);
    let table = app.tasks.table(report);
    let merged = &table[rows[0]];
    let workers: Vec<&analysis::TaskRow> = report
        .tasks
        .iter()
        .filter(|t| t.comm.starts_with("mi-work"))
        .collect();
    assert_eq!(
        merged.runtime_ns,
        workers.iter().map(|t| t.runtime_ns).sum::<u64>()
    );
    assert_eq!(merged.members.len(), 3);
    press(&mut app, "t");
    assert_eq!(app.tasks.group, analysis::GroupBy::Pid);
}

#[test]
fn enter_opens_the_detail_of_the_selected_task_and_esc_goes_back() {
    let mut app = app(mi());
    press(&mut app, "2j<Enter>");
    assert_eq!(app.view, View::Detail);
    let second = shown_labels(&app)[1].clone();
    assert_eq!(
        crate::columns::task_label(app.current_task().unwrap()),
        second
    );
    press(&mut app, "<Esc>");
    assert_eq!(app.view, View::Tasks);
}

#[test]
fn baseline_cycles_onto_eevdf_and_the_threshold_recomputes() {
    let mut app = app(mi_compare());
    let c = app.compare.comparison().unwrap();
    assert_eq!(c.base, "cfs");
    press(&mut app, "b");
    let c = app.compare.comparison().unwrap();
    assert_eq!(c.base, "eevdf");
    super::assert_own_baseline(c, "eevdf");
    // A threshold above every change leaves nothing flagged.
    let flags = |app: &crate::state::App| {
        let c = app.compare.comparison().unwrap();
        c.system
            .iter()
            .flat_map(|r| &r.cells)
            .filter(|c| c.flag.is_some())
            .count()
    };
    let before = flags(&app);
    assert!(before > 0);
    for _ in 0..200 {
        press(&mut app, "+");
    }
    assert_eq!(app.compare.threshold_pct, 205.0);
    assert_eq!(flags(&app), 0);
    press(&mut app, "f");
    assert!(app.compare.lines.is_empty());
    press(&mut app, "bb");
    assert_eq!(app.compare.comparison().unwrap().base, "cfs");
}

#[test]
fn commands_sort_group_and_report_errors() {
    let mut app = app(mi());
    press(&mut app, "2:sort task<Enter>");
    assert!(app.status.is_none(), "{:?}", app.status);
    let report = &app.input().unwrap().report;
    let names: Vec<(&str, i32)> = app
        .tasks
        .rows
        .iter()
        .map(|&i| (report.tasks[i].comm.as_str(), report.tasks[i].pid))
        .collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
    press(&mut app, ":sort lat.max asc<Enter>");
    let maxima: Vec<u64> = app
        .tasks
        .rows
        .iter()
        .map(|&i| app.input().unwrap().report.tasks[i].wakeup_latency.max_ns)
        .collect();
    assert!(maxima.windows(2).all(|w| w[0] <= w[1]), "{maxima:?}");
    press(&mut app, ":sort nonsense<Enter>");
    assert!(app.status.as_ref().unwrap().error);
    press(&mut app, ":group name<Enter>");
    assert_eq!(app.tasks.group, analysis::GroupBy::Name);
}

#[test]
fn a_window_command_requests_a_reanalysis_and_stale_results_are_dropped() {
    let mut app = app(mi());
    let report = app.input().unwrap().report.clone();
    let mid = (report.window.start_ns + report.window.end_ns) / 2;
    let (a, b) = (report.window.start_ns as f64 / 1e9, mid as f64 / 1e9);
    press(&mut app, &format!(":time {a} {b}<Enter>"));
    assert!(app.busy());
    let (sources, generation) = app.take_request().expect("a reload");
    assert_eq!(
        sources.config.time_window.map(|w| w.1),
        Some((b * 1e9).round() as u64)
    );
    // A result of an older generation is ignored.
    app.receive(crate::loading::Message::Loaded {
        generation: generation - 1,
        result: Err("stale".into()),
    });
    assert!(app.busy() && app.status.is_none());
    let result = crate::loading::load_now(&sources);
    app.receive(crate::loading::Message::Loaded { generation, result });
    // Loaded; its comparison follows as a job.
    assert!(app.stages.is_empty() && app.comparing());
    super::run_jobs(&mut app);
    assert!(!app.busy());
    let new = &app.input().unwrap().report;
    assert!(new.window.end_ns <= (b * 1e9).round() as u64);
    assert!(
        new.tasks.iter().map(|t| t.runtime_ns).sum::<u64>()
            < report.tasks.iter().map(|t| t.runtime_ns).sum::<u64>()
    );
}
