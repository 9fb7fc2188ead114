//! Colours and glyphs in one place. Meaning never rests on colour alone: flags keep their
//! `*` / `^`, the selection is reversed video, so a monochrome terminal loses nothing.

use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::border;
use ratatui::widgets::{Block, Borders};

/// `--ascii`: no braille, block or box-drawing glyphs.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Glyphs {
    pub ascii: bool,
}

impl Glyphs {
    /// The Unicode glyph, or its ASCII stand-in under `--ascii`.
    fn pick(self, unicode: &'static str, ascii: &'static str) -> &'static str {
        if self.ascii {
            ascii
        } else {
            unicode
        }
    }

    pub(crate) fn bar(self) -> &'static str {
        self.pick("█", "#")
    }

    pub(crate) fn mark(self) -> &'static str {
        self.pick("●", "+")
    }

    pub(crate) fn descending(self) -> &'static str {
        self.pick("▼", "v")
    }

    pub(crate) fn ascending(self) -> &'static str {
        self.pick("▲", "^")
    }

    pub(crate) fn warning(self) -> &'static str {
        self.pick("⚠", "!")
    }

    pub(crate) fn separator(self) -> &'static str {
        self.pick("·", "|")
    }

    pub(crate) fn times(self) -> &'static str {
        self.pick("×", "x")
    }

    /// A block with these borders, drawn in box glyphs or `+`, `-`, `|`.
    pub(crate) fn block(self, borders: Borders) -> Block<'static> {
        let block = Block::default().borders(borders);
        if self.ascii {
            block.border_set(ASCII_BORDER)
        } else {
            block
        }
    }
}

const ASCII_BORDER: border::Set = border::Set {
    top_left: "+",
    top_right: "+",
    bottom_left: "+",
    bottom_right: "+",
    vertical_left: "|",
    vertical_right: "|",
    horizontal_top: "-",
    horizontal_bottom: "-",
};

impl Glyphs {}

pub(crate) fn header() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub(crate) fn selected() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

pub(crate) fn regression() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

pub(crate) fn improvement() -> Style {
    Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
}

pub(crate) fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

pub(crate) fn error() -> Style {
    Style::new().fg(Color::Red)
}

pub(crate) fn badge_bad() -> Style {
    Style::new().fg(Color::Black).bg(Color::Yellow)
}

pub(crate) fn badge_ok() -> Style {
    Style::new().fg(Color::Black).bg(Color::Green)
}

/// The style of a compare cell with this flag.
pub(crate) fn flag(flag: Option<&str>) -> Style {
    match flag {
        Some("*") => regression(),
        Some("^") => improvement(),
        _ => Style::new(),
    }
}
