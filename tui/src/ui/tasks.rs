//! The Tasks view: the text report's columns and more, as many as fit the width (from the
//! left), sorted, filtered and grouped by the state; marked rows carry a dot.

use super::style::Glyphs;
use super::table;
use crate::action::View;
use crate::columns::{Unit, COLUMNS};
use crate::state::App;
use analysis::GroupBy;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

/// How many columns fit in `width` (the task column always does).
pub fn fitting_columns(width: u16) -> usize {
    let mut used = 2; // the mark column and its spacing
    let mut n = 0;
    for c in COLUMNS {
        if n > 0 && used + c.width + 1 > width {
            break;
        }
        used += c.width + 1;
        n += 1;
    }
    n
}

pub fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let Some(input) = app.input() else { return };
    let report = &input.report;
    let list = &app.tasks;
    if list.rows.is_empty() {
        let text = if list.filter.is_some() {
            "no task matches the filter (Esc clears it)"
        } else {
            "no tasks"
        };
        frame.render_widget(Paragraph::new(text), area);
        return;
    }
    let shown = fitting_columns(area.width);
    let arrow = if list.descending {
        glyphs.descending()
    } else {
        glyphs.ascending()
    };
    let mut titles: Vec<Cell> = vec![Cell::from("")];
    for (i, c) in COLUMNS[..shown].iter().enumerate() {
        let title = if i == list.sort {
            format!("{}{arrow}", c.header)
        } else {
            c.header.to_string()
        };
        titles.push(if c.unit == Unit::Label {
            Cell::from(title)
        } else {
            table::num(title)
        });
    }
    let mut widths = vec![Constraint::Length(1)];
    widths.extend(COLUMNS[..shown].iter().map(|c| Constraint::Length(c.width)));
    let table_rows = list.table(report);
    let mark = glyphs.mark();
    table::draw(
        frame,
        area,
        Row::new(titles),
        widths,
        list.rows.len(),
        Some(app.cursor[View::Tasks.index()]),
        |at| {
            let t = &table_rows[list.rows[at]];
            let mut cells = vec![Cell::from(if list.marks.contains(&t.pid) {
                mark
            } else {
                ""
            })];
            for c in &COLUMNS[..shown] {
                let text = c.cell(t);
                cells.push(if c.unit == Unit::Label {
                    Cell::from(text)
                } else {
                    table::num(text)
                });
            }
            Row::new(cells)
        },
    );
}

/// The status line of the Tasks view: rows, order, filter, grouping, marks.
pub fn summary(app: &App, glyphs: Glyphs) -> String {
    let Some(input) = app.input() else {
        return String::new();
    };
    let list = &app.tasks;
    let total = list.table(&input.report).len();
    let arrow = if list.descending {
        glyphs.descending()
    } else {
        glyphs.ascending()
    };
    let group = match list.group {
        GroupBy::Pid => "pid",
        GroupBy::Process => "process",
        GroupBy::Name => "name",
    };
    let mut s = format!(
        "{} of {total} rows {} sort {}{arrow} {} group {group}",
        list.rows.len(),
        glyphs.separator(),
        COLUMNS[list.sort].key,
        glyphs.separator(),
    );
    if let Some(f) = &list.filter {
        s += &format!(" {} filter /{}", glyphs.separator(), f.text);
    }
    if !list.marks.is_empty() {
        s += &format!(" {} {} marked", glyphs.separator(), list.marks.len());
    }
    s
}
