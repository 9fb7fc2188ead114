//! The Tasks view: the text report's columns and more, as many as fit the width (from the
//! left), sorted, filtered and grouped by the state; marked rows carry a dot.

use super::style::Glyphs;
use super::table;
use crate::action::View;
use crate::columns::COLUMNS;
use crate::state::App;
use analysis::GroupBy;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Cell, Paragraph, Row};
use ratatui::Frame;

pub(super) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
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
    // Cell texts of the visible rows only; each column is as wide as its widest text, so
    // a large number is never cut, and as many columns as fit are shown from the left.
    let selected = app.cursor[View::Tasks.index()];
    let visible = table::visible(
        list.rows.len(),
        selected,
        area.height.saturating_sub(1) as usize,
    );
    let start = visible.start;
    let table_rows = list.table(report);
    let texts: Vec<Vec<String>> = visible
        .map(|at| {
            COLUMNS
                .iter()
                .map(|c| c.cell(&table_rows[list.rows[at]]))
                .collect()
        })
        .collect();
    let arrow = if list.descending {
        glyphs.descending()
    } else {
        glyphs.ascending()
    };
    let titles: Vec<String> = COLUMNS
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == list.sort {
                format!("{}{arrow}", c.header())
            } else {
                c.header().to_string()
            }
        })
        .collect();
    let widths = fitting_widths(&titles, &texts, area.width);
    let mut header: Vec<Cell> = vec![Cell::from("")];
    let mut constraints = vec![Constraint::Length(1)];
    for (i, &w) in widths.iter().enumerate() {
        let title = titles[i].clone();
        header.push(if COLUMNS[i].is_label() {
            Cell::from(title)
        } else {
            table::num(title)
        });
        constraints.push(Constraint::Length(w));
    }
    let mark = glyphs.mark();
    table::draw(
        frame,
        area,
        Row::new(header),
        constraints,
        list.rows.len(),
        Some(selected),
        |at| {
            let t = &table_rows[list.rows[at]];
            let mut cells = vec![Cell::from(if list.marks.contains(&t.pid) {
                mark
            } else {
                ""
            })];
            for (i, text) in texts[at - start].iter().take(widths.len()).enumerate() {
                let text = text.clone();
                cells.push(if COLUMNS[i].is_label() {
                    Cell::from(text)
                } else {
                    table::num(text)
                });
            }
            Row::new(cells)
        },
    );
}

/// Width of each column that fits in `width` (the task column always does), from the
/// left: the widest of its title and its visible cells.
fn fitting_widths(titles: &[String], rows: &[Vec<String>], width: u16) -> Vec<u16> {
    let mut used = 2; // the mark column and its spacing
    let mut widths = Vec::new();
    for (i, title) in titles.iter().enumerate() {
        let w = rows
            .iter()
            .map(|r| r[i].chars().count())
            .chain([title.chars().count(), COLUMNS[i].width() as usize])
            .max()
            .unwrap_or(0) as u16;
        if i > 0 && used + w + 1 > width {
            break;
        }
        used += w + 1;
        widths.push(w);
    }
    widths
}

/// The status line of the Tasks view: rows, order, filter, grouping, marks.
pub(super) fn summary(app: &App, glyphs: Glyphs) -> String {
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
