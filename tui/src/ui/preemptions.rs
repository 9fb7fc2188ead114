//! Wakeup preemptions (metrics.md §5): totals, rate and ratio, every triple (sorted and
//! filtered like the Tasks table), per CPU.

use super::fmt;
use super::style::{self, Glyphs};
use super::table;
use crate::action::View;
use crate::state::triples::TRIPLE_COLUMNS;
use crate::state::App;
use analysis::report::Triple;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

pub(super) fn triple_header() -> Row<'static> {
    Row::new(vec![
        table::num("count".into()),
        Cell::from("waker"),
        Cell::from("wakee"),
        Cell::from("victim"),
    ])
}

pub(super) fn triple_widths() -> Vec<Constraint> {
    vec![
        Constraint::Length(7),
        Constraint::Length(18),
        Constraint::Length(18),
        Constraint::Length(18),
    ]
}

pub(super) fn triple_row(t: &Triple) -> Row<'static> {
    Row::new(triple_cells(t))
}

fn triple_cells(t: &Triple) -> Vec<Cell<'static>> {
    vec![
        table::num(t.count.to_string()),
        Cell::from(t.waker.clone()),
        Cell::from(t.wakee.clone()),
        Cell::from(t.victim.clone()),
    ]
}

/// The status line under the triples: how many are shown, the order and the filter.
pub(super) fn summary(app: &App, glyphs: Glyphs) -> String {
    let Some(input) = app.input() else {
        return String::new();
    };
    let list = &app.triples;
    let total = input.report.system.wakeup_preemption.triples.len();
    let arrow = if list.descending {
        glyphs.descending()
    } else {
        glyphs.ascending()
    };
    let mut s = format!(
        "{} of {total} triples {} sort {}{arrow}",
        list.rows.len(),
        glyphs.separator(),
        TRIPLE_COLUMNS[list.sort].key
    );
    if let Some(f) = &list.filter {
        s += &format!(" {} filter /{}", glyphs.separator(), f.text);
    }
    s
}

/// Columns the triples take with their spacing, and the per-CPU table.
const TRIPLES_WIDTH: u16 = 7 + 3 * 15 + 2 * 12 + 5;
const PER_CPU_WIDTH: u16 = 44;

pub(super) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
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
    // The per-CPU table beside the triples when both fit, else the triples alone.
    let per_cpu = if body.width > TRIPLES_WIDTH + PER_CPU_WIDTH {
        PER_CPU_WIDTH
    } else {
        0
    };
    let [triples, cpus] =
        Layout::horizontal([Constraint::Fill(1), Constraint::Length(per_cpu)]).areas(body);
    let list = &app.triples;
    let arrow = if list.descending {
        glyphs.descending()
    } else {
        glyphs.ascending()
    };
    let header = Row::new(TRIPLE_COLUMNS.iter().enumerate().map(|(i, c)| {
        let title = if i == list.sort {
            format!("{}{arrow}", c.header)
        } else {
            c.header.to_string()
        };
        // Numbers right-aligned, names left, as in the rows.
        match c.unit {
            Some(_) => table::num(title),
            None => Cell::from(title),
        }
    }));
    // A name is at most 15 characters (the kernel's TASK_COMM_LEN); times of day as secs.
    let mut widths = vec![Constraint::Length(7)];
    widths.extend([Constraint::Length(15); 3]);
    widths.extend([Constraint::Length(12); 2]);
    if list.rows.is_empty() && list.filter.is_some() {
        frame.render_widget(
            Paragraph::new("no triple matches the filter (Esc clears it)"),
            triples,
        );
    } else {
        table::draw(
            frame,
            triples,
            header,
            widths,
            list.rows.len(),
            Some(app.cursor[View::Preemptions.index()]),
            |i| {
                let t = &p.triples[list.rows[i]];
                let mut row = triple_cells(t);
                row.push(table::num(fmt::secs(t.first_ns)));
                row.push(table::num(fmt::secs(t.last_ns)));
                Row::new(row)
            },
        );
    }
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
