//! Where the record stream comes from: a memory map (or buffer) holding the whole input, or
//! a reader (standard input) consumed as a stream.
//!
//! The reader works in one pass and only ever looks at bytes from the oldest record still
//! waiting for its round to be flushed up to the record being framed. A [`Source`] hands
//! out those bytes by input offset and is told when a prefix is done with: a map gives the
//! pages back ([`Release`]), a stream drops them from its buffer, so `perf record -o - |
//! schedtrace analyze -` holds about two rounds of records, whatever the length of the run.

use crate::source::Release;
use crate::{Error, Result};
use std::io::Read;

/// Bytes of the input by absolute offset.
pub(super) trait Source {
    /// Up to `len` bytes from input offset `at` (fewer only where the input ends). `at` must
    /// not lie before what was given up with [`Source::done_before`].
    fn get(&mut self, at: u64, len: usize) -> Result<&[u8]>;
    /// The bytes still held and the input offset of the first of them.
    fn window(&self) -> (u64, &[u8]);
    /// Nothing before input offset `at` will be asked for again.
    fn done_before(&mut self, at: u64);
    /// Largest number of bytes held at once (the stream's buffer; the map counts as all).
    fn peak_held(&self) -> usize;
    /// A hint that input offset `at` will be read soon.
    #[inline]
    fn prefetch(&self, _at: u64) {}
}

/// The whole input in memory (a map or a buffer); `end` bounds the record stream (file mode:
/// the end of the data section, where the feature sections start).
pub(super) struct Mapped<'a> {
    bytes: &'a [u8],
    end: usize,
    release: &'a dyn Release,
    released: usize,
}

/// Pages are given back in steps of this size (each `madvise` is a system call).
const RELEASE_STEP: usize = 8 << 20;

impl<'a> Mapped<'a> {
    pub(super) fn new(bytes: &'a [u8], end: usize, release: &'a dyn Release) -> Mapped<'a> {
        Mapped {
            bytes,
            end: end.min(bytes.len()),
            release,
            released: 0,
        }
    }
}

impl Source for Mapped<'_> {
    #[inline]
    fn get(&mut self, at: u64, len: usize) -> Result<&[u8]> {
        let start = (at as usize).min(self.end);
        let stop = start.saturating_add(len).min(self.end);
        Ok(&self.bytes[start..stop])
    }

    fn window(&self) -> (u64, &[u8]) {
        (0, &self.bytes[..self.end])
    }

    fn done_before(&mut self, at: u64) {
        let at = (at as usize).min(self.end);
        if at >= self.released + RELEASE_STEP {
            self.release.release(self.released..at);
            self.released = at;
        }
    }

    fn peak_held(&self) -> usize {
        self.end
    }

    #[inline]
    fn prefetch(&self, at: u64) {
        super::bytes::prefetch(&self.bytes[..self.end], at as usize);
    }
}

/// A reader consumed front to back through a buffer that keeps only what is still needed.
pub(super) struct Streamed<R> {
    reader: R,
    /// Input bytes `[base, base + buf.len())`.
    buf: Vec<u8>,
    base: u64,
    /// The reader reported its end.
    ended: bool,
    peak: usize,
}

/// Bytes asked of the reader at a time.
const READ_CHUNK: usize = 1 << 20;

impl<R: Read> Streamed<R> {
    /// `prefix` holds the first bytes of the input, already read (format detection).
    pub(super) fn new(prefix: Vec<u8>, reader: R) -> Streamed<R> {
        let peak = prefix.len();
        Streamed {
            reader,
            buf: prefix,
            base: 0,
            ended: false,
            peak,
        }
    }

    /// Reads until the buffer reaches input offset `end` or the input ends.
    fn fill_to(&mut self, end: u64) -> Result<()> {
        while !self.ended && self.base + (self.buf.len() as u64) < end {
            let have = self.buf.len();
            let want = ((end - self.base) as usize - have).max(READ_CHUNK);
            // `read_to_end` grows the buffer without zeroing it first and retries
            // interrupted reads; `take` bounds it to one chunk.
            let got = (&mut self.reader)
                .take(want as u64)
                .read_to_end(&mut self.buf)
                .map_err(|e| {
                    Error::at(
                        self.base + have as u64,
                        format!("cannot read the input: {e}"),
                    )
                })?;
            self.ended = got < want;
            self.peak = self.peak.max(self.buf.len());
        }
        Ok(())
    }
}

impl<R: Read> Source for Streamed<R> {
    fn get(&mut self, at: u64, len: usize) -> Result<&[u8]> {
        debug_assert!(at >= self.base, "bytes before the window were given up");
        self.fill_to(at.saturating_add(len as u64))?;
        let start = (at.saturating_sub(self.base) as usize).min(self.buf.len());
        let stop = start.saturating_add(len).min(self.buf.len());
        Ok(&self.buf[start..stop])
    }

    fn window(&self) -> (u64, &[u8]) {
        (self.base, &self.buf)
    }

    fn done_before(&mut self, at: u64) {
        let drop = (at.saturating_sub(self.base) as usize).min(self.buf.len());
        // Moving the kept tail down costs its length: only worth it once the dead prefix is
        // at least as large, which keeps the copying linear in the input.
        if drop >= READ_CHUNK && drop * 2 >= self.buf.len() {
            self.buf.drain(..drop);
            self.base += drop as u64;
        }
    }

    fn peak_held(&self) -> usize {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most 7 bytes per call.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = out.len().min(self.0.len()).min(7);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn streamed_reads_on_demand_and_forgets_the_done_prefix() {
        let data: Vec<u8> = (0..3 * READ_CHUNK).map(|i| (i % 251) as u8).collect();
        let mut s = Streamed::new(data[..4].to_vec(), Trickle(&data[4..]));
        assert_eq!(s.get(2, 5).unwrap(), &data[2..7]);
        let far = 2 * READ_CHUNK as u64 + 10;
        assert_eq!(
            s.get(far, 3).unwrap(),
            &data[far as usize..far as usize + 3]
        );
        s.done_before(far);
        let (base, held) = s.window();
        assert_eq!(base, far);
        assert_eq!(held[0], data[far as usize]);
        // The end of the input: short slices, then empty ones.
        let last = data.len() as u64 - 2;
        assert_eq!(s.get(last, 10).unwrap(), &data[last as usize..]);
        assert!(s.get(data.len() as u64, 8).unwrap().is_empty());
    }

    #[test]
    fn mapped_bounds_by_the_data_end() {
        let data = [1u8, 2, 3, 4, 5];
        let mut m = Mapped::new(&data, 4, &crate::source::KeepAll);
        assert_eq!(m.get(2, 8).unwrap(), &[3, 4]);
        assert!(m.get(9, 8).unwrap().is_empty());
    }
}
