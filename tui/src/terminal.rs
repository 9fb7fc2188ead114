//! The interactive driver: terminal setup and restore (also on panic, through ratatui's
//! hook), the event loop, and the loader threads. The loop redraws only when something
//! changed: a key, a resize, a loader message.

use crate::keymap::Key;
use crate::loading::{self, Message};
use crate::state::App;
use crate::ui::{self, style::Glyphs};
use base64::Engine;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, MouseEventKind,
};
use ratatui::crossterm::execute;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// How long the loop waits for a key before it looks at the loader's messages again.
const POLL: Duration = Duration::from_millis(40);

pub(crate) fn run(mut app: App, glyphs: Glyphs, mouse: bool) -> Result<(), String> {
    let mut terminal =
        ratatui::try_init().map_err(|e| format!("cannot set up the terminal: {e}"))?;
    if mouse {
        // ratatui's panic hook restores raw mode and the screen; mouse capture is ours to undo.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = execute!(std::io::stdout(), DisableMouseCapture);
            previous(info);
        }));
        let _ = execute!(std::io::stdout(), EnableMouseCapture);
    }
    let result = event_loop(&mut terminal, &mut app, glyphs);
    if mouse {
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
    }
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    glyphs: Glyphs,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("terminal: {e}");
    let (tx, rx) = mpsc::channel::<Message>();
    let current = Arc::new(AtomicU64::new(app.generation));
    loading::start(
        app.sources.clone(),
        app.generation,
        current.clone(),
        app.loading.clone(),
        tx.clone(),
    );
    // Jobs (regroup, compare) send their outcome here, numbered; stale ones are dropped.
    let (job_tx, job_rx) = mpsc::channel();
    let mut dirty = true;
    while !app.quit {
        if dirty {
            let size = terminal.size().map_err(io)?;
            app.page_rows = size.height.saturating_sub(ui::CHROME_ROWS + 1) as usize;
            let frame = terminal.draw(|f| ui::draw(f, app, glyphs)).map_err(io)?;
            if app.copy_requested {
                app.copy_requested = false;
                copy_to_clipboard(&crate::print::text(frame.buffer));
            }
            dirty = false;
        }
        // While a load runs the gauges' clocks move: redraw at each poll.
        dirty |= app.busy();
        if event::poll(POLL).map_err(io)? {
            match event::read().map_err(io)? {
                Event::Key(k) => {
                    if let Some(key) = crate::keys::from_event(k) {
                        app.key(key);
                        dirty = true;
                    }
                }
                Event::Mouse(m) => match m.kind {
                    MouseEventKind::ScrollDown => {
                        app.key(Key::Down);
                        dirty = true;
                    }
                    MouseEventKind::ScrollUp => {
                        app.key(Key::Up);
                        dirty = true;
                    }
                    _ => {}
                },
                Event::Resize(..) => dirty = true,
                _ => {}
            }
        }
        for message in rx.try_iter() {
            let before = app.data.clone();
            app.receive(message);
            if let Some(data) = app
                .data
                .as_ref()
                .filter(|d| !before.as_ref().is_some_and(|b| Arc::ptr_eq(b, d)))
            {
                prepare_summaries(data.clone());
            }
            dirty = true;
        }
        for (id, outcome) in job_rx.try_iter() {
            app.finish(id, outcome);
            dirty = true;
        }
        while let Some((id, job)) = app.take_job() {
            let tx = job_tx.clone();
            std::thread::spawn(move || {
                let _ = tx.send((id, job.run()));
            });
        }
        if let Some((sources, generation)) = app.take_request() {
            // Outdates the running load: its workers stop at their next input.
            current.store(generation, Ordering::Relaxed);
            loading::start(
                sources,
                generation,
                current.clone(),
                app.loading.clone(),
                tx.clone(),
            );
            dirty = true;
        }
    }
    Ok(())
}

/// Builds the timeline's per-CPU summaries of every input on a worker, after the load's
/// first frame: the timeline view would otherwise build them when first drawn.
fn prepare_summaries(data: Arc<crate::loading::Data>) {
    std::thread::spawn(move || {
        for input in &data.inputs {
            if let Some(Ok(timeline)) = &input.timeline {
                timeline.prepare_summaries();
            }
        }
    });
}

/// Puts `text` on the terminal's clipboard with OSC 52 (works over ssh and in tmux with
/// `set-clipboard on`; terminals without it ignore the sequence).
fn copy_to_clipboard(text: &str) {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "\x1b]52;c;{encoded}\x07");
    let _ = out.flush();
}
