//! Getting the bytes of an input: a memory map of the file, or, for inputs that
//! are compressed as a whole (`.xz`, `.gz`, `.zst`, detected by content, not by
//! name) and for standard input (`-`), a buffer in memory.

use crate::error::{Error, Result};
use memmap2::Mmap;
use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::Path;

/// The bytes of one input.
pub enum InputBytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Deref for InputBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(m) => m,
            InputBytes::Owned(v) => v,
        }
    }
}

/// Whole-file compression wrappers that people mail traces in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Xz,
    Gzip,
    Zstd,
}

impl Wrapper {
    pub fn detect(bytes: &[u8]) -> Option<Wrapper> {
        if bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Some(Wrapper::Xz)
        } else if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Wrapper::Gzip)
        } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Wrapper::Zstd)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Wrapper::Xz => "xz",
            Wrapper::Gzip => "gzip",
            Wrapper::Zstd => "zstd",
        }
    }
}

/// Loads `path` (`-` = standard input), undoing a whole-file compression wrapper.
pub fn load(path: &Path) -> Result<InputBytes> {
    let raw = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| Error::whole(format!("cannot read standard input: {e}")))?;
        InputBytes::Owned(buf)
    } else {
        let file = File::open(path)
            .map_err(|e| Error::whole(format!("cannot open: {e}")).in_file(path))?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        if len == 0 {
            // mmap of an empty file fails on Linux; an empty buffer gives the usual "empty input" error.
            InputBytes::Owned(Vec::new())
        } else {
            // SAFETY: the map is read-only; a trace file truncated by another process while we
            // read it would fault, which is the accepted risk of every mmap-based reader.
            let map = unsafe { Mmap::map(&file) }
                .map_err(|e| Error::whole(format!("cannot map: {e}")).in_file(path))?;
            InputBytes::Mapped(map)
        }
    };
    unwrap_compression(raw).map_err(|e| e.in_file(path))
}

/// Decompresses `bytes` if they carry a whole-file compression wrapper (possibly nested once).
pub fn unwrap_compression(bytes: InputBytes) -> Result<InputBytes> {
    let Some(wrapper) = Wrapper::detect(&bytes) else {
        return Ok(bytes);
    };
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(4));
    let res = match wrapper {
        Wrapper::Xz => xz2::read::XzDecoder::new_multi_decoder(&bytes[..]).read_to_end(&mut out),
        Wrapper::Gzip => flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out),
        Wrapper::Zstd => {
            zstd::stream::read::Decoder::new(&bytes[..]).and_then(|mut d| d.read_to_end(&mut out))
        }
    };
    res.map_err(|e| {
        Error::at(
            out.len() as u64,
            format!(
                "{} decompression failed after {} output bytes: {e}",
                wrapper.name(),
                out.len()
            ),
        )
    })?;
    Ok(InputBytes::Owned(out))
}
