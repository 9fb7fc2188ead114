//! Wakeup preemptions (metrics.md §5): totals, rate and ratio, every triple, per CPU.

use super::style;
use super::table;
use crate::action::View;
use crate::state::App;
use analysis::report::Triple;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

pub fn triple_header() -> Row<'static> {
    Row::new(vec![
        table::num("count".into()),
        Cell::from("waker"),
        Cell::from("wakee"),
        Cell::from("victim"),
    ])
}

pub fn triple_widths() -> Vec<Constraint> {
    vec![
        Constraint::Length(7),
        Constraint::Length(18),
        Constraint::Length(18),
        Constraint::Length(18),
    ]
}

pub fn triple_row(t: &Triple) -> Row<'static> {
    Row::new(vec![
        table::num(t.count.to_string()),
        Cell::from(t.waker.clone()),
        Cell::from(t.wakee.clone()),
        Cell::from(t.victim.clone()),
    ])
}

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let Some(input) = app.input() else { return };
    let r = &input.report;
    let p = &r.system.wakeup_preemption;
    let [totals, body] = Layout::vertical([Constraint::Length(2), Constraint::Fill(1)]).areas(area);
    let ratio = p
        .ratio_busy_target
        .map_or("-".into(), |v| format!("{v:.3}"));
    frame.render_widget(
        Paragraph::new(vec![Line::raw(format!(
            "wakeup preemptions {} ({:.1}/s); {} wakeups found their CPU busy; ratio {ratio}",
            p.count, p.per_sec, p.busy_target_wakeups
        ))]),
        totals,
    );
    let [triples, cpus] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(44)]).areas(body);
    table::draw(
        frame,
        triples,
        triple_header(),
        triple_widths(),
        p.top_triples.len(),
        Some(app.cursor[View::Preemptions.index()]),
        |i| triple_row(&p.top_triples[i]),
    );
    let [title, rest] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(cpus);
    frame.render_widget(
        Paragraph::new(Line::styled("per CPU", style::header())),
        title,
    );
    table::draw(
        frame,
        rest,
        table::header(&["cpu", "preempt", "switches", "rq mean", "rq max"]),
        vec![
            Constraint::Length(4),
            Constraint::Length(8),
            Constraint::Length(9),
            Constraint::Length(8),
            Constraint::Length(7),
        ],
        r.cpus.len(),
        None,
        |i| {
            let c = &r.cpus[i];
            Row::new(vec![
                Cell::from(c.cpu.to_string()),
                table::num(c.wakeup_preemptions.to_string()),
                table::num(c.switches.to_string()),
                table::num(format!("{:.2}", c.runqueue.mean_depth)),
                table::num(c.runqueue.max_depth.to_string()),
            ])
        },
    );
}
