//! What the v6 and v7 readers find in a file: metadata, options and where each
//! CPU's ring-buffer pages of the top instance are.

use super::compress::Codec;
use super::options::Options;
use crate::event::Comm;
use crate::ftrace::{Endian, EventFormat, HeaderPage};

/// Where one CPU's pages are.
#[derive(Clone, Debug)]
pub enum CpuSource<'a> {
    /// Raw pages (v6, v7 uncompressed): `bytes` is the block at file offset `offset`.
    Raw { bytes: &'a [u8], offset: u64 },
    /// v7 chunk-compressed block: `bytes` runs from the block start to the section end.
    Chunked {
        bytes: &'a [u8],
        offset: u64,
        codec: Codec,
    },
}

/// One CPU with data.
#[derive(Clone, Debug)]
pub struct CpuData<'a> {
    pub cpu: u32,
    pub source: CpuSource<'a>,
}

/// The parsed file minus the event data itself.
#[derive(Clone, Debug)]
pub struct Layout<'a> {
    pub version: u32,
    pub endian: Endian,
    /// Long size of the recording user space (header byte).
    pub user_long_size: u8,
    /// Page size of the top instance (v7: from its BUFFER option).
    pub page_size: usize,
    pub codec: Codec,
    pub header_page: HeaderPage,
    pub formats: Vec<EventFormat>,
    pub cmdlines: Vec<(i32, Comm)>,
    pub options: Options,
    /// CPUs listed by the file (v6: slots, including empty ones).
    pub cpus_in_file: u32,
    pub cpus: Vec<CpuData<'a>>,
}
