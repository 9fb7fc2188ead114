//! The perf.data file header (formats.md §4.1): magic and byte order, file mode
//! (104-byte header with attrs/data sections and a feature bitmap) or pipe mode
//! (16-byte header, records only, §4.10).

use super::bytes::{u32_at, u64_at, Endian};
use crate::{Error, Result};

pub(super) const FILE_HEADER_SIZE: u64 = 104;
pub(super) const PIPE_HEADER_SIZE: u64 = 16;

/// `{u64 offset, u64 size}` pointing into the file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Section {
    pub offset: u64,
    pub size: u64,
}

impl Section {
    /// The section's bytes, or an error naming `what` when it lies outside the input.
    pub(crate) fn slice<'a>(&self, bytes: &'a [u8], what: &str, at: u64) -> Result<&'a [u8]> {
        let end = self.offset.checked_add(self.size);
        match end {
            Some(end) if end <= bytes.len() as u64 => {
                Ok(&bytes[self.offset as usize..end as usize])
            }
            _ => Err(Error::at(
                at,
                format!(
                    "{what} section (offset {}, size {}) runs past the end of the input ({} bytes)",
                    self.offset,
                    self.size,
                    bytes.len()
                ),
            )),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    File,
    Pipe,
}

#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub endian: Endian,
    pub mode: Mode,
    /// Bytes of one attrs-section entry (`perf_event_attr` + 16-byte ids section); file mode only.
    pub attr_size: u64,
    pub attrs: Section,
    pub data: Section,
    /// Set feature bits (HEADER_* numbers), ascending; file mode only.
    pub features: Vec<u32>,
}

pub(super) fn parse(bytes: &[u8]) -> Result<Header> {
    let endian = match bytes.get(..8) {
        Some(b"PERFILE2") => Endian::Little,
        Some(b"2ELIFREP") => Endian::Big,
        Some(b"PERFFILE") => {
            return Err(Error::at(
                0,
                "perf.data version 1 (PERFFILE) is not supported",
            ))
        }
        _ => return Err(Error::at(0, "not a perf.data file: bad magic")),
    };
    let size = u64_at(endian, bytes, 8)
        .ok_or_else(|| Error::at(8, "truncated perf.data header: no header size"))?;
    if size == PIPE_HEADER_SIZE {
        return Ok(Header {
            endian,
            mode: Mode::Pipe,
            attr_size: 0,
            attrs: Section::default(),
            data: Section {
                offset: PIPE_HEADER_SIZE,
                size: bytes.len() as u64 - PIPE_HEADER_SIZE,
            },
            features: Vec::new(),
        });
    }
    if size != FILE_HEADER_SIZE {
        return Err(Error::at(
            8,
            format!("perf.data header size {size}: expected 104 (file mode) or 16 (pipe mode)"),
        ));
    }
    if (bytes.len() as u64) < FILE_HEADER_SIZE {
        return Err(Error::at(
            bytes.len() as u64,
            format!("truncated perf.data header: {} of 104 bytes", bytes.len()),
        ));
    }
    let u64f = |off: usize| u64_at(endian, bytes, off).unwrap_or(0);
    let section = |off: usize| Section {
        offset: u64f(off),
        size: u64f(off + 8),
    };
    Ok(Header {
        endian,
        mode: Mode::File,
        attr_size: u64f(16),
        attrs: section(24),
        data: section(40),
        features: feature_bits(endian, &bytes[72..104]),
    })
}

/// Decodes the 256-bit `adds_features` bitmap. Little-endian producers write 4 LE u64 words;
/// big-endian ones write native `unsigned long` words, u64 or (32-bit) u32: like perf, take
/// the u64 reading unless HOSTNAME (bit 3, always written) is only set in the u32 reading.
fn feature_bits(endian: Endian, raw: &[u8]) -> Vec<u32> {
    let from_words = |width: usize| -> Vec<u32> {
        let mut bits = Vec::new();
        for (w, chunk) in raw.chunks(width).enumerate() {
            let word = if width == 8 {
                u64_at(endian, chunk, 0).unwrap_or(0)
            } else {
                u32_at(endian, chunk, 0).unwrap_or(0) as u64
            };
            for b in 0..(width as u32 * 8) {
                if word >> b & 1 == 1 {
                    bits.push(w as u32 * width as u32 * 8 + b);
                }
            }
        }
        bits
    };
    let wide = from_words(8);
    if endian == Endian::Big && !wide.contains(&3) {
        let narrow = from_words(4);
        if narrow.contains(&3) {
            return narrow;
        }
    }
    wide
}
