//! Colours and glyphs in one place. Meaning never rests on colour alone: flags keep their
//! `*` / `^`, the selection is reversed video, so a monochrome terminal loses nothing.

use ratatui::style::{Color, Modifier, Style};

/// `--ascii`: no braille, block or box-drawing glyphs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Glyphs {
    pub ascii: bool,
}

impl Glyphs {
    pub fn bar(self) -> &'static str {
        if self.ascii {
            "#"
        } else {
            "█"
        }
    }

    pub fn mark(self) -> &'static str {
        if self.ascii {
            "+"
        } else {
            "●"
        }
    }

    pub fn descending(self) -> &'static str {
        if self.ascii {
            "v"
        } else {
            "▼"
        }
    }

    pub fn ascending(self) -> &'static str {
        if self.ascii {
            "^"
        } else {
            "▲"
        }
    }

    pub fn warning(self) -> &'static str {
        if self.ascii {
            "!"
        } else {
            "⚠"
        }
    }

    pub fn separator(self) -> &'static str {
        if self.ascii {
            "|"
        } else {
            "·"
        }
    }
}

pub fn header() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

pub fn selected() -> Style {
    Style::new().add_modifier(Modifier::REVERSED)
}

pub fn regression() -> Style {
    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
}

pub fn improvement() -> Style {
    Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
}

pub fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

pub fn error() -> Style {
    Style::new().fg(Color::Red)
}

pub fn badge_bad() -> Style {
    Style::new().fg(Color::Black).bg(Color::Yellow)
}

pub fn badge_ok() -> Style {
    Style::new().fg(Color::Black).bg(Color::Green)
}

/// The style of a compare cell with this flag.
pub fn flag(flag: Option<&str>) -> Style {
    match flag {
        Some("*") => regression(),
        Some("^") => improvement(),
        _ => Style::new(),
    }
}
