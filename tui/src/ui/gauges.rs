//! One gauge per input while the first load runs: the share of its bytes read, the bytes,
//! the events and the rate, from the counters the readers move (`ingest::Progress`).

use super::style::Glyphs;
use crate::loading::Stage;
use crate::state::App;
use ingest::Progress;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Borders, Gauge};
use ratatui::Frame;

pub(crate) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let paths = crate::loading::paths(&app.sources);
    let rows = Layout::vertical(paths.iter().map(|_| Constraint::Length(3))).split(area);
    for (i, (path, stage)) in paths.iter().zip(&app.stages).enumerate() {
        let Some(&rect) = rows.get(i) else { break };
        let (label, ratio) = match stage {
            Stage::Waiting => ("waiting".to_string(), 0.0),
            Stage::Working { progress, since } => working(progress, since.elapsed().as_secs_f64()),
            Stage::Done { seconds, events } => (format!("{events} events in {seconds:.2} s"), 1.0),
            Stage::Failed(e) => (format!("failed: {e}"), 0.0),
        };
        let block = glyphs.block(Borders::ALL).title(path.display().to_string());
        let mut gauge = Gauge::default().block(block).label(label).ratio(ratio);
        if glyphs.ascii {
            gauge = gauge.use_unicode(false);
        }
        frame.render_widget(gauge, rect);
    }
}

/// The label and filled share of a read under way for `seconds`. A compressed input's
/// total grows once its plain size is known (its bytes are worked through twice), so the
/// share may step back then; a pipe has no total until it ends.
pub(crate) fn working(progress: &Progress, seconds: f64) -> (String, f64) {
    let (bytes, events) = (progress.bytes(), progress.events());
    let mb = |b: u64| b as f64 / 1e6;
    let rate = if seconds > 0.0 {
        format!("{:.1} MB/s", mb(bytes) / seconds)
    } else {
        "-".into()
    };
    let (of, ratio) = match progress.total() {
        Some(total) => (
            format!(" of {:.1}", mb(total)),
            (bytes as f64 / total as f64).clamp(0.0, 1.0),
        ),
        None => (String::new(), 0.0),
    };
    (
        format!(
            "{:.1}{of} MB, {events} events, {rate}, {seconds:.1} s",
            mb(bytes)
        ),
        ratio,
    )
}
