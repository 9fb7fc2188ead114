//! The record stream (formats.md §4.5): `perf_event_header {u32 type; u16 misc; u16 size}`
//! framing, the two record types whose payload runs past `size` (HEADER_TRACING_DATA,
//! AUXTRACE), and the record type numbers.

use super::bytes::{u16_at, u32_at, u64_at, Endian};
use crate::{Error, Result};

pub(super) const LOST: u32 = 2;
pub(super) const COMM: u32 = 3;
pub(super) const EXIT: u32 = 4;
pub(super) const FORK: u32 = 7;
pub(super) const SAMPLE: u32 = 9;
pub(super) const LOST_SAMPLES: u32 = 13;

pub(super) const HEADER_ATTR: u32 = 64;
pub(super) const HEADER_TRACING_DATA: u32 = 66;
pub(super) const FINISHED_ROUND: u32 = 68;
pub(super) const ID_INDEX: u32 = 69;
pub(super) const AUXTRACE: u32 = 71;
pub(super) const EVENT_UPDATE: u32 = 78;
pub(super) const HEADER_FEATURE: u32 = 80;
pub(super) const COMPRESSED: u32 = 81;
pub(super) const COMPRESSED2: u32 = 83;

/// One framed record: `body` is what follows the 8-byte header up to `size`; `extra` is the
/// out-of-band payload of HEADER_TRACING_DATA / AUXTRACE (empty otherwise).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    pub kind: u32,
    pub body: &'a [u8],
    pub extra: &'a [u8],
    /// Bytes the record occupies in the stream (header + body + extra).
    pub len: usize,
}

/// Frames the record at `pos` of `stream`; `base` is the input offset of `stream[0]` (for
/// errors). `Ok(None)` when fewer than 8 bytes remain (the end, or a torn tail that the
/// caller reports).
pub(super) fn frame(
    endian: Endian,
    stream: &[u8],
    pos: usize,
    base: u64,
) -> Result<Option<Record<'_>>> {
    let Some(kind) = u32_at(endian, stream, pos) else {
        return Ok(None);
    };
    // The header's `misc` (at 4) says nothing this reader needs.
    let Some(size) = u16_at(endian, stream, pos + 6) else {
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
        body,
        extra: &stream[end..extra_end],
        len: extra_end - pos,
    }))
}
