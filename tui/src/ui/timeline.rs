//! The Timeline view. The per-CPU lanes need the analysis' timeline store, which this
//! build does not have yet: the view says so, and shows what the state machine keeps
//! (visible range, cursor, markers), so the keys work and Enter between two markers
//! re-analyses that window all the same.

use super::fmt;
use super::style::{self, Glyphs};
use crate::state::App;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let Some(input) = app.input() else { return };
    let t = &app.timeline;
    let mut lines = vec![if input.from_json_report {
        Line::styled(
            "the timeline needs the trace (this run is a JSON report)",
            style::dim(),
        )
    } else {
        Line::styled(
            "CPU lanes need the timeline store (not in this build)",
            style::dim(),
        )
    }];
    lines.push(Line::raw(format!(
        "visible {} s .. {} s ({} ms) {} cursor {} s",
        fmt::secs(t.start),
        fmt::secs(t.end),
        fmt::ms(t.span()),
        glyphs.separator(),
        fmt::secs(t.cursor)
    )));
    let marker = |m: Option<u64>| m.map_or("-".to_string(), |v| format!("{} s", fmt::secs(v)));
    lines.push(Line::raw(format!(
        "markers {} .. {}{}",
        marker(t.marker_start),
        marker(t.marker_end),
        if t.marked_range().is_some() {
            "  (Enter re-analyses this window)"
        } else {
            ""
        }
    )));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "CPU utilization over the whole window",
        style::header(),
    ));
    let width = area.width.saturating_sub(20) as usize;
    for c in &input.report.cpus {
        let filled = (c.utilization * width as f64).round() as usize;
        lines.push(Line::raw(format!(
            "CPU {:<3} {:>6.1} % {}",
            c.cpu,
            c.utilization * 100.0,
            glyphs.bar().repeat(filled.min(width))
        )));
    }
    frame.render_widget(Paragraph::new(lines), area);
}
