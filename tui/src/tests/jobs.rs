//! Regrouping and a new baseline as jobs, through the pure state machine: the key asks for
//! a job and changes nothing shown yet (the old view stays, "recomputing…" in the header);
//! the outcome of a superseded job is dropped; the newest one is applied. Expected tables
//! come from the analysis itself (`Report::select`, `compare`), not typed in.

use super::{app, mi, mi_compare, press, run_jobs, shown_labels};
use crate::action::View;
use crate::keymap::Key;
use crate::print;
use crate::state::jobs::Outcome;
use crate::state::{App, Restore};
use crate::ui::style::Glyphs;
use analysis::{GroupBy, Selection};

fn header(app: &mut App) -> String {
    let text = print::text(&print::frame(app, 160, 50, Glyphs::default()));
    text.lines().next().unwrap().to_string()
}

#[test]
fn regrouping_runs_as_a_job_and_a_superseded_one_is_dropped() {
    let mut app = app(mi());
    press(&mut app, "2");
    let by_pid = shown_labels(&app);
    app.key(crate::keymap::Key::Char('t'));
    // Nothing changed yet: the old table stays, with the badge.
    assert_eq!(app.tasks.group, GroupBy::Pid);
    assert_eq!(shown_labels(&app), by_pid);
    assert!(app.busy());
    assert!(header(&mut app).contains("recomputing…"));
    let (first, job) = app.take_job().expect("a regroup job");
    let stale = job.run();
    // `t` again before the first is done: pid -> process -> name.
    app.key(crate::keymap::Key::Char('t'));
    let (second, job) = app.take_job().expect("a second job");
    assert!(second > first);
    app.finish(first, stale);
    assert_eq!(
        app.tasks.group,
        GroupBy::Pid,
        "a superseded outcome is dropped"
    );
    assert!(app.busy());
    app.finish(second, job.run());
    assert!(!app.busy());
    assert_eq!(app.tasks.group, GroupBy::Name);
    assert!(!header(&mut app).contains("recomputing"));
    // The table is the analysis' own grouping by name, in runtime order.
    let report = &app.input().unwrap().report;
    let mut expected = report.select(&Selection {
        group: GroupBy::Name,
        ..Selection::default()
    });
    expected
        .tasks
        .sort_by_key(|t| (std::cmp::Reverse(t.runtime_ns), t.pid));
    let expected: Vec<String> = expected
        .tasks
        .iter()
        .map(crate::columns::task_label)
        .collect();
    assert_eq!(shown_labels(&app), expected);
}

#[test]
fn a_new_baseline_runs_as_a_job_and_only_the_newest_counts() {
    let mut app = app(mi_compare());
    assert_eq!(app.compare.comparison().unwrap().base, "cfs");
    app.key(crate::keymap::Key::Char('b'));
    let (first, job) = app.take_job().unwrap();
    // The old comparison stays on screen while the job runs.
    assert_eq!(app.compare.comparison().unwrap().base, "cfs");
    assert!(header(&mut app).contains("recomputing…"));
    let eevdf = job.run();
    app.key(crate::keymap::Key::Char('b'));
    let (second, job) = app.take_job().unwrap();
    app.finish(first, eevdf);
    assert_eq!(app.compare.comparison().unwrap().base, "cfs");
    app.finish(second, job.run());
    let c = app.compare.comparison().unwrap();
    assert_eq!(c.base, "pds");
    // PDS is its own baseline: its normalised values are 1.000.
    super::assert_own_baseline(c, "pds");
    // The same as comparing with that baseline directly.
    let direct = crate::state::compare::compare(
        &app.data.as_ref().unwrap().runs,
        2,
        app.compare.threshold_pct,
    );
    assert_eq!(format!("{:?}", direct.unwrap().unwrap()), format!("{c:?}"));
}

#[test]
fn a_reload_supersedes_a_regroup_and_keeps_its_grouping() {
    let mut app = app(mi());
    let report = app.input().unwrap().report.clone();
    press(&mut app, "2");
    app.key(crate::keymap::Key::Char('t'));
    let (id, job) = app.take_job().unwrap();
    let outcome = job.run();
    let mid = (report.window.start_ns + report.window.end_ns) / 2;
    press(
        &mut app,
        &format!(
            ":time {} {}<Enter>",
            report.window.start_ns as f64 / 1e9,
            mid as f64 / 1e9
        ),
    );
    let (sources, generation) = app.take_request().unwrap();
    let result = crate::loading::load_now(&sources);
    app.receive(crate::loading::Message::Loaded { generation, result });
    // The new data is grouped by process, as asked before the reload.
    assert_eq!(app.tasks.group, GroupBy::Process);
    let rows = shown_labels(&app);
    // The old job's table (of the whole trace) arrives late: dropped.
    assert!(matches!(outcome, Outcome::Regrouped { .. }));
    app.finish(id, outcome);
    assert_eq!(shown_labels(&app), rows);
    // The new data's comparison is on its way, and then nothing more.
    assert!(app.comparing());
    run_jobs(&mut app);
    assert!(app.compare.comparison().is_some());
    assert!(!app.busy());
    let new = &app.input().unwrap().report;
    assert!(new.window.end_ns <= mid + 1_000);
}

fn screen(app: &mut App) -> String {
    print::text(&print::frame(app, 160, 50, Glyphs::default()))
}

/// The comparison of a load is a job started with the first frame: until it is done the
/// Compare view and the header say "comparing…" and the keys work (other views, a new
/// baseline asked for meanwhile); then the view shows the comparison `compare` gives on
/// the same runs with that baseline.
#[test]
fn the_comparison_of_a_load_comes_after_the_first_frame() {
    let loaded = mi_compare();
    let mut app = App::new(loaded.0.clone(), Restore::default());
    app.loaded(Ok(loaded.1.clone()));
    assert_eq!(app.view, View::Compare);
    assert!(app.comparing() && app.compare.comparison().is_none());
    let first = screen(&mut app);
    assert!(
        first.lines().next().unwrap().contains("comparing…"),
        "{first}"
    );
    assert!(
        first.lines().skip(1).any(|l| l.trim() == "comparing…"),
        "{first}"
    );
    assert!(!first.contains("wakeup latency p50"), "{first}");
    // Keys work meanwhile: the tasks of the first run, then back, then a new baseline.
    app.key(Key::Char('2'));
    assert_eq!(app.view, View::Tasks);
    assert!(!shown_labels(&app).is_empty());
    app.apply(crate::action::Action::Show(View::Compare));
    app.key(Key::Char('b'));
    assert!(app.comparing());
    run_jobs(&mut app);
    assert!(!app.busy());
    let c = app.compare.comparison().expect("the comparison");
    assert_eq!(c.base, "eevdf");
    let direct = crate::state::compare::compare(
        &app.data.as_ref().unwrap().runs,
        1,
        app.compare.threshold_pct,
    );
    assert_eq!(direct.unwrap().unwrap(), *c);
    let done = screen(&mut app);
    assert!(!done.contains("comparing"), "{done}");
    assert!(done.contains("wakeup latency p50"), "{done}");
}

/// `--print` builds the comparison for a frame of the Compare view (or when keys are
/// given), and not for a frame of another view, which does not show it.
#[test]
fn print_waits_for_the_comparison_only_where_it_is_shown() {
    let options = |view: Option<View>| crate::Options {
        sources: mi_compare().0.clone(),
        restore: Restore {
            view,
            ..Restore::default()
        },
        mouse: false,
        ascii: false,
    };
    let compare = crate::print(options(None), 160, 50, "").unwrap();
    assert!(compare.contains("wakeup latency p50"), "{compare}");
    assert!(!compare.contains("comparing"), "{compare}");
    let overview = crate::print(options(Some(View::Overview)), 160, 50, "").unwrap();
    assert!(!overview.contains("comparing"), "{overview}");
    assert!(!overview.contains("recomputing"), "{overview}");
    // With keys, the comparison is there for them.
    let keyed = crate::print(options(Some(View::Overview)), 160, 50, "8").unwrap();
    assert!(keyed.contains("wakeup latency p50"), "{keyed}");
}
