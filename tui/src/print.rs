//! `--print`: one frame drawn into an off-screen buffer and returned as plain text (no
//! colours), after the given keys. The tests use it, and so can anyone pasting a screen
//! into a mail.

use crate::state::App;
use crate::ui::{self, style::Glyphs};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;
use unicode_width::UnicodeWidthStr;

/// Draws `app` at `width` × `height` into a buffer.
pub(crate) fn frame(app: &mut App, width: u16, height: u16, glyphs: Glyphs) -> Buffer {
    app.page_rows = height.saturating_sub(ui::CHROME_ROWS + 1) as usize;
    let mut terminal = match Terminal::new(TestBackend::new(width, height)) {
        Ok(t) => t,
        Err(never) => match never {},
    };
    let completed = terminal.draw(|f| ui::draw(f, app, glyphs));
    match completed {
        Ok(done) => done.buffer.clone(),
        Err(never) => match never {},
    }
}

/// The buffer as lines of text, trailing blanks removed. A wide character's hidden
/// second cell is skipped, so columns line up as on the terminal.
pub(crate) fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let symbol = buffer[(x, y)].symbol();
            skip = symbol.width().saturating_sub(1);
            line.push_str(symbol);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
