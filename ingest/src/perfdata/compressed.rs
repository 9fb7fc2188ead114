//! PERF_RECORD_COMPRESSED / COMPRESSED2 (`perf record -z`, formats.md §4.5): the payloads of
//! all compressed records form one zstd stream; a single streaming decoder is kept across
//! records because a frame (and a record inside it) may straddle two compressed records.
//! The output is appended to a buffer that sort keys point into like into the input, by
//! offset in the unpacked stream; the prefix no waiting key needs is dropped as rounds go.

use crate::inflate::Budget;
use crate::{Error, Result};
use zstd::stream::raw::{Decoder, InBuffer, Operation, OutBuffer};

pub(crate) struct Unpacker {
    decoder: Decoder<'static>,
    /// Decompressed record stream from offset `base` on.
    pub out: Vec<u8>,
    pub base: usize,
    chunk: Vec<u8>,
    /// What the zstd stream may inflate to: grows with the compressed payloads fed.
    budget: Budget,
}

impl Unpacker {
    /// `max_inflate`: the run's fixed limit on what the stream may inflate to (`None`: the
    /// default rule).
    pub(crate) fn new(max_inflate: Option<u64>) -> Result<Unpacker> {
        Ok(Unpacker {
            decoder: Decoder::new()
                .map_err(|e| Error::whole(format!("cannot create zstd decoder: {e}")))?,
            out: Vec::new(),
            base: 0,
            chunk: vec![0; 1 << 17],
            budget: Budget::new(max_inflate),
        })
    }

    /// Feeds the zstd payload of one compressed record found at input offset `at`.
    pub(crate) fn feed(&mut self, payload: &[u8], at: u64) -> Result<()> {
        let mut input = InBuffer::around(payload);
        self.budget.read(payload.len() as u64);
        loop {
            let mut output = OutBuffer::around(&mut self.chunk[..]);
            self.decoder.run(&mut input, &mut output).map_err(|e| {
                Error::at(
                    at + input.pos as u64,
                    format!("zstd decompression of a compressed record failed: {e}"),
                )
            })?;
            let produced = output.pos();
            self.budget
                .inflate(produced as u64, at, "the COMPRESSED records' zstd stream")?;
            self.out.extend_from_slice(&self.chunk[..produced]);
            // Done when all input is consumed and the decoder had no more output to flush.
            if input.pos == payload.len() && produced < self.chunk.len() {
                return Ok(());
            }
        }
    }

    /// Nothing before unpacked offset `at` is needed any more.
    pub(crate) fn done_before(&mut self, at: usize) {
        let drop = at.saturating_sub(self.base).min(self.out.len());
        // As for the input stream: move the tail down only once the dead prefix is as large.
        if drop >= 1 << 20 && drop * 2 >= self.out.len() {
            self.out.drain(..drop);
            self.base += drop;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn zstd_of_zeros(len: u64) -> Vec<u8> {
        zstd::stream::encode_all(std::io::repeat(0).take(len), 1).unwrap()
    }

    /// One small COMPRESSED record of 1 GiB of zeros: the output stops at the budget (64 MiB
    /// and 64 times the record) with an error at the record, not after a gigabyte.
    #[test]
    fn a_compressed_record_of_a_gigabyte_stops_at_the_budget() {
        let payload = zstd_of_zeros(1 << 30);
        assert!(payload.len() < 64 << 10, "{}", payload.len());
        let mut u = Unpacker::new(None).unwrap();
        let err = u.feed(&payload, 4096).unwrap_err();
        assert!(
            err.cause
                .contains("decompression bomb? the COMPRESSED records"),
            "{err}"
        );
        assert!(err.cause.contains("--max-inflate"), "{err}");
        let allowance = crate::inflate::FLOOR + crate::inflate::RATIO * payload.len() as u64;
        assert!(u.out.len() as u64 <= allowance, "{}", u.out.len());
    }

    /// An honest stream (a few MiB) inflates whole, across records.
    #[test]
    fn an_honest_stream_inflates_across_records() {
        let raw: Vec<u8> = (0..3u32 << 20)
            .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
            .collect();
        let z = zstd::bulk::compress(&raw, 3).unwrap();
        let mut u = Unpacker::new(None).unwrap();
        let (a, b) = z.split_at(z.len() / 2);
        u.feed(a, 0).unwrap();
        u.feed(b, a.len() as u64).unwrap();
        assert_eq!(u.out, raw);
    }
}
