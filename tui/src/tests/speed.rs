//! Speed figures of the TUI (a benchmark, not a test: `#[ignore]`d). Run with
//! `cargo test --release -p schedtrace-tui speed -- --ignored --nocapture`.
//!
//! Measures the first frame (before any input is loaded), a frame of every view at
//! 200×60 on a real run and on a run of 100 000 tasks, and sorting and filtering those
//! 100 000 tasks.

use super::{app, mi, press};
use crate::action::View;
use crate::loading::{Data, Input};
use crate::state::{App, Restore};
use crate::ui::style::Glyphs;
use std::time::{Duration, Instant};

/// Best of `n` runs of `f`.
pub(super) fn best(n: usize, mut f: impl FnMut()) -> Duration {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// The mi run with its tasks copied to `n` (new pids; names keep their digits apart).
fn many_tasks(n: usize) -> (crate::loading::Sources, Data) {
    let (sources, data) = mi().clone();
    let mut input: Input = data.inputs[0].clone();
    let base = input.report.tasks.clone();
    std::sync::Arc::make_mut(&mut input.report).tasks = (0..n)
        .map(|i| {
            let mut t = base[i % base.len()].clone();
            t.pid = i as i32 + 1;
            t.comm = format!("{}{}", t.comm, i / base.len());
            t.runtime_ns += i as u64;
            t
        })
        .collect();
    (
        sources,
        Data {
            inputs: vec![input],
            runs: data.runs,
        },
    )
}

fn frame_times(label: &str, app: &mut App) {
    for view in View::ALL {
        app.apply(crate::action::Action::Show(view));
        let t = best(5, || {
            crate::print::frame(app, 200, 60, Glyphs::default());
        });
        println!(
            "frame 200x60 {label:>10} {:<12} {:>8.3} ms",
            view.name(),
            t.as_secs_f64() * 1e3
        );
    }
}

#[test]
#[ignore]
fn speed() {
    let (sources, _) = mi();
    let t = best(5, || {
        let mut app = App::new(sources.clone(), Restore::default());
        crate::print::frame(&mut app, 200, 60, Glyphs::default());
    });
    println!(
        "first frame (loading gauges)  {:>8.3} ms",
        t.as_secs_f64() * 1e3
    );

    let mut small = app(mi());
    press(&mut small, "2");
    frame_times("mi", &mut small);

    let big = many_tasks(100_000);
    let mut app = app(&big);
    press(&mut app, "2");
    frame_times("100k tasks", &mut app);
    let report = app.input().unwrap().report.clone();
    press(&mut app, "2");
    for (what, keys) in [
        ("sort by lat.p99", ":sort lat.p99<Enter>"),
        ("invert the order", "I"),
        ("filter /mi-work", "/mi-work<Enter>"),
        ("filter /lat.p99>5ms", "/lat.p99>5ms<Enter>"),
        ("filter cleared (Esc)", "/mi-work<Enter><Esc>"),
    ] {
        let t = best(5, || press(&mut app, keys));
        println!(
            "100k tasks: {what:<22} {:>8.3} ms ({} rows)",
            t.as_secs_f64() * 1e3,
            app.tasks.rows.len()
        );
    }
    let t = best(3, || {
        app.tasks.regroup(&report, analysis::GroupBy::Name);
    });
    println!(
        "100k tasks: group by name       {:>8.3} ms",
        t.as_secs_f64() * 1e3
    );
}
