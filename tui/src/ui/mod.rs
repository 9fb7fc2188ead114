//! Drawing: a pure function of the state ([`draw`]). Every screen has the run header
//! with the data-quality badge, the view tabs, the view, and a status line. Views build
//! only the rows that fit on screen.

mod compare;
pub(crate) mod detail;
mod fairness;
pub(crate) mod fmt;
pub(crate) mod gauges;
pub(crate) mod matrix;
mod overview;
pub(crate) mod placement;
mod preemptions;
mod quality;
mod sparkline;
pub(crate) mod style;
mod table;
mod tasks;
mod timeline;
mod why;

use crate::action::View;
use crate::keymap;
use crate::state::{App, Mode};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;
use style::Glyphs;

/// Below this the views cannot be laid out: a message says so instead.
pub(crate) const MIN_WIDTH: u16 = 60;
pub(crate) const MIN_HEIGHT: u16 = 16;

/// Width of the Timeline's lane labels (the lanes take the rest of the width).
#[cfg(test)]
pub(crate) fn timeline_label_width() -> u16 {
    timeline::LABEL
}

/// Lines of the screen that are not the view's body (header, tabs, status).
pub(crate) const CHROME_ROWS: u16 = 3;

pub(crate) fn draw(frame: &mut Frame, app: &App, glyphs: Glyphs) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!(
            "terminal too small ({MIN_WIDTH}{}{MIN_HEIGHT} needed)",
            glyphs.times()
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let [head, tabs, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    // The quality badge keeps its place at the right however narrow the screen.
    let badge = badge(app, glyphs);
    let [head, right] = Layout::horizontal([
        Constraint::Fill(1),
        Constraint::Length(badge.width() as u16),
    ])
    .areas(head);
    frame.render_widget(Paragraph::new(header(app, glyphs)), head);
    frame.render_widget(Paragraph::new(badge), right);
    frame.render_widget(Paragraph::new(tab_bar(app, tabs.width)), tabs);
    match (&app.failed, &app.data) {
        (Some(error), _) => frame.render_widget(
            Paragraph::new(format!("cannot load: {error}"))
                .style(style::error())
                .wrap(Wrap { trim: false }),
            body,
        ),
        (None, None) => gauges::draw(frame, app, body, glyphs),
        (None, Some(_)) => view(frame, app, body, glyphs),
    }
    frame.render_widget(Paragraph::new(status_line(app, glyphs)), foot);
    if let Some((title, lines)) = &app.popup {
        popup(
            frame,
            body,
            glyphs,
            title,
            lines.iter().map(|l| Line::raw(l.as_str())).collect(),
            0,
        );
    }
    if app.mode == Mode::Help {
        let lines = columns_of(keymap::help_lines(), body.height.saturating_sub(2) as usize);
        let lines = lines.into_iter().map(Line::raw).collect();
        popup(
            frame,
            body,
            glyphs,
            "keys (Esc closes)",
            lines,
            app.help_scroll,
        );
    }
}

fn view(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    match app.view {
        View::Overview => overview::draw(frame, app, area, glyphs),
        View::Tasks => tasks::draw(frame, app, area, glyphs),
        View::Detail => detail::draw(frame, app, area, glyphs),
        View::Timeline => timeline::draw(frame, app, area, glyphs),
        View::Preemptions => preemptions::draw(frame, app, area, glyphs),
        View::Fairness => fairness::draw(frame, app, area, glyphs),
        View::Placement => placement::draw(frame, app, area, glyphs),
        View::Compare => compare::draw(frame, app, area, glyphs),
        View::Quality => quality::draw(frame, app, area),
    }
}

/// Run label, scheduler and kernel, window, events, lost; the quality badge at the right.
fn header(app: &App, glyphs: Glyphs) -> Line<'static> {
    let sep = format!(" {} ", glyphs.separator());
    let Some(input) = app.input() else {
        return Line::from(vec![
            Span::styled("schedtrace", style::header()),
            Span::raw(" loading"),
        ]);
    };
    let r = &input.report;
    let runs = app.data.as_ref().map_or(1, |d| d.inputs.len());
    let events: u64 = r.quality.events.values().sum();
    let (lost, lost_unknown) = r.quality.lost_events_total();
    let release = r.source.kernel_release.as_deref();
    let kernel = format!(
        "{}{} {}",
        r.source.scheduler,
        if release.is_some_and(analysis::is_predicted) {
            " predicted"
        } else {
            ""
        },
        release.unwrap_or("kernel ?")
    );
    let mut spans = vec![
        Span::styled(input.label.clone(), style::header()),
        Span::raw(if runs > 1 {
            format!(" ({}/{runs})", app.run + 1)
        } else {
            String::new()
        }),
        Span::raw(sep.clone()),
    ];
    // An automatic label already is "scheduler kernel".
    if input.label != kernel {
        spans.push(Span::raw(kernel));
        spans.push(Span::raw(sep.clone()));
    }
    spans.extend([
        Span::raw(format!(
            "{} s .. {} s ({} ms)",
            fmt::secs(r.window.start_ns),
            fmt::secs(r.window.end_ns),
            fmt::ms(r.window.len_ns())
        )),
        Span::raw(sep.clone()),
        Span::raw(format!("{events} events")),
        Span::raw(sep),
        Span::raw(if r.quality.lost_events.is_empty() {
            "lost none".to_string()
        } else if lost_unknown > 0 {
            format!("lost {lost} + {lost_unknown} records")
        } else {
            format!("lost {lost}")
        }),
    ]);
    Line::from(spans)
}

/// The badge at the right of the header: data quality, and whether a recomputation runs.
fn badge(app: &App, glyphs: Glyphs) -> Line<'static> {
    let mut spans = Vec::new();
    if app.busy() && app.data.is_some() {
        // The first comparison of a load is not a recomputation: it is said as such.
        let text = if app.comparing() && app.stages.is_empty() && !app.regrouping() {
            format!("{} ", compare::comparing(glyphs))
        } else if glyphs.ascii {
            "recomputing... ".to_string()
        } else {
            "recomputing… ".to_string()
        };
        spans.push(Span::styled(text, style::dim()));
    }
    if let Some(input) = app.input() {
        let (badge, bad) = quality_badge(&input.report, glyphs);
        spans.push(Span::styled(
            format!(" {badge} "),
            if bad {
                style::badge_bad()
            } else {
                style::badge_ok()
            },
        ));
    }
    Line::from(spans)
}

/// `OK`, or what is wrong with the data (`⚠ 40.3 % unknown · 9 csw bugs · lost`).
pub(crate) fn quality_badge(r: &analysis::Report, glyphs: Glyphs) -> (String, bool) {
    let q = &r.quality;
    let mut problems = Vec::new();
    // The text report warns above 1 % unknown (TextOptions::unknown_warn_ratio); so does the badge.
    let warn = render::TextOptions::default().unknown_warn_ratio;
    if r.unknown_share() > warn {
        problems.push(format!("{:.1} % unknown", 100.0 * r.unknown_share()));
    }
    let bugs = q.context_switch_bugs_total();
    if bugs > 0 {
        problems.push(format!("{bugs} csw bugs"));
    }
    if !q.lost_events.is_empty() {
        problems.push(format!("{} losses", q.lost_events.len()));
    }
    if problems.is_empty() {
        ("OK".into(), false)
    } else {
        let sep = format!(" {} ", glyphs.separator());
        (
            format!("{} {}", glyphs.warning(), problems.join(&sep)),
            true,
        )
    }
}

fn tab_bar(app: &App, width: u16) -> Line<'static> {
    // Full names need 104 columns; narrower screens get the current view's name only.
    let full = width >= 104;
    let spans = View::ALL.iter().enumerate().map(|(i, v)| {
        let text = if full || *v == app.view {
            format!(" {} {} ", i + 1, v.name())
        } else {
            format!(" {} ", i + 1)
        };
        if *v == app.view {
            Span::styled(text, style::selected())
        } else {
            Span::raw(text)
        }
    });
    Line::from(spans.collect::<Vec<_>>())
}

fn status_line(app: &App, glyphs: Glyphs) -> Line<'static> {
    match &app.mode {
        Mode::Filter(text) => return Line::raw(format!("/{text}_")),
        Mode::Command(text) => return Line::raw(format!(":{text}_")),
        _ => {}
    }
    if let Some(status) = &app.status {
        let style = if status.error {
            style::error()
        } else {
            ratatui::style::Style::new()
        };
        return Line::styled(status.text.clone(), style);
    }
    let hint = match app.view {
        View::Tasks => tasks::summary(app, glyphs),
        View::Preemptions => preemptions::summary(app, glyphs),
        View::Compare => compare::summary(app),
        _ => String::new(),
    };
    Line::from(vec![
        Span::raw(hint),
        Span::styled("   ? keys  q quit", style::dim()),
    ])
}

/// `lines` laid out in as many side-by-side columns as it takes to fit `height`.
fn columns_of(lines: Vec<String>, height: usize) -> Vec<String> {
    let height = height.max(1);
    if lines.len() <= height {
        return lines;
    }
    let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) + 2;
    let columns: Vec<&[String]> = lines
        .chunks(lines.len().div_ceil(lines.len().div_ceil(height)))
        .collect();
    (0..columns[0].len())
        .map(|row| {
            let mut line = String::new();
            for column in &columns {
                let cell = column.get(row).map_or("", String::as_str);
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', width - cell.chars().count()));
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// A bordered text box over the view, cleared underneath.
fn popup(
    frame: &mut Frame,
    over: Rect,
    glyphs: Glyphs,
    title: &str,
    lines: Vec<Line>,
    scroll: usize,
) {
    let width = lines
        .iter()
        .map(|l| l.width() as u16 + 4)
        .max()
        .unwrap_or(20)
        .clamp(20, over.width);
    let height = (lines.len() as u16 + 2).min(over.height);
    let rect = Rect {
        x: over.x + (over.width - width) / 2,
        y: over.y + (over.height - height) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, rect);
    let block = glyphs.block(Borders::ALL).title(title.to_string());
    let scroll = scroll.min(lines.len().saturating_sub(1)) as u16;
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), rect);
}
