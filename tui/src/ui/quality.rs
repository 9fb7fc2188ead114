//! Data quality (metrics.md §9): events per kind, lost events per CPU with their times,
//! out of order and rejected records, context-switch bugs per CPU, unknown time and the
//! tasks it belongs to. Enter on a loss shows the timeline there.

use super::fmt;
use super::style;
use super::table;
use crate::action::View;
use crate::state::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

pub(super) fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let Some(input) = app.input() else { return };
    let r = &input.report;
    let q = &r.quality;
    let [left, right] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)]).areas(area);
    let mut lines = vec![Line::styled("events", style::header())];
    let total: u64 = q.events.values().sum();
    lines.push(Line::raw(format!("  {:<24} {:>10}", "all", total)));
    for (kind, n) in &q.events {
        lines.push(Line::raw(format!("  {kind:<24} {n:>10}")));
    }
    lines.push(Line::raw(format!("out of order {}", q.out_of_order)));
    let rejected: u64 = q.rejected.values().sum();
    lines.push(Line::raw(format!("rejected {rejected}")));
    for (why, n) in &q.rejected {
        lines.push(Line::raw(format!("  {n:>8}  {why}")));
    }
    for example in q.reject_examples.iter().take(3) {
        lines.push(Line::styled(format!("  e.g. {example}"), style::dim()));
    }
    let bugs = q.context_switch_bugs_total();
    lines.push(Line::raw(format!("context switch bugs {bugs}")));
    for c in &q.context_switch_bugs {
        lines.push(Line::raw(format!("  CPU {:<4} {:>8}", c.cpu, c.count)));
    }
    let share = 100.0 * r.unknown_share();
    lines.push(Line::raw(format!(
        "unknown {} ms ({share:.1} % of task time)",
        fmt::ms(q.unknown_ns)
    )));
    let mut worst: Vec<&analysis::TaskRow> = r.tasks.iter().filter(|t| t.unknown_ns > 0).collect();
    worst.sort_by_key(|t| std::cmp::Reverse(t.unknown_ns));
    for t in worst.iter().take(5) {
        lines.push(Line::raw(format!(
            "  {:<24} {:>12} ms",
            crate::columns::task_label(t),
            fmt::ms(t.unknown_ns)
        )));
    }
    lines.push(Line::raw(format!(
        "wakeup latency timed from {}",
        q.wakeup_event
    )));
    frame.render_widget(Paragraph::new(lines), left);

    let [title, rest] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(right);
    let (lost, unknown) = q.lost_events_total();
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(
                "lost events: {lost} in {} records ({unknown} of unknown size)",
                q.lost_events.len()
            ),
            style::header(),
        )),
        title,
    );
    if q.lost_events.is_empty() {
        frame.render_widget(Paragraph::new("none"), rest);
        return;
    }
    table::draw(
        frame,
        rest,
        table::header(&["cpu", "at s", "count"]),
        vec![
            Constraint::Length(4),
            Constraint::Length(18),
            Constraint::Length(10),
        ],
        q.lost_events.len(),
        Some(app.cursor[View::Quality.index()]),
        |i| {
            let l = &q.lost_events[i];
            Row::new(vec![
                Cell::from(l.cpu.to_string()),
                table::num(fmt::secs(l.ts_ns)),
                table::num(l.count.map_or("?".into(), |c| c.to_string())),
            ])
        },
    );
}
