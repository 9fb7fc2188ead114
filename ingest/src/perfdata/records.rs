//! The record stream (formats.md §4.5): `perf_event_header {u32 type; u16 misc; u16 size}`
//! framing, the two record types whose payload runs past `size` (HEADER_TRACING_DATA,
//! AUXTRACE), and the record type numbers.

use super::bytes::{u16_at, u32_at, u64_at, Endian};
use crate::{Error, Result};

pub const MMAP: u32 = 1;
pub const LOST: u32 = 2;
pub const COMM: u32 = 3;
pub const EXIT: u32 = 4;
pub const FORK: u32 = 7;
pub const SAMPLE: u32 = 9;
pub const LOST_SAMPLES: u32 = 13;
/// Last kernel record type this reader knows; higher numbers below 64 are skipped by size.
pub const KERNEL_MAX: u32 = 63;

pub const HEADER_ATTR: u32 = 64;
pub const HEADER_EVENT_TYPE: u32 = 65;
pub const HEADER_TRACING_DATA: u32 = 66;
pub const HEADER_BUILD_ID: u32 = 67;
pub const FINISHED_ROUND: u32 = 68;
pub const ID_INDEX: u32 = 69;
pub const AUXTRACE: u32 = 71;
pub const THREAD_MAP: u32 = 73;
pub const EVENT_UPDATE: u32 = 78;
pub const HEADER_FEATURE: u32 = 80;
pub const COMPRESSED: u32 = 81;
pub const FINISHED_INIT: u32 = 82;
pub const COMPRESSED2: u32 = 83;

/// One framed record: `body` is what follows the 8-byte header up to `size`; `extra` is the
/// out-of-band payload of HEADER_TRACING_DATA / AUXTRACE (empty otherwise).
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    pub kind: u32,
    pub misc: u16,
    pub body: &'a [u8],
    pub extra: &'a [u8],
    /// Bytes the record occupies in the stream (header + body + extra).
    pub len: usize,
}

/// Frames the record at `pos` of `stream`; `base` is the input offset of `stream[0]` (for
/// errors). `Ok(None)` when fewer than 8 bytes remain (the end, or a torn tail that the
/// caller reports).
pub fn frame(endian: Endian, stream: &[u8], pos: usize, base: u64) -> Result<Option<Record<'_>>> {
    let Some(kind) = u32_at(endian, stream, pos) else {
        return Ok(None);
    };
    let (Some(misc), Some(size)) = (
        u16_at(endian, stream, pos + 4),
        u16_at(endian, stream, pos + 6),
    ) else {
        return Ok(None);
    };
    let at = base + pos as u64;
    let size = size as usize;
    if size < 8 {
        return Err(Error::at(
            at,
            format!("record type {kind} has size {size}, smaller than its 8-byte header"),
        ));
    }
    let end = pos + size;
    if end > stream.len() {
        return Err(Error::at(
            at,
            format!(
                "record type {kind} of {size} bytes runs past the end of the data ({} bytes left)",
                stream.len() - pos
            ),
        ));
    }
    let body = &stream[pos + 8..end];
    let extra_len = match kind {
        HEADER_TRACING_DATA => u32_at(endian, body, 0).map(|v| v as u64),
        AUXTRACE => u64_at(endian, body, 0),
        _ => Some(0),
    }
    .ok_or_else(|| {
        Error::at(
            at,
            format!("record type {kind} is too short for its size field"),
        )
    })?;
    let extra_end = (end as u64)
        .checked_add(extra_len)
        .filter(|&e| e <= stream.len() as u64)
        .ok_or_else(|| {
            Error::at(
                at,
                format!(
                    "record type {kind} announces {extra_len} bytes of payload past its end, only {} left",
                    stream.len() - end
                ),
            )
        })? as usize;
    Ok(Some(Record {
        kind,
        misc,
        body,
        extra: &stream[end..extra_end],
        len: extra_end - pos,
    }))
}
