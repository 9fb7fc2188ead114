//! Byte access for perf.data: the shared `ftrace::Endian` / `ftrace::Reader` plus perf's
//! own string encodings (`perf_header_string`, `perf_header_string_list`, formats.md §4.2).
//! The free functions return `Option` for the per-record hot path, where the caller turns
//! `None` into a reject or an error with its own offset.

use crate::{Error, Result};

pub(super) use crate::ftrace::{Endian, Reader as Cursor};

#[inline]
pub(super) fn u16_at(endian: Endian, buf: &[u8], off: usize) -> Option<u16> {
    endian.u16_at(buf, off)
}

#[inline]
pub(super) fn u32_at(endian: Endian, buf: &[u8], off: usize) -> Option<u32> {
    endian.u32_at(buf, off)
}

#[inline]
pub(super) fn u64_at(endian: Endian, buf: &[u8], off: usize) -> Option<u64> {
    endian.u64_at(buf, off)
}

/// Asks the CPU to bring the two cache lines at `buf[at..]` (a perf sample is ~100 bytes) into
/// the cache ahead of their use; nothing happens past the end of `buf`. Reading perf.data is
/// bound by the wait for each record's first bytes: the hardware prefetcher stops at every
/// 4 KiB page and does not follow the time order that the emitter walks in.
#[inline]
pub(super) fn prefetch(buf: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    for line in [at, at + 64] {
        if let Some(byte) = buf.get(line) {
            // SAFETY: a prefetch only hints the cache; the address is inside `buf`.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    (byte as *const u8).cast(),
                )
            };
        }
    }
    let _ = (buf, at);
}

/// perf's length-prefixed strings on top of the shared reader.
pub(super) trait PerfStrings<'a> {
    /// `u32 len` then `len` bytes (NUL and padding to 64 included); the text is the bytes up
    /// to the first NUL.
    fn perf_string(&mut self, what: &str) -> Result<&'a [u8]>;
    /// `u32 nr` then `nr` strings.
    fn perf_string_list(&mut self, what: &str) -> Result<Vec<String>>;
}

impl<'a> PerfStrings<'a> for Cursor<'a> {
    fn perf_string(&mut self, what: &str) -> Result<&'a [u8]> {
        let at = self.offset();
        let len = self.u32(what)? as usize;
        if len > self.remaining() {
            return Err(Error::at(
                at,
                format!(
                    "{what}: string length {len} runs past the section end ({} bytes left)",
                    self.remaining()
                ),
            ));
        }
        let raw = self.bytes(len, what)?;
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        Ok(&raw[..end])
    }

    fn perf_string_list(&mut self, what: &str) -> Result<Vec<String>> {
        let at = self.offset();
        let nr = self.u32(what)? as usize;
        // Each string needs at least its 4-byte length: reject absurd counts before allocating.
        if nr > self.remaining() / 4 {
            return Err(Error::at(
                at,
                format!(
                    "{what}: {nr} strings cannot fit in {} bytes",
                    self.remaining()
                ),
            ));
        }
        let mut out = Vec::with_capacity(nr);
        for _ in 0..nr {
            out.push(String::from_utf8_lossy(self.perf_string(what)?).into_owned());
        }
        Ok(out)
    }
}
