//! Keys from the two places they come from: the terminal (crossterm events) and the
//! `--keys` argument of `--print`, written in vim's notation (`2/mi-work<Enter>`,
//! `<Esc>`, `<Tab>`, `<S-Tab>`, `<C-d>`, `<Space>`, `<lt>` for a literal `<`).

use crate::keymap::Key;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The keymap's key for a terminal key event; `None` for releases and keys it has no use for.
pub(crate) fn from_event(event: KeyEvent) -> Option<Key> {
    if event.kind == KeyEventKind::Release {
        return None;
    }
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    Some(match event.code {
        KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        _ => return None,
    })
}

/// Parses `--keys`. A `<` that does not start a known `<name>` is the key `<` itself.
pub(crate) fn parse(text: &str) -> Result<Vec<Key>, String> {
    let mut keys = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            if let Some(end) = rest.find('>') {
                if let Some(key) = named(&rest[1..end])? {
                    keys.push(key);
                    rest = &rest[end + 1..];
                    continue;
                }
            }
        }
        keys.push(Key::Char(c));
        rest = &rest[c.len_utf8()..];
    }
    Ok(keys)
}

/// `Ok(None)`: not a key name (the `<` is then taken literally).
fn named(name: &str) -> Result<Option<Key>, String> {
    let key = match name.to_ascii_lowercase().as_str() {
        "enter" | "cr" => Key::Enter,
        "esc" => Key::Esc,
        "tab" => Key::Tab,
        "s-tab" => Key::BackTab,
        "bs" => Key::Backspace,
        "space" => Key::Char(' '),
        "lt" => Key::Char('<'),
        "gt" => Key::Char('>'),
        "up" => Key::Up,
        "down" => Key::Down,
        "left" => Key::Left,
        "right" => Key::Right,
        "pageup" => Key::PageUp,
        "pagedown" => Key::PageDown,
        "home" => Key::Home,
        "end" => Key::End,
        lower => match lower.strip_prefix("c-") {
            Some(c) if c.chars().count() == 1 => Key::Ctrl(c.chars().next().unwrap_or('c')),
            Some(_) => return Err(format!("--keys: <{name}> is not a key")),
            None => return Ok(None),
        },
    };
    Ok(Some(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation() {
        assert_eq!(
            parse("2/a<Enter><C-d><lt><x").unwrap(),
            vec![
                Key::Char('2'),
                Key::Char('/'),
                Key::Char('a'),
                Key::Enter,
                Key::Ctrl('d'),
                Key::Char('<'),
                Key::Char('<'),
                Key::Char('x')
            ]
        );
        assert_eq!(parse("<").unwrap(), vec![Key::Char('<')]);
        assert!(parse("<C-long>").is_err());
    }
}
