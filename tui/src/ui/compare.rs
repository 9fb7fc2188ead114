//! The Compare view: run headers, then one row per metric and run with mean, CV, norm and
//! change; flagged changes keep their `*` / `^` and are coloured red / green.

use super::fmt;
use super::style;
use super::style::Glyphs;
use super::table;
use crate::action::View;
use crate::state::compare::Line as CompareLine;
use crate::state::App;
use analysis::columns::compare::{SYSTEM, TASK};
use analysis::columns::Unit;
use analysis::compare::model::Cell as MetricCell;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

pub(super) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let state = &app.compare;
    let c = match &state.result {
        Some(Ok(c)) => c,
        Some(Err(e)) => {
            frame.render_widget(
                Paragraph::new(format!("cannot compare: {e}")).style(style::error()),
                area,
            );
            return;
        }
        None => {
            // Built on a worker after the load; the other views need not wait for it.
            if app.comparing() {
                frame.render_widget(Paragraph::new(comparing(glyphs)).style(style::dim()), area);
            }
            return;
        }
    };
    let mut head = vec![Line::styled(
        format!(
            "{:<28} {:<12} {:<24} {:>3} {:>9} {:>9} {:>6} {:>5}",
            "run", "scheduler", "kernel", "rep", "window s", "events", "lost", "bugs"
        ),
        style::header(),
    )];
    for run in &c.runs {
        for (i, r) in run.repeats.iter().enumerate() {
            head.push(Line::raw(format!(
                "{:<28} {:<12} {:<24} {:>3} {:>9.3} {:>9} {:>6} {:>5}",
                if i == 0 { run.label.as_str() } else { "" },
                r.scheduler,
                r.kernel_release.as_deref().unwrap_or("?"),
                if i == 0 {
                    run.repeats.len().to_string()
                } else {
                    String::new()
                },
                r.window_ns as f64 / 1e9,
                r.events,
                r.lost_events,
                r.context_switch_bugs
            )));
        }
    }
    head.push(Line::raw(format!(
        "baseline {}; flag when |change| > {} % and > 2 x the larger CV; change + = better{}",
        c.base,
        c.threshold_pct,
        if state.flagged_only {
            "; flagged only (f)"
        } else {
            ""
        }
    )));
    let [top, body] =
        Layout::vertical([Constraint::Length(head.len() as u16), Constraint::Fill(1)]).areas(area);
    frame.render_widget(Paragraph::new(head), top);
    if state.lines.is_empty() {
        frame.render_widget(Paragraph::new("no flagged change (f shows all)"), body);
        return;
    }
    table::draw(
        frame,
        body,
        table::header_left(
            &[
                "metric", "unit", "run", "n", "mean", "cv %", "norm", "change %",
            ],
            3,
        ),
        vec![
            Constraint::Length(22),
            Constraint::Length(4),
            Constraint::Length(28),
            Constraint::Length(2),
            Constraint::Length(12),
            Constraint::Length(6),
            Constraint::Length(7),
            Constraint::Length(9),
        ],
        state.lines.len(),
        Some(app.cursor[View::Compare.index()]),
        |at| {
            let Some((name, row, cell)) = state.line(c, at) else {
                return Row::default();
            };
            let unit = unit_of(state.lines[at], &row.key);
            let first = cell == 0;
            metric_row(
                if first { name } else { "" },
                if first { unit.shown() } else { "" },
                unit,
                &row.cells[cell],
            )
        },
    );
}

fn unit_of(line: CompareLine, key: &str) -> Unit {
    match line {
        CompareLine::System { .. } => SYSTEM.iter().find(|m| m.key == key).map(|m| m.unit),
        CompareLine::Task { .. } => TASK.iter().find(|m| m.key == key).map(|m| m.unit),
    }
    .unwrap_or(Unit::Number { decimals: 3 })
}

fn metric_row(name: &str, unit_text: &str, unit: Unit, cell: &MetricCell) -> Row<'static> {
    let change = match cell.change_pct {
        None => "-".to_string(),
        Some(0.0) => "0.0".to_string(),
        Some(c) => format!("{c:+.1}"),
    };
    let flag = cell.flag.as_deref();
    let change = format!("{change} {}", flag.unwrap_or(" "));
    Row::new(vec![
        Cell::from(name.to_string()),
        Cell::from(unit_text.to_string()),
        Cell::from(cell.label.clone()),
        table::num(cell.n.to_string()),
        table::num(
            cell.mean
                .map_or("-".into(), |m| fmt::significant(unit.scale(m))),
        ),
        table::num(cell.cv_pct.map_or("-".into(), |v| format!("{v:.1}"))),
        table::num(cell.normalized.map_or("-".into(), |v| format!("{v:.3}"))),
        table::num(change).style(style::flag(flag)),
    ])
}

/// The status line of the Compare view.
pub(super) fn summary(app: &App) -> String {
    let c = &app.compare;
    match c.comparison() {
        Some(cmp) => format!(
            "baseline {} (b), threshold {} % (+/-), {} (f)",
            cmp.base,
            c.threshold_pct,
            if c.flagged_only {
                "flagged only"
            } else {
                "all metrics"
            }
        ),
        None => String::new(),
    }
}

/// What the Compare view and the header's badge say while the comparison is being built.
pub(super) fn comparing(glyphs: Glyphs) -> &'static str {
    if glyphs.ascii {
        "comparing..."
    } else {
        "comparing…"
    }
}
