//! Tables that build only their visible rows: ratatui's `Table` lays out every row it is
//! given, so a 100 000-task table is handed just the slice that fits, around the selection.

use super::style;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Row, Table, TableState};
use ratatui::Frame;
use std::ops::Range;

/// The rows `[start, end)` to show in `height` lines so that `selected` is visible
/// (scrolled only as far as needed: the selection sits on the last line when past it).
pub(super) fn visible(len: usize, selected: usize, height: usize) -> Range<usize> {
    if height == 0 || len == 0 {
        return 0..0;
    }
    let start = selected.min(len - 1).saturating_sub(height - 1);
    start..(start + height).min(len)
}

/// A right-aligned cell (numbers).
pub(super) fn num(text: String) -> Cell<'static> {
    Cell::from(Line::from(text).right_aligned())
}

/// Draws a table of `len` rows, building rows only for the visible ones.
pub(super) fn draw(
    frame: &mut Frame,
    area: Rect,
    header: Row<'static>,
    widths: Vec<Constraint>,
    len: usize,
    selected: Option<usize>,
    mut build: impl FnMut(usize) -> Row<'static>,
) {
    let height = area.height.saturating_sub(1) as usize;
    let range = visible(len, selected.unwrap_or(0), height);
    let start = range.start;
    let rows: Vec<Row> = range.map(&mut build).collect();
    let table = Table::new(rows, widths)
        .header(header.style(style::header()))
        .row_highlight_style(style::selected())
        .column_spacing(1);
    let mut state = TableState::default().with_selected(selected.map(|s| s - start));
    frame.render_stateful_widget(table, area, &mut state);
}

/// A header row of right-aligned titles, the first left-aligned.
pub(super) fn header(titles: &[&str]) -> Row<'static> {
    header_left(titles, 1)
}

/// A header row whose first `left` titles are left-aligned (text columns), the rest right.
pub(super) fn header_left(titles: &[&str], left: usize) -> Row<'static> {
    Row::new(titles.iter().enumerate().map(|(i, t)| {
        if i < left {
            Cell::from(t.to_string())
        } else {
            num(t.to_string())
        }
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_selection_stays_visible() {
        assert_eq!(super::visible(100, 0, 10), 0..10);
        assert_eq!(super::visible(100, 9, 10), 0..10);
        assert_eq!(super::visible(100, 10, 10), 1..11);
        assert_eq!(super::visible(100, 99, 10), 90..100);
        assert_eq!(super::visible(5, 3, 10), 0..5);
        assert_eq!(super::visible(0, 0, 10), 0..0);
    }
}
