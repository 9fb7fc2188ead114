//! Loading with progress: the counters the readers move reach the input's size and the
//! events an independent read of the same file gives, the gauge shows them, a cancelled counter stops the read, and the state cancels the load it supersedes
//! and the one in flight on quit.

use super::{app, mi, press, sources, trace, CFS_MI};
use crate::loading::{self, Data, Message, Stage};
use crate::print;
use crate::state::{App, Restore};
use crate::ui::gauges;
use crate::ui::style::Glyphs;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// Loads `file` through the worker threads as the terminal does; every message kept.
fn load_watched(file: &str) -> (Vec<Message>, Arc<ingest::Progress>) {
    let s = sources(&[trace(file).display().to_string()]);
    let counters = loading::progress_counters(&s);
    let progress = counters[0].clone();
    let (tx, rx) = std::sync::mpsc::channel();
    loading::start(s, 7, Arc::new(AtomicU64::new(7)), counters, tx);
    let mut messages = Vec::new();
    while let Ok(m) = rx.recv() {
        let done = matches!(m, Message::Loaded { .. });
        messages.push(m);
        if done {
            break;
        }
    }
    (messages, progress)
}

fn data(messages: Vec<Message>) -> Data {
    match messages.into_iter().last() {
        Some(Message::Loaded { result, .. }) => result.unwrap(),
        _ => panic!("no result"),
    }
}

#[test]
fn the_counters_reach_the_file_size_and_the_events_of_the_report() {
    for file in [CFS_MI, "eevdf-6.18-host/pipe_pinned/trace.dat"] {
        let (messages, progress) = load_watched(file);
        let working = messages.iter().any(|m| {
            matches!(m, Message::Stage { stage: Stage::Working { progress: p, .. }, .. }
                if Arc::ptr_eq(p, &progress))
        });
        assert!(working, "{file}: the gauge's stage carries the counter");
        let report = data(messages).inputs.remove(0).report;
        // The counter counts what the readers hand on: the trace's events (the report's,
        // as trace-cmd counts them) and the task names the readers add from its tables.
        let mut handed = 0u64;
        ingest::read_path(&trace(file), &mut |_: &ingest::Event| handed += 1).unwrap();
        let events = progress.events();
        assert_eq!(events, handed, "{file}");
        assert!(
            events >= report.quality.events.values().sum::<u64>(),
            "{file}"
        );
        assert_eq!(Some(progress.bytes()), progress.total(), "{file}");
        let size = std::fs::metadata(trace(file)).unwrap().len();
        if file.ends_with(".dat") {
            assert_eq!(progress.bytes(), size, "{file}: a plain file, read once");
        } else {
            // Compressed: the compressed bytes, then the plain ones.
            assert!(progress.bytes() > size, "{file}");
        }
        let (label, ratio) = gauges::working(&progress, 2.0);
        assert_eq!(ratio, 1.0);
        let mb = format!("{:.1}", progress.bytes() as f64 / 1e6);
        assert!(
            label.starts_with(&format!("{mb} of {mb} MB, {events} events")),
            "{label}"
        );
        assert!(label.contains(&format!("{:.1} MB/s", progress.bytes() as f64 / 1e6 / 2.0)));
    }
}

#[test]
fn a_cancelled_counter_stops_the_read() {
    let s = sources(&[trace(CFS_MI).display().to_string()]);
    let counters = loading::progress_counters(&s);
    counters[0].cancel();
    let (tx, rx) = std::sync::mpsc::channel();
    loading::start(s, 1, Arc::new(AtomicU64::new(1)), counters, tx);
    let result = rx
        .iter()
        .find_map(|m| match m {
            Message::Loaded { result, .. } => Some(result),
            _ => None,
        })
        .unwrap();
    let e = result.unwrap_err();
    assert!(e.contains("cancel"), "{e}");
}

#[test]
fn the_first_frame_has_a_gauge_per_input_at_once() {
    let s = sources(&[
        trace(CFS_MI).display().to_string(),
        trace("eevdf-6.12-vm/mi/trace-v6.dat.xz")
            .display()
            .to_string(),
    ]);
    let mut app = App::new(s.clone(), Restore::default());
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    for path in loading::paths(&s) {
        assert!(text.contains(&path.display().to_string()), "{text}");
    }
    assert_eq!(text.matches("waiting").count(), 2, "{text}");
    // A reader under way: its counter on the gauge.
    let progress = Arc::new(ingest::Progress::new());
    app.stages[0] = Stage::Working {
        progress,
        since: std::time::Instant::now(),
    };
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    assert!(text.contains("0.0 MB, 0 events"), "{text}");
}

#[test]
fn a_new_load_cancels_the_one_it_supersedes_and_quit_cancels_the_last() {
    let mut app = app(mi());
    let first = app.loading.clone();
    press(&mut app, ":cpu 1<Enter>");
    assert!(app.take_request().is_some());
    assert!(first.iter().all(|p| p.is_cancelled()));
    let second = app.loading.clone();
    assert!(second.iter().all(|p| !p.is_cancelled()));
    press(&mut app, "q");
    assert!(app.quit);
    assert!(second.iter().all(|p| p.is_cancelled()));
}
