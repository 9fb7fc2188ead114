//! trace.dat v7 compression (formats.md §1.5-1.6): whole-block sections and
//! chunked per-CPU data, codecs `none`, `zlib`, `zstd`.

use crate::error::{Error, Result};
use crate::ftrace::{Endian, Reader};
use crate::inflate::Budget;
use std::io::Read;
use std::sync::Arc;

/// Largest decompressed block we accept (kallsyms of big kernels is tens of MB);
/// a corrupt size must not make us allocate gigabytes.
const MAX_BLOCK: usize = 512 << 20;

/// The file's compression algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    None,
    Zlib,
    Zstd,
}

impl Codec {
    /// From the name in the v7 header (trace-cmd matches case-sensitively).
    pub fn from_name(name: &str, offset: u64) -> Result<Codec> {
        match name {
            "none" | "" => Ok(Codec::None),
            "zlib" => Ok(Codec::Zlib),
            "zstd" => Ok(Codec::Zstd),
            other => Err(Error::at(
                offset,
                format!("unsupported compression algorithm {other:?}"),
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Zlib => "zlib",
            Codec::Zstd => "zstd",
        }
    }

    /// Decompresses `data` (at file offset `offset`) into exactly `size` bytes.
    pub fn decompress(self, data: &[u8], size: usize, offset: u64) -> Result<Vec<u8>> {
        if size > MAX_BLOCK {
            return Err(Error::at(
                offset,
                format!("compressed block claims {size} bytes uncompressed (limit {MAX_BLOCK})"),
            ));
        }
        let out = match self {
            Codec::None => {
                return Err(Error::at(
                    offset,
                    "block flagged compressed in a file with compression \"none\"",
                ))
            }
            Codec::Zstd => zstd::bulk::decompress(data, size)
                .map_err(|e| Error::at(offset, format!("zstd: {e}")))?,
            Codec::Zlib => {
                let mut out = Vec::with_capacity(size);
                flate2::read::ZlibDecoder::new(data)
                    .take(size as u64 + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| Error::at(offset, format!("zlib: {e}")))?;
                out
            }
        };
        if out.len() != size {
            return Err(Error::at(
                offset,
                format!(
                    "{} block decompressed to {} bytes, header says {size}",
                    self.name(),
                    out.len()
                ),
            ));
        }
        Ok(out)
    }

    /// A compressed metadata block: `u32 compressed; u32 uncompressed; data`.
    pub fn block(self, payload: &[u8], offset: u64, endian: Endian) -> Result<Vec<u8>> {
        let mut r = Reader::new(payload, offset, endian);
        let csize = r.u32("compressed block size")? as usize;
        let usize_ = r.u32("uncompressed block size")? as usize;
        let at = r.offset();
        let data = r.bytes(csize, "compressed block")?;
        self.decompress(data, usize_, at)
    }
}

/// Walks the chunks of one compressed CPU block: `u32 count; count × {u32 csize; u32 usize; data}`.
pub(crate) struct Chunks<'a> {
    reader: Reader<'a>,
    left: u32,
    codec: Codec,
    /// One zstd context for all chunks of the CPU (creating one per chunk costs more than
    /// decompressing a small chunk).
    zstd: Option<zstd::bulk::Decompressor<'static>>,
    /// Shared by the CPUs of the file: every CPU holds a chunk in the merge, so a limit per
    /// chunk alone would let N CPUs hold N times it.
    budget: Arc<Budget>,
}

impl<'a> Chunks<'a> {
    /// `bytes` starts at the CPU block (file offset `offset`) and may run past its end.
    pub(crate) fn new(
        bytes: &'a [u8],
        offset: u64,
        endian: Endian,
        codec: Codec,
        budget: Arc<Budget>,
    ) -> Result<Chunks<'a>> {
        let mut reader = Reader::new(bytes, offset, endian);
        let left = reader.u32("chunk count")?;
        Ok(Chunks {
            reader,
            left,
            codec,
            zstd: None,
            budget,
        })
    }

    /// File offset just past the last chunk read (everything before it is consumed).
    pub(crate) fn consumed_to(&self) -> u64 {
        self.reader.offset()
    }

    /// Decompresses the next chunk into `out` (its buffer is reused) and returns the file
    /// offset of its compressed data.
    pub(crate) fn next_chunk(&mut self, out: &mut Vec<u8>) -> Option<Result<u64>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some((|| {
            let csize = self.reader.u32("chunk compressed size")? as usize;
            let usize_ = self.reader.u32("chunk uncompressed size")? as usize;
            let at = self.reader.offset();
            let data = self.reader.bytes(csize, "compressed chunk")?;
            // Charged at the declared size, before anything is allocated for it.
            self.budget.read(csize as u64);
            self.budget
                .inflate(usize_ as u64, at, "a compressed CPU data chunk")?;
            if self.codec != Codec::Zstd || usize_ > MAX_BLOCK {
                *out = self.codec.decompress(data, usize_, at)?;
                return Ok(at);
            }
            let zstd = match &mut self.zstd {
                Some(z) => z,
                None => self.zstd.insert(
                    zstd::bulk::Decompressor::new()
                        .map_err(|e| Error::at(at, format!("zstd: {e}")))?,
                ),
            };
            out.clear();
            out.reserve(usize_);
            // Writes into the spare capacity: a chunk larger than its header says fails.
            zstd.decompress_to_buffer(data, out)
                .map_err(|e| Error::at(at, format!("zstd: {e}")))?;
            if out.len() != usize_ {
                return Err(Error::at(
                    at,
                    format!(
                        "zstd block decompressed to {} bytes, header says {usize_}",
                        out.len()
                    ),
                ));
            }
            Ok(at)
        })())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_bad_sizes() {
        let raw: Vec<u8> = (0..10_000u32).map(|i| (i % 7) as u8).collect();
        let z = zstd::bulk::compress(&raw, 3).unwrap();
        assert_eq!(Codec::Zstd.decompress(&z, raw.len(), 0).unwrap(), raw);
        assert!(Codec::Zstd.decompress(&z, raw.len() - 1, 0).is_err());
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut enc, &raw).unwrap();
        let zl = enc.finish().unwrap();
        assert_eq!(Codec::Zlib.decompress(&zl, raw.len(), 0).unwrap(), raw);
        let err = Codec::Zlib.decompress(&zl, raw.len() + 5, 77).unwrap_err();
        assert_eq!(err.location, crate::Location::Offset(77));
        assert!(Codec::Zlib.decompress(&zl[..20], raw.len(), 0).is_err());
        assert!(Codec::Zstd.decompress(&z, usize::MAX, 0).is_err());
        assert!(Codec::from_name("lz4", 3).is_err());
    }

    /// Chunks share one zstd context and output buffer; a size mismatch is still an error.
    #[test]
    fn zstd_chunks_reuse_context_and_check_sizes() {
        let parts: Vec<Vec<u8>> = (0..3u8).map(|k| vec![k; 4096 * (k as usize + 1)]).collect();
        let mut block = 3u32.to_le_bytes().to_vec();
        for (i, p) in parts.iter().enumerate() {
            let z = zstd::bulk::compress(p, 1).unwrap();
            block.extend_from_slice(&(z.len() as u32).to_le_bytes());
            // The last chunk claims one byte too many.
            let claimed = p.len() as u32 + (i == 2) as u32;
            block.extend_from_slice(&claimed.to_le_bytes());
            block.extend_from_slice(&z);
        }
        let mut chunks = Chunks::new(
            &block,
            1000,
            Endian::Little,
            Codec::Zstd,
            Default::default(),
        )
        .unwrap();
        let mut out = Vec::new();
        for p in &parts[..2] {
            chunks.next_chunk(&mut out).unwrap().unwrap();
            assert_eq!(&out, p);
        }
        assert!(chunks.next_chunk(&mut out).unwrap().is_err());
        assert!(chunks.next_chunk(&mut out).is_none());
    }

    /// The 512 MiB a chunk may claim is per chunk; the CPUs of a file together share one
    /// inflation budget, so six CPUs whose first chunks each hold 512 MiB of zeros (16 KiB
    /// compressed) stop at the first, before its output is allocated.
    #[test]
    fn chunks_of_all_cpus_draw_on_one_inflation_budget() {
        let zeros = zstd::stream::encode_all(std::io::repeat(0).take(512 << 20), 1).unwrap();
        let mut block = 1u32.to_le_bytes().to_vec();
        block.extend_from_slice(&(zeros.len() as u32).to_le_bytes());
        block.extend_from_slice(&(512u32 << 20).to_le_bytes());
        block.extend_from_slice(&zeros);
        let budget = Arc::new(Budget::new(None));
        let mut out = Vec::new();
        let err = Chunks::new(&block, 64, Endian::Little, Codec::Zstd, budget.clone())
            .unwrap()
            .next_chunk(&mut out)
            .unwrap()
            .unwrap_err();
        assert!(
            err.cause
                .contains("decompression bomb? a compressed CPU data chunk"),
            "{err}"
        );
        assert_eq!(err.location, crate::Location::Offset(64 + 12));
        assert_eq!(out.capacity(), 0);
        // An honest chunk of another CPU, after it: a chunk's own size is charged, not the
        // claimed 512 MiB again.
        let honest = Budget::new(None);
        let page = vec![7u8; 40960];
        let z = zstd::bulk::compress(&page, 1).unwrap();
        let mut block = 1u32.to_le_bytes().to_vec();
        block.extend_from_slice(&(z.len() as u32).to_le_bytes());
        block.extend_from_slice(&(page.len() as u32).to_le_bytes());
        block.extend_from_slice(&z);
        Chunks::new(&block, 0, Endian::Little, Codec::Zstd, Arc::new(honest))
            .unwrap()
            .next_chunk(&mut out)
            .unwrap()
            .unwrap();
        assert_eq!(out, page);
    }
}
