//! The text of ftrace `print` events (what a workload writes to `trace_marker`), held apart from
//! the events: an [`crate::Event`] is a small `Copy` value decoded by the million, a marker's text
//! has any length. A [`Mark`] is the number of its text in one table for the process, into which
//! every reader puts the texts it meets (a text met again, the same marker repeated, is held once).
//!
//! The table holds content, not settings: two reads that meet the same text share it, and a read
//! cannot change what another sees. It is bounded ([`MAX_TEXT_BYTES`]): a trace of millions of
//! distinct markers (hostile, or a workload logging through `trace_marker`) keeps the texts that
//! fit and marks the rest as dropped, rather than growing without end.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// Total text bytes the table holds, over every read of the process.
pub(crate) const MAX_TEXT_BYTES: usize = 64 << 20;

/// The text of one `print` event, by its number in the process's marker table.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mark(u32);

/// The number of a text that did not fit in the table.
const DROPPED: u32 = u32::MAX;

#[derive(Default)]
struct Table {
    numbers: HashMap<Arc<[u8]>, u32>,
    texts: Vec<Arc<[u8]>>,
    bytes: usize,
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

impl Mark {
    /// The marker whose text is `raw` up to its first NUL, the kernel's trailing newline
    /// dropped (the print buffer ends in one; Perfetto's writer puts it back).
    pub fn from_bytes(raw: &[u8]) -> Mark {
        let raw = memchr::memchr(0, raw).map_or(raw, |nul| &raw[..nul]);
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        // A poisoned lock only means another thread panicked while it held it: the table
        // itself is consistent after every statement.
        let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&n) = t.numbers.get(raw) {
            return Mark(n);
        }
        if t.bytes + raw.len() > MAX_TEXT_BYTES || t.texts.len() >= DROPPED as usize {
            return Mark(DROPPED);
        }
        let text: Arc<[u8]> = raw.into();
        let n = t.texts.len() as u32;
        t.texts.push(text.clone());
        t.numbers.insert(text, n);
        t.bytes += raw.len();
        Mark(n)
    }

    /// The text (empty for a dropped one).
    pub fn bytes(self) -> Arc<[u8]> {
        let t = table().lock().unwrap_or_else(|e| e.into_inner());
        t.texts
            .get(self.0 as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from(&b""[..]))
    }

    /// Whether the text was not kept: the table was full when it was met.
    pub fn is_dropped(self) -> bool {
        self.0 == DROPPED
    }

    pub fn to_string_lossy(self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }
}

impl fmt::Debug for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.is_dropped() {
            true => f.write_str("<marker text dropped>"),
            false => write!(f, "{:?}", self.to_string_lossy()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_of_any_length_survive_and_repeat_once() {
        let long = "workload_start workload=pingpong rounds=5000 cpu_a=1 cpu_b=1 ping_pid=18145";
        let a = Mark::from_bytes(format!("{long}\n\0\0junk").as_bytes());
        assert_eq!(a.to_string_lossy(), long);
        assert_eq!(Mark::from_bytes(long.as_bytes()), a);
        assert_ne!(Mark::from_bytes(b"other"), a);
        assert!(!a.is_dropped());
    }
}
