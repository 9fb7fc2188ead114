//! Random key sequences never panic and keep every selection and the timeline in range.

use super::{app, mi, mi_compare};
use crate::action::View;
use crate::keymap::{Key, BINDINGS};
use proptest::prelude::*;

/// Every bound key, plus text and editing keys for the filter and command lines.
fn keys() -> Vec<Key> {
    let mut keys: Vec<Key> = BINDINGS
        .iter()
        .flat_map(|b| b.keys.iter().copied())
        .filter(|k| *k != Key::Char('q') && *k != Key::Ctrl('c'))
        .collect();
    keys.extend("mi-w(>5ms!x".chars().map(Key::Char));
    keys.extend([Key::Backspace, Key::Enter, Key::Esc]);
    keys
}

fn check(app: &crate::state::App) {
    for view in View::ALL {
        let rows = app.rows(view);
        let at = app.cursor[view.index()];
        assert!(at == 0 || at < rows, "{view:?}: cursor {at} of {rows}");
    }
    assert!(app.timeline.in_range(), "{:?}", app.timeline);
    assert!(app.run < app.data.as_ref().unwrap().inputs.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_keys_keep_the_state_in_range(picks in prop::collection::vec(0usize..1000, 1..120), compare in any::<bool>()) {
        let keys = keys();
        let mut app = app(if compare { mi_compare() } else { mi() });
        for p in picks {
            app.key(keys[p % keys.len()]);
            // Reloads are not run here; a pending one must not break anything.
            let _ = app.take_request();
            check(&app);
            // Drawing must not panic either, at a small and a large size.
            let _ = crate::print::frame(&mut app, 80, 24, crate::ui::style::Glyphs::default());
        }
        let _ = crate::print::frame(&mut app, 160, 50, crate::ui::style::Glyphs { ascii: true });
    }
}
