//! Fairness (metrics.md §7): Jain's index over the whole window and per short window, and
//! per competing task its weight, runtime, entitlement, ratio and largest lag.

use super::fmt;
use super::style::Glyphs;
use super::table;
use crate::action::View;
use crate::state::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

pub(super) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let Some(input) = app.input() else { return };
    let r = &input.report;
    let f = &r.system.fairness;
    let mut head = vec![Line::raw(format!(
        "{} tasks competing ({}); Jain {}; max |lag| {} ms; prio scale {}",
        f.tasks,
        f.competing,
        fmt::opt4(f.jain),
        fmt::ms_f(f.max_abs_lag_ns),
        f.prio_scale
    ))];
    for st in &f.short_term {
        head.push(Line::raw(format!(
            "  short-term Jain {:>5} ms: mean {} min {} ({} windows)",
            st.window_ns / 1_000_000,
            fmt::opt4(st.mean),
            fmt::opt4(st.min),
            st.windows
        )));
    }
    if let Some(s) = &r.series {
        let width = area.width as usize;
        let jain: Vec<f64> = s.jain.iter().map(|j| j.unwrap_or(0.0)).collect();
        head.push(super::sparkline::line(
            &format!("  Jain per {} ms ", s.window_ns / 1_000_000),
            &jain,
            width,
            glyphs,
        ));
        for lag in s.lag.iter().take(8) {
            let abs: Vec<f64> = lag
                .lag_ns
                .iter()
                .map(|l| l.map_or(0.0, |v| v.abs() / 1e6))
                .collect();
            let label = format!("  |lag| ms {:<12.12} ", format!("{}:{}", lag.comm, lag.pid));
            head.push(super::sparkline::line(&label, &abs, width, glyphs));
        }
    }
    let [top, body] = Layout::vertical([
        Constraint::Length(head.len() as u16 + 1),
        Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(head), top);
    let order = &app.derived.competing;
    table::draw(
        frame,
        body,
        table::header(&[
            "task:pid",
            "weight",
            "runtime ms",
            "entitled ms",
            "ratio",
            "max lag ms",
        ]),
        vec![
            Constraint::Length(24),
            Constraint::Length(7),
            Constraint::Length(11),
            Constraint::Length(11),
            Constraint::Length(7),
            Constraint::Length(11),
        ],
        order.len(),
        Some(app.cursor[View::Fairness.index()]),
        |i| {
            let t = &r.tasks[order[i]];
            let Some(fair) = t.fairness else {
                return Row::default();
            };
            Row::new(vec![
                Cell::from(crate::columns::task_label(t)),
                table::num(fair.weight.to_string()),
                table::num(fmt::ms(fair.runtime_ns)),
                table::num(fmt::ms_f(fair.entitlement_ns)),
                table::num(fair.ratio.map_or("-".into(), |r| format!("{r:.3}"))),
                table::num(fmt::ms_f(fair.max_abs_lag_ns)),
            ])
        },
    );
}
