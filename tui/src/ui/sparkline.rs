//! Sparklines over the report's per-window series (`Report::series`): one glyph per column,
//! the windows of a column averaged, heights scaled to the line's own maximum.

use super::style::{self, Glyphs};
use super::timeline::level;
use ratatui::text::{Line, Span};

/// `values` (one per window) squeezed into `width` columns, as one line after `label`.
pub(super) fn line(label: &str, values: &[f64], width: usize, glyphs: Glyphs) -> Line<'static> {
    let room = width.saturating_sub(label.len() + 12);
    let columns = squeeze(values, room);
    let top = columns.iter().copied().fold(0.0, f64::max);
    let text: String = columns
        .iter()
        .map(|&v| {
            if top > 0.0 {
                level((v / top).max(if v > 0.0 { 0.125 } else { 0.0 }), glyphs)
            } else {
                ' '
            }
        })
        .collect();
    Line::from(vec![
        Span::styled(label.to_string(), style::header()),
        Span::raw(text),
        Span::styled(format!(" max {top:.1}"), style::dim()),
    ])
}

/// Means of consecutive runs of `values` so that there are at most `width` of them.
fn squeeze(values: &[f64], width: usize) -> Vec<f64> {
    if width == 0 || values.is_empty() {
        return Vec::new();
    }
    let per = values.len().div_ceil(width);
    values
        .chunks(per)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn squeezing_averages_neighbours() {
        assert_eq!(super::squeeze(&[1.0, 3.0, 5.0, 7.0], 2), vec![2.0, 6.0]);
        assert_eq!(super::squeeze(&[1.0, 2.0], 10), vec![1.0, 2.0]);
        assert!(super::squeeze(&[], 10).is_empty());
    }
}
