//! A CPU × CPU count matrix (waker CPU × wakee CPU, migrations from × to): each cell shows
//! its count on a background shaded by its size next to the largest (log scale, so a few
//! cross-CPU moves still show beside thousands of local wakeups). With a topology the
//! CPUs are ordered by node and LLC, with a border between LLCs and a heavier one between
//! nodes. When the numbers do not fit the width, each cell is one shade glyph.

use super::style::Glyphs;
use analysis::report::TopologyInfo;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use std::collections::HashMap;

/// Background of the shade levels 1..=4 (256-colour greys, light = more).
const SHADES: [u8; 4] = [238, 242, 246, 250];

/// Where a row or column starts a new cache or node group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Border {
    None,
    Llc,
    Node,
}

/// The CPUs in matrix order and the groups they belong to.
#[derive(Debug, Clone)]
pub(crate) struct CpuOrder {
    cpus: Vec<u32>,
    borders: Vec<Border>,
}

impl CpuOrder {
    /// `cpus` (any order, repeats allowed) ordered by node, LLC and number when the
    /// topology is known, else by number.
    pub(crate) fn new(
        cpus: impl IntoIterator<Item = u32>,
        topology: Option<&TopologyInfo>,
    ) -> CpuOrder {
        let group_of = |lists: &[String]| -> HashMap<u32, usize> {
            let mut of = HashMap::new();
            for (i, list) in lists.iter().enumerate() {
                for cpu in ingest::topology::parse_cpulist(list).unwrap_or_default() {
                    of.entry(cpu).or_insert(i);
                }
            }
            of
        };
        let (llc, node) = match topology {
            Some(t) => (group_of(&t.llcs), group_of(&t.nodes)),
            None => Default::default(),
        };
        let key = |cpu: &u32| {
            (
                node.get(cpu).copied().unwrap_or(usize::MAX),
                llc.get(cpu).copied().unwrap_or(usize::MAX),
                *cpu,
            )
        };
        let mut cpus: Vec<u32> = cpus.into_iter().collect();
        cpus.sort_by_key(key);
        cpus.dedup();
        let borders = (0..cpus.len())
            .map(|i| {
                if i == 0 || topology.is_none() {
                    return Border::None;
                }
                let (a, b) = (key(&cpus[i - 1]), key(&cpus[i]));
                if a.0 != b.0 {
                    Border::Node
                } else if a.1 != b.1 {
                    Border::Llc
                } else {
                    Border::None
                }
            })
            .collect();
        CpuOrder { cpus, borders }
    }
}

/// The matrix as lines: a title, the column CPUs, one line per row CPU (and border lines).
/// `counts`: by (row CPU, column CPU), the report's non-zero cells.
pub(crate) fn lines(
    title: &str,
    counts: &HashMap<(u32, u32), u64>,
    order: &CpuOrder,
    width: u16,
    glyphs: Glyphs,
) -> Vec<Line<'static>> {
    let max = counts.values().copied().max().unwrap_or(0);
    let n = order.cpus.len();
    let label = order.cpus.iter().max().map_or(1, |c| c.to_string().len()) + 1;
    let borders = order.borders.iter().filter(|b| **b != Border::None).count();
    let cell = max.max(9).to_string().len().max(label - 1) + 1;
    // Numbers when they fit, else one shade glyph per cell.
    let numbers = label + n * cell + borders <= width as usize;
    let cell = if numbers { cell } else { 1 };
    let mut out = vec![Line::styled(title.to_string(), super::style::header())];
    let mut head = vec![Span::raw(" ".repeat(label))];
    for (j, cpu) in order.cpus.iter().enumerate() {
        head.push(Span::raw(vertical(order.borders[j], glyphs).to_string()));
        head.push(Span::raw(if numbers {
            format!("{cpu:>cell$}")
        } else {
            // A column per CPU: its last digit, the order is the rows'.
            (cpu % 10).to_string()
        }));
    }
    out.push(Line::from(head));
    for (i, from) in order.cpus.iter().enumerate() {
        if order.borders[i] != Border::None {
            out.push(horizontal(order, i, label, cell, glyphs));
        }
        let mut spans = vec![Span::raw(format!("{from:>w$} ", w = label - 1))];
        for (j, to) in order.cpus.iter().enumerate() {
            spans.push(Span::raw(vertical(order.borders[j], glyphs).to_string()));
            let count = counts.get(&(*from, *to)).copied().unwrap_or(0);
            spans.push(shaded(count, max, cell, numbers, glyphs));
        }
        out.push(Line::from(spans));
    }
    out
}

/// Columns the matrix takes at most (its widest line).
pub(crate) fn width(lines: &[Line]) -> u16 {
    lines.iter().map(|l| l.width()).max().unwrap_or(0) as u16
}

/// 0 for no count, else 1..=4 by the count's log share of the largest.
pub(crate) fn shade(count: u64, max: u64) -> usize {
    if count == 0 {
        return 0;
    }
    if max <= 1 {
        return 4;
    }
    let share = (count as f64).ln() / (max as f64).ln();
    1 + ((share * 3.0).round() as usize).min(3)
}

/// The background of shade level `level` (None for an empty cell).
pub(crate) fn shade_colour(level: usize) -> Option<Color> {
    level.checked_sub(1).map(|i| Color::Indexed(SHADES[i]))
}

fn shaded(count: u64, max: u64, cell: usize, numbers: bool, glyphs: Glyphs) -> Span<'static> {
    let level = shade(count, max);
    let text = match (numbers, count) {
        (true, 0) => format!("{:>cell$}", if glyphs.ascii { "." } else { "·" }),
        (true, _) => format!("{count:>cell$}"),
        (false, _) => {
            const UNICODE: [char; 5] = [' ', '░', '▒', '▓', '█'];
            const ASCII: [char; 5] = [' ', '.', ':', '*', '#'];
            (if glyphs.ascii { ASCII } else { UNICODE })[level].to_string()
        }
    };
    let style = match shade_colour(level) {
        // Light backgrounds take dark digits.
        Some(bg) => Style::new().bg(bg).fg(if level > 2 {
            Color::Black
        } else {
            Color::White
        }),
        None => super::style::dim(),
    };
    Span::styled(text, style)
}

fn vertical(border: Border, glyphs: Glyphs) -> &'static str {
    match (border, glyphs.ascii) {
        (Border::None, _) => "",
        (Border::Llc, false) => "│",
        (Border::Node, false) => "┃",
        (Border::Llc, true) => "|",
        (Border::Node, true) => "#",
    }
}

/// The border line above row `i`: the row's kind of border, crossed where columns have one.
fn horizontal(
    order: &CpuOrder,
    i: usize,
    label: usize,
    cell: usize,
    glyphs: Glyphs,
) -> Line<'static> {
    let node = order.borders[i] == Border::Node;
    let (line, cross) = match (node, glyphs.ascii) {
        (false, false) => ("─", "┼"),
        (true, false) => ("━", "╋"),
        (false, true) => ("-", "+"),
        (true, true) => ("=", "#"),
    };
    let mut text = line.repeat(label);
    for j in 0..order.cpus.len() {
        if order.borders[j] != Border::None {
            text.push_str(cross);
        }
        text.push_str(&line.repeat(cell));
    }
    Line::raw(text)
}
