//! Which reader a trace needs, told from its first bytes (never from the file name).
//!
//! Apart from [`crate::meta`] because it asks a reader's own test ([`crate::perfetto::wire`])
//! while the readers use `meta`'s types: here, above both, no module imports the other back.

use crate::error::{Error, Result};
use crate::meta::Format;

impl Format {
    pub fn detect(bytes: &[u8]) -> Result<Format> {
        if bytes.is_empty() {
            return Err(Error::whole("empty input: no trace data"));
        }
        if bytes.starts_with(&[0x17, 0x08, 0x44]) {
            return Ok(Format::TraceDat);
        }
        if bytes.starts_with(b"PERFILE2") || bytes.starts_with(b"2ELIFREP") {
            return Ok(Format::PerfData);
        }
        // Too short to tell, but the start of a binary format: say so, not "not a text line".
        if bytes.len() < 8 {
            for (magic, name) in [
                (&b"PERFILE2"[..], "perf.data"),
                (b"2ELIFREP", "perf.data"),
                (b"\x17\x08Dtracing", "trace.dat"),
            ] {
                if magic.starts_with(bytes) {
                    return Err(Error::whole(format!(
                        "only {} bytes, the start of a {name}: the file is cut short",
                        bytes.len()
                    )));
                }
            }
        }
        // tar: "ustar" at offset 257 of the first header; read as a schedviz capture, which
        // says what the archive lacks when it is not one.
        if bytes.get(257..262) == Some(b"ustar") {
            return Ok(Format::SchedViz);
        }
        if bytes.starts_with(b"PERFFILE") {
            return Err(Error::at(
                0,
                "perf.data version 1 (PERFFILE, 2009-2010) is not supported",
            ));
        }
        // A Perfetto trace starts with a well-formed TracePacket (key 0x0a, a length that
        // fits, valid fields); checked before the text test because a trace whose first
        // packets hold long strings can look like text.
        if bytes[0] == 0x0a && crate::perfetto::wire::looks_like_trace(bytes) {
            return Ok(Format::Perfetto);
        }
        let head = &bytes[..bytes.len().min(4096)];
        let texty = head
            .iter()
            .filter(|&&b| b == b'\n' || b == b'\t' || (0x20..0x7f).contains(&b))
            .count();
        if texty * 10 >= head.len() * 9 {
            return Ok(Format::Text);
        }
        // Not a well-formed first packet, but it starts like one: the Perfetto reader
        // reports the framing error with its offset.
        if bytes[0] == 0x0a {
            return Ok(Format::Perfetto);
        }
        Err(Error::at(
            0,
            format!(
                "unknown format: starts with {:02x?}; expected trace.dat, perf.data, Perfetto protobuf or trace text",
                &bytes[..bytes.len().min(8)]
            ),
        ))
    }
}
