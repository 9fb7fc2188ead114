//! Protobuf wire-level walking: splitting a `Trace` into its `TracePacket`s with
//! their byte offsets (so that errors can point at the bad packet), and checking
//! that bytes look like a Perfetto trace at all (formats.md §6.1-6.2).
//!
//! prost decodes one message from a complete buffer; it does not say where in a
//! stream of packets it failed, so the framing is walked here by hand (a varint
//! key, a varint length) and prost gets one packet at a time.

use crate::error::{Error, Result};

/// Wire types of the protobuf encoding.
const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;
const FIXED32: u8 = 5;

/// `Trace.packet` is field 1, length-delimited: key byte 0x0a.
const PACKET_KEY: u64 = (1 << 3) | LEN as u64;

/// Reads a varint at `pos`; `None` if it runs past the end or over 10 bytes.
pub fn varint(bytes: &[u8], pos: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for i in 0..10 {
        let b = *bytes.get(pos + i)?;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, pos + i + 1));
        }
    }
    None
}

/// One field of a message: number, wire type, and where its payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldAt {
    pub number: u64,
    pub wire_type: u8,
    /// Offset of the key inside the walked buffer.
    pub key_at: usize,
    /// For varints the value; for fixed and length-delimited fields the payload range.
    pub value: u64,
    pub payload: (usize, usize),
}

/// Reads the field starting at `pos` of `bytes`, or says why it cannot.
pub fn field_at(bytes: &[u8], pos: usize) -> std::result::Result<FieldAt, &'static str> {
    let (key, after_key) = varint(bytes, pos).ok_or("truncated or over-long field key")?;
    let number = key >> 3;
    let wire_type = (key & 7) as u8;
    if number == 0 || number > (1 << 29) - 1 {
        return Err("invalid field number");
    }
    let (value, payload) = match wire_type {
        VARINT => {
            let (v, end) = varint(bytes, after_key).ok_or("truncated varint")?;
            (v, (after_key, end))
        }
        FIXED64 | FIXED32 => {
            let n = if wire_type == FIXED64 { 8 } else { 4 };
            let end = after_key.checked_add(n).filter(|&e| e <= bytes.len());
            (0, (after_key, end.ok_or("truncated fixed-size field")?))
        }
        LEN => {
            let (len, start) = varint(bytes, after_key).ok_or("truncated length")?;
            let end = usize::try_from(len)
                .ok()
                .and_then(|l| start.checked_add(l))
                .filter(|&e| e <= bytes.len())
                .ok_or("length runs past the end of the data")?;
            (len, (start, end))
        }
        3 | 4 => return Err("deprecated group wire type (3/4) is not used by Perfetto"),
        _ => return Err("invalid wire type (6 or 7)"),
    };
    Ok(FieldAt {
        number,
        wire_type,
        key_at: pos,
        value,
        payload,
    })
}

/// What a walk over a `Trace` found besides packets.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
    /// Top-level fields other than `packet` (skipped).
    pub foreign_fields: u64,
    /// Offset of a last packet cut short by the end of the data (a killed recording).
    pub truncated_tail: Option<u64>,
}

/// Calls `each(offset, packet_bytes)` for every `TracePacket` of a `Trace` buffer.
/// `base` is added to offsets (the position of `bytes` in the input).
///
/// A last packet whose length runs past the end is reported in [`Framing`] when at
/// least one packet came before it (recordings killed mid-write end like that);
/// any other framing damage is an error at its offset.
pub fn for_each_packet(
    bytes: &[u8],
    base: u64,
    each: &mut dyn FnMut(u64, &[u8]) -> Result<()>,
) -> Result<Framing> {
    let mut framing = Framing::default();
    let mut pos = 0;
    let mut packets = 0u64;
    while pos < bytes.len() {
        let field = match field_at(bytes, pos) {
            Ok(f) => f,
            Err(cause) => {
                let at = base + pos as u64;
                let key = varint(bytes, pos).map(|(k, _)| k);
                if packets > 0 && key == Some(PACKET_KEY) {
                    framing.truncated_tail = Some(at);
                    return Ok(framing);
                }
                return Err(Error::at(
                    at,
                    format!(
                        "Perfetto trace: bad TracePacket framing after {packets} packets: {cause}"
                    ),
                ));
            }
        };
        if field.number == 1 && field.wire_type == LEN {
            let (start, end) = field.payload;
            each(base + pos as u64, &bytes[start..end])?;
            packets += 1;
        } else if packets == 0 {
            // A Trace starts with a packet; anything else is not a Perfetto trace.
            return Err(Error::at(
                base + pos as u64,
                format!(
                    "not a Perfetto trace: top-level field {} (wire type {}) where TracePacket (field 1) was expected",
                    field.number, field.wire_type
                ),
            ));
        } else {
            framing.foreign_fields += 1;
        }
        pos = field.payload.1;
    }
    Ok(framing)
}

/// True if every field of `message` parses (keys, lengths) up to its end exactly.
pub fn is_well_formed(message: &[u8]) -> bool {
    let mut pos = 0;
    while pos < message.len() {
        match field_at(message, pos) {
            Ok(f) => pos = f.payload.1,
            Err(_) => return false,
        }
    }
    true
}

/// Content sniffing for [`crate::Format::detect`]: the input starts with a packet
/// (key 0x0a) whose length fits and whose content is a well-formed message.
/// A packet cut by the end of a short input counts if its start is well-formed.
pub fn looks_like_trace(bytes: &[u8]) -> bool {
    match field_at(bytes, 0) {
        Ok(f) if f.number == 1 && f.wire_type == LEN && f.value > 0 => {
            is_well_formed(&bytes[f.payload.0..f.payload.1])
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints() {
        assert_eq!(varint(&[0x96, 0x01], 0), Some((150, 2)));
        assert_eq!(varint(&[0x80], 0), None);
        assert_eq!(varint(&[0xff; 11], 0), None);
    }

    #[test]
    fn packets_and_truncated_tail() {
        // Two packets (one empty-ish field each), then a third cut short.
        let bytes = [0x0a, 0x02, 0x40, 0x07, 0x0a, 0x00, 0x0a, 0x05, 0x40];
        let mut seen = Vec::new();
        let framing = for_each_packet(&bytes, 100, &mut |at, p| {
            seen.push((at, p.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![(100, vec![0x40, 0x07]), (104, vec![])]);
        assert_eq!(framing.truncated_tail, Some(106));
    }

    #[test]
    fn garbage_is_an_error_with_offset() {
        let err = for_each_packet(&[0x0a, 0x7f, 1, 2], 0, &mut |_, _| Ok(())).unwrap_err();
        assert_eq!(err.location, crate::Location::Offset(0));
        let err = for_each_packet(&[0x0a, 0x00, 0x0f], 0, &mut |_, _| Ok(())).unwrap_err();
        assert_eq!(err.location, crate::Location::Offset(2));
        assert!(err.cause.contains("wire type"), "{}", err.cause);
    }

    #[test]
    fn sniffing() {
        assert!(looks_like_trace(&[0x0a, 0x02, 0x40, 0x07]));
        assert!(!looks_like_trace(&[0x0a, 0x02, 0x0f, 0x07]));
        assert!(!looks_like_trace(b"\n# tracer: nop\n"));
        let report = b"\n\ncpus=4\n    sleep-1234  [001] 12.345678: sched_switch: prev_comm=sleep";
        assert!(!looks_like_trace(report));
        assert_eq!(crate::Format::detect(report).unwrap(), crate::Format::Text);
        // A packet of printable bytes (a long string field) is still Perfetto.
        let mut texty = vec![0x0a, 62, 0x12, 60];
        texty.extend([b'a'; 60]);
        assert_eq!(
            crate::Format::detect(&texty).unwrap(),
            crate::Format::Perfetto
        );
    }
}
