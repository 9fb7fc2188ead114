//! The analysed window (report `window`), in its own module because the report holds it
//! while the modules the report holds the results of (the series, the timeline store) cut
//! their own data by it: below all of them, it imports nothing of the crate.

use serde::{Deserialize, Serialize};

/// The time the numbers cover: first to last event, clipped to `--time`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Window {
    pub start_ns: u64,
    pub end_ns: u64,
}

impl Window {
    pub fn len_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}
