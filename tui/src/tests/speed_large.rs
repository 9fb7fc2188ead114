//! Speed figures of the TUI on a large trace (a benchmark, not a test: `#[ignore]`d, and
//! it needs a trace named by `SCHEDTRACE_TUI_BENCH`, e.g. the ~1 GB ones `bench/` makes):
//! `SCHEDTRACE_TUI_BENCH=FILE cargo test --release -p schedtrace-tui speed_large -- --ignored --nocapture`.
//!
//! Measures the first frame (before anything is read), the TUI's load (analysis with the
//! timeline store and series) next to the plain analysis `analyze` does, a frame of every
//! view at 200×60, the timeline zoomed out and in, and sorting and filtering the tasks.

use super::press;
use super::speed::best;
use crate::action::{Action, View};
use crate::state::{App, Restore};
use crate::ui::style::Glyphs;
use std::time::{Duration, Instant};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[test]
#[ignore]
fn speed_large() {
    let Ok(path) = std::env::var("SCHEDTRACE_TUI_BENCH") else {
        println!("SCHEDTRACE_TUI_BENCH names no trace: nothing measured");
        return;
    };
    let sources = super::sources(std::slice::from_ref(&path));
    let started = Instant::now();
    let mut app = App::new(sources.clone(), Restore::default());
    crate::print::frame(&mut app, 200, 60, Glyphs::default());
    println!(
        "first frame (gauges)         {:>9.3} ms",
        ms(started.elapsed())
    );

    let t = Instant::now();
    let data = crate::loading::load_now(&sources).unwrap();
    let tui_load = t.elapsed();
    let file = std::path::Path::new(&path);
    let t = Instant::now();
    let options = analysis::pipeline::Options::default();
    analysis::pipeline::analyze(file, &options).unwrap();
    let plain = t.elapsed();
    // What the TUI asks of the analysis beyond `analyze`: the timeline store and series.
    let config = analysis::Config {
        timeline: Some(Default::default()),
        series: Some(crate::loading::SERIES_WINDOW_NS),
        ..Default::default()
    };
    let options = analysis::pipeline::Options {
        config,
        ..Default::default()
    };
    let t = Instant::now();
    analysis::pipeline::analyze_with_timeline(file, &options).unwrap();
    let with_store = t.elapsed();
    let input = &data.inputs[0];
    println!(
        "load: tui {:.2} s (timeline store: {}), analyze {:.2} s, analyze with the store and series {:.2} s; {} tasks, {} events",
        tui_load.as_secs_f64(),
        match &input.timeline {
            Some(Ok(t)) => format!("{} MiB", t.memory_bytes() >> 20),
            Some(Err(e)) => format!("dropped: {e}"),
            None => "none".into(),
        },
        plain.as_secs_f64(),
        with_store.as_secs_f64(),
        input.report.tasks.len(),
        input.report.quality.events.values().sum::<u64>()
    );
    app.loaded(Ok(data));
    press(&mut app, "2");
    for view in View::ALL {
        app.apply(Action::Show(view));
        let t = best(5, || {
            crate::print::frame(&mut app, 200, 60, Glyphs::default());
        });
        println!("frame 200x60 {:<16} {:>9.3} ms", view.name(), ms(t));
    }
    press(&mut app, "4");
    for (what, keys) in [
        ("timeline zoomed in", "wwwwwwwwwwww"),
        ("timeline fit", "0"),
    ] {
        press(&mut app, keys);
        let t = best(5, || {
            crate::print::frame(&mut app, 200, 60, Glyphs::default());
        });
        println!(
            "frame 200x60 {what:<16} {:>9.3} ms (span {} ms)",
            ms(t),
            app.timeline.span() / 1_000_000
        );
    }
    press(&mut app, "2");
    for (what, keys) in [
        ("sort by lat.p99", ":sort lat.p99<Enter>"),
        ("filter /lat.p99>5ms", "/lat.p99>5ms<Enter>"),
        ("filter, then Esc", "/lat.p99>5ms<Enter><Esc>"),
    ] {
        let t = best(5, || press(&mut app, keys));
        println!(
            "tasks: {what:<22} {:>9.3} ms ({} rows)",
            ms(t),
            app.tasks.rows.len()
        );
    }
}
