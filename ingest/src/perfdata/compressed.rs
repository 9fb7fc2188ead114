//! PERF_RECORD_COMPRESSED / COMPRESSED2 (`perf record -z`, formats.md §4.5): the payloads of
//! all compressed records form one zstd stream; a single streaming decoder is kept across
//! records because a frame (and a record inside it) may straddle two compressed records.
//! The output is appended to a buffer that sort keys point into like into the input, by
//! offset in the unpacked stream; the prefix no waiting key needs is dropped as rounds go.

use crate::{Error, Result};
use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};

pub struct Unpacker {
    decoder: Decoder<'static>,
    /// Decompressed record stream from offset `base` on.
    pub out: Vec<u8>,
    pub base: usize,
    chunk: Vec<u8>,
}

impl Unpacker {
    pub fn new() -> Result<Unpacker> {
        Ok(Unpacker {
            decoder: Decoder::new()
                .map_err(|e| Error::whole(format!("cannot create zstd decoder: {e}")))?,
            out: Vec::new(),
            base: 0,
            chunk: vec![0; 1 << 17],
        })
    }

    /// Feeds the zstd payload of one compressed record found at input offset `at`.
    pub fn feed(&mut self, payload: &[u8], at: u64) -> Result<()> {
        let mut input = InBuffer::around(payload);
        loop {
            let mut output = OutBuffer::around(&mut self.chunk[..]);
            self.decoder.run(&mut input, &mut output).map_err(|e| {
                Error::at(
                    at + input.pos as u64,
                    format!("zstd decompression of a compressed record failed: {e}"),
                )
            })?;
            let produced = output.pos();
            self.out.extend_from_slice(&self.chunk[..produced]);
            // Done when all input is consumed and the decoder had no more output to flush.
            if input.pos == payload.len() && produced < self.chunk.len() {
                return Ok(());
            }
        }
    }

    /// Nothing before unpacked offset `at` is needed any more.
    pub fn done_before(&mut self, at: usize) {
        let drop = at.saturating_sub(self.base).min(self.out.len());
        // As for the input stream: move the tail down only once the dead prefix is as large.
        if drop >= 1 << 20 && drop * 2 >= self.out.len() {
            self.out.drain(..drop);
            self.base += drop;
        }
    }
}
