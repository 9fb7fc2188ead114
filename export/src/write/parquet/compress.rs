//! zstd for a table's pages through one compression context, kept for the whole file.
//!
//! polars' page compressor (`polars_parquet::write::Compressor`) calls
//! `zstd::bulk::compress_to_buffer` per page, which allocates, initialises and frees a
//! zstd context each time. With the integer columns delta-packed the
//! pages are small and compress fast, so that set-up was most of zstd's share of the
//! `intervals` writer: `ZSTD_createCCtx` 1.7 % of an export's CPU in a profile, the
//! compression itself about as much. The bytes are those polars writes (the same zstd
//! level, the same call on a context made once), as are the page headers.

use polars::prelude::PolarsError;
use polars_parquet::parquet::compression::Compression;
use polars_parquet::parquet::page::{
    CompressedDataPage, CompressedDictPage, CompressedPage, DataPageHeader, Page,
};
use polars_parquet::parquet::CowBuffer;
use polars_parquet::write::FallibleStreamingIterator;

/// Compresses pages at one zstd level with a context made once.
pub(super) struct PageCompressor {
    zstd: zstd::bulk::Compressor<'static>,
}

impl PageCompressor {
    pub(super) fn new(level: i32) -> std::io::Result<PageCompressor> {
        Ok(PageCompressor {
            zstd: zstd::bulk::Compressor::new(level)?,
        })
    }

    /// `page`, compressed (a data page's header says V1: the whole buffer is compressed).
    pub(super) fn page(&mut self, page: Page) -> Result<CompressedPage, PolarsError> {
        Ok(match page {
            Page::Data(data) => {
                debug_assert!(matches!(data.header(), DataPageHeader::V1(_)));
                let raw = data.buffer();
                let compressed = self.zstd.compress(raw)?;
                let rows = data.num_rows().ok_or_else(|| {
                    PolarsError::ComputeError("a data page to write has no row count".into())
                })?;
                CompressedPage::Data(CompressedDataPage::new(
                    data.header().clone(),
                    CowBuffer::Owned(compressed),
                    Compression::Zstd,
                    raw.len(),
                    data.descriptor.clone(),
                    rows,
                ))
            }
            Page::Dict(dict) => {
                let compressed = self.zstd.compress(&dict.buffer)?;
                CompressedPage::Dict(CompressedDictPage::new(
                    CowBuffer::Owned(compressed),
                    Compression::Zstd,
                    dict.buffer.len(),
                    dict.num_values,
                    dict.is_sorted,
                ))
            }
        })
    }
}

/// A column's compressed pages, handed to the file writer one by one. Written here because
/// the streaming-iterator crate's `convert` lends items it borrows, and these are owned.
pub(super) struct Pages {
    pages: std::vec::IntoIter<CompressedPage>,
    current: Option<CompressedPage>,
}

impl Pages {
    pub(super) fn new(pages: Vec<CompressedPage>) -> Pages {
        Pages {
            pages: pages.into_iter(),
            current: None,
        }
    }
}

impl FallibleStreamingIterator for Pages {
    type Item = CompressedPage;
    type Error = PolarsError;

    fn advance(&mut self) -> Result<(), PolarsError> {
        self.current = self.pages.next();
        Ok(())
    }

    fn get(&self) -> Option<&CompressedPage> {
        self.current.as_ref()
    }
}
