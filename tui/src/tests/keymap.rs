//! The keymap table: one meaning per key wherever a binding applies, all in the help.

use crate::keymap::{help_lines, Context, BINDINGS};
use std::collections::HashMap;

#[test]
fn no_two_bindings_share_a_key_in_one_context() {
    for context in Context::ALL {
        let mut seen = HashMap::new();
        // A view's keys are looked up before the global ones: they must not hide one.
        let applicable = BINDINGS
            .iter()
            .filter(|b| b.context == context || b.context == Context::Global);
        for b in applicable {
            for key in b.keys {
                if let Some(other) = seen.insert(*key, b.help) {
                    panic!("{key:?} in {context:?}: {other:?} and {:?}", b.help);
                }
            }
        }
    }
}

#[test]
fn every_binding_is_in_the_help() {
    let help = help_lines().join("\n");
    for b in BINDINGS {
        assert!(help.contains(b.help), "{} missing from the help", b.help);
        for key in b.keys {
            assert!(help.contains(&key.label()), "{key:?} missing from the help");
        }
    }
}
