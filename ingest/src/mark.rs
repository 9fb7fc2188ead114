//! The text of ftrace `print` events (what a workload writes to `trace_marker`), held apart from
//! the events: an [`crate::Event`] is a small `Copy` value decoded by the million, a marker's text
//! has any length. A [`Mark`] is the number of its text in the [`Marks`] of the read that met it
//! (a text met again, the same marker repeated, is held once).
//!
//! The table belongs to one read, not to the process: it is created with the read, handed to the
//! sink before the first event ([`crate::EventSink::marks`]) and returned with what was read
//! ([`crate::Ingested::marks`]), and goes when the last of them lets it go. So a long session
//! that reads trace after trace (the TUI reloading) starts each read with an empty table. It is
//! bounded ([`MAX_TEXT_BYTES`] unless the read says otherwise): a trace of millions of distinct
//! markers (hostile, or a workload logging through `trace_marker`) keeps the texts that fit, in
//! the order they are met, and marks the rest as dropped, counted in the ledger
//! ([`DROPPED_REASON`]), rather than growing without end.
//!
//! A mutex guards the table because several threads of one read meet markers at once
//! (trace.dat's CPU streams, text chunks parsed in parallel); markers are rare next to the
//! events, so one uncontended lock per marker costs nothing worth a lock-free table.

use crate::{EventSink, Ingested, Result};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

/// Total text bytes one read's table holds by default.
pub(crate) const MAX_TEXT_BYTES: usize = 64 << 20;

/// The ledger's reason (`quality.rejected`) for marker texts that did not fit in the table: their
/// events are kept, their texts are not.
pub(crate) const DROPPED_REASON: &str =
    "print: marker text dropped, the read's marker table is full";

/// The text of one `print` event, by its number in its read's [`Marks`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mark(u32);

/// The number of a text that did not fit in the table.
const DROPPED: u32 = u32::MAX;

impl Mark {
    /// Whether the text was not kept: the table was full when it was met.
    pub fn is_dropped(self) -> bool {
        self.0 == DROPPED
    }
}

impl fmt::Debug for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.is_dropped() {
            true => f.write_str("Mark(dropped)"),
            false => write!(f, "Mark({})", self.0),
        }
    }
}

/// The marker texts of one read (a shared handle: clones see the same table).
#[derive(Clone)]
pub struct Marks(Arc<Mutex<Table>>);

struct Table {
    numbers: HashMap<Arc<[u8]>, u32>,
    texts: Vec<Arc<[u8]>>,
    bytes: usize,
    limit: usize,
    /// Markers whose text did not fit (each occurrence).
    dropped: u64,
}

impl Default for Marks {
    fn default() -> Marks {
        Marks::with_limit(MAX_TEXT_BYTES)
    }
}

impl Marks {
    /// An empty table that holds at most `limit` bytes of text.
    pub fn with_limit(limit: usize) -> Marks {
        Marks(Arc::new(Mutex::new(Table {
            numbers: HashMap::new(),
            texts: Vec::new(),
            bytes: 0,
            limit,
            dropped: 0,
        })))
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        // A poisoned lock only means another thread panicked while it held it: the table
        // itself is consistent after every statement.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The marker whose text is `raw` up to its first NUL, the kernel's trailing newline
    /// dropped (the print buffer ends in one; Perfetto's writer puts it back).
    pub fn intern(&self, raw: &[u8]) -> Mark {
        let raw = memchr::memchr(0, raw).map_or(raw, |nul| &raw[..nul]);
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let mut t = self.table();
        if let Some(&n) = t.numbers.get(raw) {
            return Mark(n);
        }
        if t.bytes + raw.len() > t.limit || t.texts.len() >= DROPPED as usize {
            t.dropped += 1;
            return Mark(DROPPED);
        }
        let text: Arc<[u8]> = raw.into();
        let n = t.texts.len() as u32;
        t.texts.push(text.clone());
        t.numbers.insert(text, n);
        t.bytes += raw.len();
        Mark(n)
    }

    /// The text of `mark` (empty for a dropped one, or one of another read).
    pub fn text(&self, mark: Mark) -> Arc<[u8]> {
        self.table()
            .texts
            .get(mark.0 as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from(&b""[..]))
    }

    /// [`Marks::text`] as a string; invalid UTF-8 is replaced.
    pub fn text_lossy(&self, mark: Mark) -> String {
        String::from_utf8_lossy(&self.text(mark)).into_owned()
    }

    /// Markers met so far whose text did not fit.
    pub fn dropped(&self) -> u64 {
        self.table().dropped
    }
}

impl fmt::Debug for Marks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.table();
        f.debug_struct("Marks")
            .field("texts", &t.texts.len())
            .field("bytes", &t.bytes)
            .field("dropped", &t.dropped)
            .finish()
    }
}

/// Runs one read whose marker texts go into `marks`: `sink` is told the table before the first
/// event, and the result carries it, the markers whose text did not fit counted in its ledger
/// (`rejected`, [`DROPPED_REASON`]). Every read function of the crate ends here.
pub(crate) fn read_marked(
    marks: &Marks,
    sink: &mut dyn EventSink,
    read: impl FnOnce(&mut dyn EventSink) -> Result<Ingested>,
) -> Result<Ingested> {
    sink.marks(marks);
    let mut ingested = read(sink)?;
    let dropped = marks.dropped();
    if dropped > 0 {
        *ingested
            .stats
            .rejected
            .entry(DROPPED_REASON.to_string())
            .or_insert(0) += dropped;
    }
    ingested.marks = marks.clone();
    Ok(ingested)
}

/// For tests that compare two reads: the events with each marker's number taken out, and the
/// markers' texts in event order. A marker's number belongs to its read (chunks parsed in
/// parallel meet the texts in any order), so two reads agree on the texts, not the numbers.
#[cfg(test)]
pub(crate) fn texts_apart(
    events: Vec<crate::Event>,
    marks: &Marks,
) -> (Vec<crate::Event>, Vec<String>) {
    use crate::EventKind;
    let texts = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Print { text } => Some(marks.text_lossy(text)),
            _ => None,
        })
        .collect();
    let events = events
        .into_iter()
        .map(|e| match e.kind {
            EventKind::Print { .. } => crate::Event {
                kind: EventKind::Other,
                ..e
            },
            _ => e,
        })
        .collect();
    (events, texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_of_any_length_survive_and_repeat_once() {
        let marks = Marks::default();
        let long = "workload_start workload=pingpong rounds=5000 cpu_a=1 cpu_b=1 ping_pid=18145";
        let a = marks.intern(format!("{long}\n\0\0junk").as_bytes());
        assert_eq!(marks.text_lossy(a), long);
        assert_eq!(marks.intern(long.as_bytes()), a);
        assert_ne!(marks.intern(b"other"), a);
        assert!(!a.is_dropped());
        assert_eq!(marks.dropped(), 0);
    }

    /// Texts are kept in the order met while they fit; each marker past the bound is counted,
    /// a repeat of a kept text still resolves.
    #[test]
    fn past_the_bound_texts_are_dropped_and_counted() {
        let marks = Marks::with_limit(10);
        let first = marks.intern(b"12345");
        let second = marks.intern(b"6789");
        let over = marks.intern(b"ab");
        assert_eq!(marks.text_lossy(first), "12345");
        assert_eq!(marks.text_lossy(second), "6789");
        assert!(over.is_dropped());
        assert_eq!(marks.text_lossy(over), "");
        assert_eq!(marks.intern(b"12345"), first);
        assert!(marks.intern(b"ab").is_dropped());
        assert_eq!(marks.dropped(), 2);
        // Another read starts empty.
        let other = Marks::with_limit(10);
        assert!(!other.intern(b"ab").is_dropped());
        assert_eq!(other.dropped(), 0);
    }
}

#[cfg(test)]
#[path = "mark_tests.rs"]
mod trace_tests;
