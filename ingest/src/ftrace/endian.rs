//! Byte order and a bounds-checked cursor over `&[u8]`, shared by every binary reader.
//!
//! Every read returns `Result` whose error names the absolute file offset
//! (`base_offset + position`) and what was being read, so bad input never panics.

use crate::error::{Error, Result};

/// Byte order of a file (trace.dat declares it, perf.data implies it by its magic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    /// The byte order of the machine running this code.
    pub fn native() -> Endian {
        if cfg!(target_endian = "big") {
            Endian::Big
        } else {
            Endian::Little
        }
    }

    #[inline]
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }

    #[inline]
    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    #[inline]
    pub fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }

    /// u16 at `off` of `data`, `None` when it does not fit.
    #[inline]
    pub fn u16_at(self, data: &[u8], off: usize) -> Option<u16> {
        let b = data.get(off..off.checked_add(2)?)?;
        Some(self.u16([b[0], b[1]]))
    }

    /// u32 at `off` of `data`, `None` when it does not fit.
    #[inline]
    pub fn u32_at(self, data: &[u8], off: usize) -> Option<u32> {
        let b = data.get(off..off.checked_add(4)?)?;
        Some(self.u32([b[0], b[1], b[2], b[3]]))
    }

    /// u64 at `off` of `data`, `None` when it does not fit.
    #[inline]
    pub fn u64_at(self, data: &[u8], off: usize) -> Option<u64> {
        let b = data.get(off..off.checked_add(8)?)?;
        Some(self.u64([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    /// Unsigned integer of 1, 2, 4 or 8 bytes at `off` (`None` for other sizes or out of bounds).
    #[inline]
    pub fn uint_at(self, data: &[u8], off: usize, size: usize) -> Option<u64> {
        match size {
            1 => data.get(off).map(|&b| b as u64),
            2 => self.u16_at(data, off).map(u64::from),
            4 => self.u32_at(data, off).map(u64::from),
            8 => self.u64_at(data, off),
            _ => None,
        }
    }

    /// Integer of 1, 2, 4 or 8 bytes at `off`, sign-extended when `signed`.
    #[inline]
    pub fn int_at(self, data: &[u8], off: usize, size: usize, signed: bool) -> Option<i64> {
        let v = self.uint_at(data, off, size)?;
        if signed && size < 8 {
            let shift = 64 - 8 * size as u32;
            Some(((v << shift) as i64) >> shift)
        } else {
            Some(v as i64)
        }
    }
}

/// Byte order as a type, so that per-record code (the event decoder) is compiled once per
/// order with no branch on it per field; [`Endian`] picks the instance once per record.
pub(crate) trait ByteOrder {
    fn u16(b: [u8; 2]) -> u16;
    fn u32(b: [u8; 4]) -> u32;
    fn u64(b: [u8; 8]) -> u64;
}

pub(crate) struct Le;
pub(crate) struct Be;

impl ByteOrder for Le {
    #[inline(always)]
    fn u16(b: [u8; 2]) -> u16 {
        u16::from_le_bytes(b)
    }
    #[inline(always)]
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_le_bytes(b)
    }
    #[inline(always)]
    fn u64(b: [u8; 8]) -> u64 {
        u64::from_le_bytes(b)
    }
}

impl ByteOrder for Be {
    #[inline(always)]
    fn u16(b: [u8; 2]) -> u16 {
        u16::from_be_bytes(b)
    }
    #[inline(always)]
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_be_bytes(b)
    }
    #[inline(always)]
    fn u64(b: [u8; 8]) -> u64 {
        u64::from_be_bytes(b)
    }
}

/// A cursor over a byte slice that knows where the slice sits in the file.
#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base_offset: u64,
    endian: Endian,
}

impl<'a> Reader<'a> {
    /// `base_offset` is the file offset of `data[0]` (used in error messages).
    pub(crate) fn new(data: &'a [u8], base_offset: u64, endian: Endian) -> Reader<'a> {
        Reader {
            data,
            pos: 0,
            base_offset,
            endian,
        }
    }

    pub(crate) fn endian(&self) -> Endian {
        self.endian
    }

    pub(crate) fn set_endian(&mut self, endian: Endian) {
        self.endian = endian;
    }

    /// Position inside the slice.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Absolute file offset of the current position.
    pub(crate) fn offset(&self) -> u64 {
        self.base_offset + self.pos as u64
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// An error at the current position.
    pub(crate) fn error(&self, cause: impl Into<String>) -> Error {
        Error::at(self.offset(), cause)
    }

    /// Moves to `pos` (relative to the slice start).
    pub(crate) fn seek(&mut self, pos: usize, what: &str) -> Result<()> {
        if pos > self.data.len() {
            return Err(Error::at(
                self.base_offset + pos as u64,
                format!(
                    "{what} lies past the end of the data ({} bytes)",
                    self.data.len()
                ),
            ));
        }
        self.pos = pos;
        Ok(())
    }

    /// The next `len` bytes.
    pub(crate) fn bytes(&mut self, len: usize, what: &str) -> Result<&'a [u8]> {
        if len > self.remaining() {
            return Err(self.error(format!(
                "truncated {what}: needs {len} bytes, only {} left",
                self.remaining()
            )));
        }
        let out = &self.data[self.pos..self.pos + len];
        self.pos += len;
        Ok(out)
    }

    /// Like [`Reader::bytes`] with a 64-bit length from the file.
    pub(crate) fn bytes_u64(&mut self, len: u64, what: &str) -> Result<&'a [u8]> {
        match usize::try_from(len) {
            Ok(len) => self.bytes(len, what),
            Err(_) => Err(self.error(format!("{what}: size {len} is impossible"))),
        }
    }

    pub(crate) fn skip(&mut self, len: usize, what: &str) -> Result<()> {
        self.bytes(len, what).map(|_| ())
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.bytes(2, what)?;
        Ok(self.endian.u16([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.bytes(4, what)?;
        Ok(self.endian.u32([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        let b = self.bytes(8, what)?;
        Ok(self
            .endian
            .u64([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    /// A NUL-terminated string; returns the bytes without the NUL and moves past it.
    pub(crate) fn cstr(&mut self, what: &str) -> Result<&'a [u8]> {
        let rest = &self.data[self.pos..];
        match rest.iter().position(|&b| b == 0) {
            Some(n) => {
                self.pos += n + 1;
                Ok(&rest[..n])
            }
            None => Err(self.error(format!("unterminated {what} (no NUL before the end)"))),
        }
    }

    /// A NUL-terminated string as text (invalid UTF-8 replaced).
    pub(crate) fn cstring(&mut self, what: &str) -> Result<String> {
        self.cstr(what)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_byte_orders_and_reports_offsets() {
        let data = [1u8, 2, 3, 4, 5, 6, 7, 8, b'h', b'i', 0, 9];
        let mut le = Reader::new(&data, 100, Endian::Little);
        assert_eq!(le.u16("a").unwrap(), 0x0201);
        assert_eq!(le.u16("b").unwrap(), 0x0403);
        let mut be = Reader::new(&data, 100, Endian::Big);
        assert_eq!(be.u32("c").unwrap(), 0x0102_0304);
        assert_eq!(be.u32("d").unwrap(), 0x0506_0708);
        assert_eq!(be.cstr("s").unwrap(), b"hi");
        let err = be.u32("tail").unwrap_err();
        assert_eq!(err.location, crate::Location::Offset(111));
        assert!(err.cause.contains("tail"), "{}", err.cause);
        assert_eq!(Endian::Big.int_at(&[0xff, 0xfe], 0, 2, true), Some(-2));
        assert_eq!(
            Endian::Little.int_at(&[0xfe, 0xff], 0, 2, false),
            Some(0xfffe)
        );
        assert_eq!(Endian::Little.u64_at(&data, 5), None);
    }
}
