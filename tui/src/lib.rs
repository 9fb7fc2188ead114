//! The interactive terminal UI of schedtrace (`schedtrace tui RUN...`): browse one run,
//! compare kernels, without leaving the terminal.
//!
//! Layers, each testable alone:
//! - [`loading`]: runs and their inputs, loaded on worker threads (traces analysed like
//!   `analyze`, JSON reports read as they are), with per-input progress;
//! - `keymap`: the one table that dispatches keys and generates the `?` help;
//! - `state`: the application state, changed only by `key -> action -> state`;
//! - `ui`: drawing, a pure function of the state (only visible rows are built);
//! - `terminal`: the event loop, terminal setup and restore (also on panic);
//! - `print`: one frame as plain text (`--print`).
//!
//! The data is the analysis crate's public model: [`analysis::Report`] for the single-run
//! views, [`analysis::compare::Comparison`] for the Compare view.

#![warn(unreachable_pub)]

mod action;
mod columns;
mod filter;
mod keymap;
mod keys;
pub mod loading;
mod print;
mod ran_on;
mod state;
mod terminal;
mod ui;

#[cfg(test)]
mod tests;

pub use action::View;
pub use analysis::GroupBy;
pub use loading::Sources;
pub use state::Restore;

/// Everything `schedtrace tui` was given.
#[derive(Debug, Clone)]
pub struct Options {
    pub sources: Sources,
    pub restore: Restore,
    /// `--mouse`: capture the mouse (wheel scrolls); off so terminal selection copies.
    pub mouse: bool,
    /// `--ascii`: no braille, block or box glyphs.
    pub ascii: bool,
}

/// Checks a `--sort` column key.
pub fn check_sort_key(key: &str) -> Result<String, String> {
    match columns::find(key) {
        Some(_) => Ok(key.to_string()),
        None => {
            let keys: Vec<&str> = columns::COLUMNS.iter().map(|c| c.key).collect();
            Err(format!(
                "unknown column {key:?}; columns: {}",
                keys.join(", ")
            ))
        }
    }
}

/// Checks a `--filter` expression.
pub fn check_filter(text: &str) -> Result<String, String> {
    filter::Filter::<analysis::TaskRow>::parse(text).map(|_| text.to_string())
}

/// Runs the TUI in the terminal until the user quits.
pub fn run(options: Options) -> Result<(), String> {
    let glyphs = ui::style::Glyphs {
        ascii: options.ascii,
    };
    let app = state::App::new(options.sources, options.restore);
    terminal::run(app, glyphs, options.mouse)
}

/// Loads the inputs, applies `keys` (vim notation, see `--keys`) and returns the frame
/// drawn at `width` × `height` as plain text. A key that starts a re-analysis or a job
/// waits for it. The comparison of the load, which the terminal builds after its first
/// frame, is waited for when a key is given or the frame is the Compare view's, and not
/// built otherwise: one frame of another view does not show it.
pub fn print(options: Options, width: u16, height: u16, keys: &str) -> Result<String, String> {
    let keys = keys::parse(keys)?;
    let glyphs = ui::style::Glyphs {
        ascii: options.ascii,
    };
    let mut app = state::App::new(options.sources, options.restore);
    let data = loading::load_now(&app.sources)?;
    app.loaded(Ok(data));
    app.page_rows = height.saturating_sub(ui::CHROME_ROWS + 1) as usize;
    if keys.is_empty() && app.view != View::Compare {
        app.jobs.skip_comparison();
    }
    run_jobs(&mut app);
    for key in keys {
        app.key(key);
        if let Some((sources, _)) = app.take_request() {
            let result = loading::load_now(&sources);
            app.loaded(result);
        }
        run_jobs(&mut app);
        if app.quit {
            break;
        }
    }
    Ok(print::text(&print::frame(&mut app, width, height, glyphs)))
}

/// Runs every job `app` asks for, here, one after the other.
fn run_jobs(app: &mut state::App) {
    while let Some((id, job)) = app.take_job() {
        app.finish(id, job.run());
    }
}
