//! A fixed-width table printed from catalogue columns: an optional left-aligned label column,
//! then each column right-aligned to its width, a rule under the header.
//!
//! Every table of the text report goes through here, so headers, widths and number formats
//! come from one place ([`analysis::columns`]) and a new column needs no printing code.

use analysis::columns::{self, Column};
use std::fmt::Write;

/// The first, left-aligned column (`task:pid`), if the table has one.
pub(crate) struct Label<Row> {
    pub header: &'static str,
    pub width: usize,
    pub text: fn(&Row) -> String,
}

pub(crate) struct Table<Row: 'static> {
    pub label: Option<Label<Row>>,
    pub columns: Vec<&'static Column<Row>>,
    /// Dashes of the rule beyond the width of the content. The main task table's rule has
    /// always been one dash longer than its rows; kept so that reports stay byte-identical.
    pub rule_extra: usize,
    /// A last, left-aligned text column (a list of names), if any; its header and width
    /// say how much of the rule it takes.
    pub trailer: Option<Label<Row>>,
}

impl<Row: 'static> Table<Row> {
    /// A table of the columns named by `keys` (each must be in `catalogue`: a typo is a bug
    /// found by the first test that prints the table).
    pub(crate) fn of(
        catalogue: &'static [Column<Row>],
        label: Option<Label<Row>>,
        keys: &[&str],
    ) -> Self {
        let columns = keys
            .iter()
            .map(|k| columns::find(catalogue, k).unwrap_or_else(|| panic!("no column {k:?}")))
            .collect();
        Table {
            label,
            columns,
            rule_extra: 0,
            trailer: None,
        }
    }

    fn width(&self) -> usize {
        let label = self.label.as_ref().map_or(0, |l| l.width)
            + self.trailer.as_ref().map_or(0, |t| t.width + 2);
        let cols: usize = self.columns.iter().map(|c| c.width + 1).sum();
        // Without a label the first column has no separating space before it.
        if self.label.is_some() {
            label + cols
        } else {
            cols.saturating_sub(1)
        }
    }

    fn line<'a>(&self, label: Option<String>, cells: impl Iterator<Item = String> + 'a) -> String {
        let mut line = String::from(" ");
        if let (Some(l), Some(text)) = (&self.label, label) {
            let _ = write!(line, "{:<w$}", text, w = l.width);
            for cell in cells {
                line.push(' ');
                line.push_str(&cell);
            }
        } else {
            let cells: Vec<String> = cells.collect();
            line.push_str(&cells.join(" "));
        }
        line
    }

    /// Header, rule and one line per row.
    pub(crate) fn render<'r>(&self, rows: impl IntoIterator<Item = &'r Row>, out: &mut String) {
        let mut head = self.line(
            self.label.as_ref().map(|l| l.header.to_string()),
            self.columns.iter().map(|c| c.head()),
        );
        if let Some(t) = &self.trailer {
            let _ = write!(head, "  {}", t.header);
        }
        let _ = writeln!(out, "{head}");
        let _ = writeln!(out, " {}", "-".repeat(self.width() + self.rule_extra));
        for row in rows {
            let label = self.label.as_ref().map(|l| (l.text)(row));
            let mut line = self.line(label, self.columns.iter().map(|c| c.cell(row)));
            if let Some(t) = &self.trailer {
                let _ = write!(line, "  {}", (t.text)(row));
                line.truncate(line.trim_end().len());
            }
            let _ = writeln!(out, "{line}");
        }
    }
}
