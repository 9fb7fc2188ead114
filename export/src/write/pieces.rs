//! The text around a row's values in a text format, as pieces made once per table, for the
//! writers that format the big tables' rows straight from their records
//! ([`super::interval_text`], [`super::wait_text`]) rather than as [`crate::cell::Cell`]s.
//!
//! Why: those tables are nearly all of an export's rows (on the large trace of `bench/`, 30
//! of its 31.5 M), and a row as cells was a dozen cells made, matched one by one, the bound
//! summed from the text cells, then dropped: in the profile of a CSV export the field loop
//! was a third of the `intervals` writer thread and half of the `waits` one. What lies
//! between a row's values is the same in every row, but for its words (a state, an end
//! reason, a placement class), which have few values: a word with the separators or keys
//! on both sides of it is one piece, picked by the value, and a row's bound is known once.
//! The writers' tests hold the bytes to those of the same rows written cell by cell.

use super::cursor::{Chunked, Cursor, CHUNK};
use super::text;

/// How a format writes the text around the values of a table's row.
pub(super) struct Syntax {
    /// Per column: the text before its value (a separator, a key).
    before: Vec<Vec<u8>>,
    /// The text after the last value (the line's end).
    end: Vec<u8>,
    /// Null as written.
    null: &'static [u8],
    /// A text value as written, and the most bytes it takes.
    text: fn(&mut Cursor, &str),
    text_bound: fn(&str) -> usize,
}

impl Syntax {
    /// CSV of `columns` columns: commas between the values, null the empty field.
    pub(super) fn csv(columns: usize) -> Syntax {
        Syntax {
            before: (0..columns).map(|i| b",".repeat(i.min(1))).collect(),
            end: b"\n".to_vec(),
            null: b"",
            text: text::csv_text,
            text_bound: text::csv_text_bound,
        }
    }

    /// NDJSON of the columns whose `keys` are given (each a JSON string and a colon): an
    /// object, its members after a comma but the first.
    pub(super) fn ndjson(keys: &[Vec<u8>]) -> Syntax {
        let opening = |i: usize| if i == 0 { &b"{"[..] } else { &b","[..] };
        Syntax {
            before: keys
                .iter()
                .enumerate()
                .map(|(i, key)| [opening(i), key].concat())
                .collect(),
            end: b"}\n".to_vec(),
            null: b"null",
            text: text::json_text,
            text_bound: text::json_text_bound,
        }
    }

    /// The text before column `column`; after the last value for the column past the last.
    pub(super) fn before(&self, column: usize) -> &[u8] {
        self.before.get(column).map_or(&self.end[..], |b| b)
    }

    /// The text before `column`, `word` (null for None) as its value, and the text before
    /// column `then` when given: a word column's piece for one of its words.
    pub(super) fn word_piece(
        &self,
        column: usize,
        word: Option<&str>,
        then: Option<usize>,
    ) -> Chunked {
        let value = match word {
            Some(w) => self.text_of(w),
            None => self.null.to_vec(),
        };
        let next = then.map_or(&[][..], |c| self.before(c));
        Chunked::new(&[self.before(column), &value, next].concat())
    }

    /// The text before `column` alone, as a piece.
    pub(super) fn piece(&self, column: usize) -> Chunked {
        Chunked::new(self.before(column))
    }

    pub(super) fn null(&self) -> Chunked {
        Chunked::new(self.null)
    }

    /// The most bytes an integer or null takes.
    pub(super) fn int_bound(&self) -> usize {
        text::INT_BOUND.max(self.null.len())
    }

    /// The most bytes a boolean or null takes.
    pub(super) fn bool_bound(&self) -> usize {
        text::BOOL_BOUND.max(self.null.len())
    }

    /// The text of columns `from` to `from + ints.len()` with those values (the leading
    /// integers, then `text`; null for None), and the text before the column after them
    /// (`then`, if given): a task's text, made once for its rows.
    pub(super) fn task_text(
        &self,
        from: usize,
        ints: &[Option<i64>],
        text: Option<&str>,
        then: Option<usize>,
    ) -> Chunked {
        let bound = (self.before.len() + 1) * CHUNK
            + ints.len() * self.int_bound()
            + text.map_or(self.null.len(), self.text_bound)
            + self.end.len();
        let mut room = vec![0; bound];
        let mut out = Cursor::new(&mut room);
        for (i, n) in ints.iter().enumerate() {
            out.bytes(self.before(from + i));
            match n {
                Some(n) => text::int(&mut out, *n),
                None => out.bytes(self.null),
            }
        }
        out.bytes(self.before(from + ints.len()));
        match text {
            Some(text) => (self.text)(&mut out, text),
            None => out.bytes(self.null),
        }
        if let Some(column) = then {
            out.bytes(self.before(column));
        }
        Chunked::new(out.written())
    }

    /// `text` as this format writes a text value.
    fn text_of(&self, text: &str) -> Vec<u8> {
        let mut room = vec![0; (self.text_bound)(text)];
        let mut out = Cursor::new(&mut room);
        (self.text)(&mut out, text);
        out.written().to_vec()
    }
}

/// The longest of `pieces`.
pub(super) fn longest(pieces: &[Chunked]) -> usize {
    pieces.iter().map(Chunked::len).max().unwrap_or(0)
}

/// Writes `n`, or `null` for None.
#[inline(always)]
pub(super) fn int_or(out: &mut Cursor, n: Option<i64>, null: &Chunked) {
    match n {
        Some(n) => text::int(out, n),
        None => null.write(out),
    }
}

/// As a Cell takes it: a value beyond i64 is null.
#[inline(always)]
pub(super) fn ns(n: u64) -> Option<i64> {
    i64::try_from(n).ok()
}
