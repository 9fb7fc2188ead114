//! Tests of the state machine and the rendering on the real traces of `fixtures/traces`:
//! expected values come from the analysis of the same files (the model `analyze --json`
//! and `compare --json` write), never typed in.

mod cpu_filter;
mod detail;
mod jobs;
mod keymap;
mod placement;
mod progress;
mod props;
mod render;
mod speed;
mod speed_large;
mod state;
mod triples;
mod why;

use crate::loading::{self, Data, Sources};
use crate::state::{App, Restore};
use analysis::compare::RunSpec;
use std::path::PathBuf;
use std::sync::OnceLock;

pub(crate) fn trace(rel: &str) -> PathBuf {
    fixtures::trace(rel)
}

pub(crate) fn sources(runs: &[String]) -> Sources {
    Sources {
        runs: runs.iter().map(|r| RunSpec::parse(r).unwrap()).collect(),
        labels: Vec::new(),
        config: analysis::Config::default(),
        kernel_release: None,
        read: Default::default(),
    }
}

pub(crate) const CFS_MI: &str = "cfs-6.1-vm/mi/trace-v6.dat.xz";

/// The CFS `mi` run, loaded once for all tests.
pub(crate) fn mi() -> &'static (Sources, Data) {
    static LOADED: OnceLock<(Sources, Data)> = OnceLock::new();
    LOADED.get_or_init(|| load(&[trace(CFS_MI).display().to_string()]))
}

/// cfs / eevdf / pds (two repeats) on `mi`, labelled, loaded once.
pub(crate) fn mi_compare() -> &'static (Sources, Data) {
    static LOADED: OnceLock<(Sources, Data)> = OnceLock::new();
    LOADED.get_or_init(|| {
        load(&[
            format!("cfs={}", trace(CFS_MI).display()),
            format!(
                "eevdf={}",
                trace("eevdf-6.12-vm/mi/trace-v6.dat.xz").display()
            ),
            format!(
                "pds={},{}",
                trace("pds-6.1-vm/mi/trace-v6.dat.xz").display(),
                trace("pds-6.1-vm/mi-repeat/trace-v6.dat.xz").display()
            ),
        ])
    })
}

pub(crate) fn load(runs: &[String]) -> (Sources, Data) {
    let sources = sources(runs);
    let data = loading::load_now(&sources).unwrap();
    (sources, data)
}

/// A fresh app on already loaded data, once the jobs the load started (its comparison)
/// are done, as a worker would do them.
pub(crate) fn app(loaded: &(Sources, Data)) -> App {
    let mut app = App::new(loaded.0.clone(), Restore::default());
    app.loaded(Ok(loaded.1.clone()));
    run_jobs(&mut app);
    app
}

/// Runs the jobs `app` asks for, at once.
pub(crate) fn run_jobs(app: &mut App) {
    while let Some((id, job)) = app.take_job() {
        app.finish(id, job.run());
    }
}

/// Presses `keys`, running each job they start at once (as `--print` does).
pub(crate) fn press(app: &mut App, keys: &str) {
    for key in crate::keys::parse(keys).unwrap() {
        app.key(key);
        run_jobs(app);
    }
}

/// Run `label` is the baseline of `c`: its normalised value is 1.000 on every system metric
/// that has one (and there are several).
pub(crate) fn assert_own_baseline(c: &analysis::compare::Comparison, label: &str) {
    let mut checked = 0;
    for row in &c.system {
        let cell = row.cells.iter().find(|c| c.label == label).unwrap();
        if let Some(norm) = cell.normalized {
            assert_eq!(format!("{norm:.3}"), "1.000", "{}", row.key);
            checked += 1;
        }
    }
    assert!(checked > 5);
}

/// The `task:pid` labels of the Tasks table's rows, in order.
pub(crate) fn shown_labels(app: &App) -> Vec<String> {
    let report = &app.input().unwrap().report;
    let table = app.tasks.table(report);
    app.tasks
        .rows
        .iter()
        .map(|&i| crate::columns::task_label(&table[i]))
        .collect()
}
