//! The text writers' output: a byte buffer of fixed size, written to the file when the next
//! row does not fit, and a [`Cursor`] that a row is formatted through.
//!
//! A row asks for room for its longest text once ([`TextFile::row`]), then its cells are
//! written into that room without a capacity check each (appending each cell's bytes to a
//! `Vec` is a small `memmove` and a growth check per cell, which dominated the writer
//! threads' profiles). The room is plain initialised bytes, so a bound computed too small is a
//! bounds-check panic (a bug the tests see), never a write out of the buffer.

use std::fs::File;
use std::io::Write;

/// Bytes handed to the file at a time: few system calls, a buffer that stays in the caches.
const FLUSH_BYTES: usize = 1 << 20;

/// Short texts made once (an NDJSON key, a task's text) are copied into a row as this many
/// bytes ([`Chunked`]): a copy of a size known when compiling is a few moves, where one of
/// the text's own length was a `memcpy` call each. So a row's room is this much larger
/// than its bound: a chunk runs past the text it copies by less than this.
pub(super) const CHUNK: usize = 64;

/// A table file being written as text.
pub(super) struct TextFile {
    file: File,
    /// Always `FLUSH_BYTES` long (longer once a row needed more); `filled` of it is output.
    bytes: Vec<u8>,
    filled: usize,
}

impl TextFile {
    pub(super) fn new(file: File) -> TextFile {
        TextFile {
            file,
            bytes: vec![0; FLUSH_BYTES],
            filled: 0,
        }
    }

    /// Formats one row of at most `bound` bytes with `fill` (its room is [`CHUNK`] more).
    #[inline]
    pub(super) fn row(
        &mut self,
        bound: usize,
        fill: impl FnOnce(&mut Cursor),
    ) -> std::io::Result<()> {
        let bound = bound + CHUNK;
        if self.bytes.len() - self.filled < bound {
            self.flush()?;
            if self.bytes.len() < bound {
                self.bytes.resize(bound, 0);
            }
        }
        let mut cursor = Cursor {
            room: &mut self.bytes[self.filled..],
            at: 0,
        };
        fill(&mut cursor);
        self.filled += cursor.at;
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.write_all(&self.bytes[..self.filled])?;
        self.filled = 0;
        Ok(())
    }

    /// Writes what is left and syncs the file.
    pub(super) fn finish(mut self) -> std::io::Result<()> {
        self.flush()?;
        self.file.sync_all()
    }
}

/// Where a row's bytes go: the room [`TextFile::row`] made for it.
pub(super) struct Cursor<'b> {
    room: &'b mut [u8],
    at: usize,
}

impl<'b> Cursor<'b> {
    /// A cursor over `room` (for text made once, and the tests).
    pub(super) fn new(room: &'b mut [u8]) -> Cursor<'b> {
        Cursor { room, at: 0 }
    }

    /// The bytes written so far.
    pub(super) fn written(&self) -> &[u8] {
        &self.room[..self.at]
    }

    #[inline]
    pub(super) fn byte(&mut self, b: u8) {
        self.room[self.at] = b;
        self.at += 1;
    }

    #[inline]
    pub(super) fn bytes(&mut self, s: &[u8]) {
        self.take(s.len()).copy_from_slice(s);
    }

    /// The next `n` bytes of the room, to be written in place (counted as written).
    #[inline]
    pub(super) fn take(&mut self, n: usize) -> &mut [u8] {
        let start = self.at;
        self.at += n;
        &mut self.room[start..start + n]
    }
}

/// A short text made once and written into many rows: copied as [`CHUNK`] bytes when it
/// is no longer, else as it is.
pub(super) struct Chunked {
    len: usize,
    chunk: [u8; CHUNK],
    /// The text when longer than a chunk.
    long: Vec<u8>,
}

impl Chunked {
    pub(super) fn new(text: &[u8]) -> Chunked {
        let mut chunked = Chunked {
            len: 0,
            chunk: [0; CHUNK],
            long: Vec::new(),
        };
        chunked.set(text);
        chunked
    }

    pub(super) fn set(&mut self, text: &[u8]) {
        self.len = text.len();
        match self.chunk.get_mut(..text.len()) {
            Some(head) => head.copy_from_slice(text),
            None => {
                self.long.clear();
                self.long.extend_from_slice(text);
            }
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(super) fn write(&self, out: &mut Cursor) {
        if self.len <= CHUNK {
            // The first 16 bytes, and the rest of the chunk when the text is longer, each
            // copy running on past the text (the room has CHUNK bytes to spare), then on by
            // the text: most texts (a CSV separator, a word, an NDJSON key) are one 16-byte
            // vector move of the baseline x86-64, where the whole chunk was four. Two copies
            // of sizes known when compiling: a copy of the text's own length, or one picked
            // from several sizes, became a `memmove` call (a tenth of the `intervals`
            // writer thread).
            let start = out.at;
            let room = &mut out.room[start..start + CHUNK];
            room[..16].copy_from_slice(&self.chunk[..16]);
            if self.len > 16 {
                room[16..].copy_from_slice(&self.chunk[16..]);
            }
            out.at += self.len;
        } else {
            out.bytes(&self.long);
        }
    }
}
