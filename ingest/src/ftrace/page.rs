//! Kernel ring-buffer page ("sub-buffer") decoder (formats.md §2): page header,
//! 4-byte event headers, time extends, absolute timestamps, padding and the
//! missed-events flags of the commit word.

use super::endian::Endian;
use super::format::HeaderPage;
use crate::error::{Error, Result};

/// `commit` bit 31: events were lost between the previous page and this one.
const RB_MISSED_EVENTS: u64 = 1 << 31;
/// `commit` bit 30: the number of lost events is stored after the data.
const RB_MISSED_STORED: u64 = 1 << 30;
/// `commit` bits holding the number of data bytes.
const COMMIT_LEN_MASK: u64 = 0x07ff_ffff;

/// How far (in raw clock units, ns for the usual clocks) the last record of a page may pass
/// the timestamp of the CPU's next page: events of one CPU are written in time order, so a
/// real page never passes it by much (nested writes can stamp a little out of order); the
/// deltas of a random payload, up to 2^27 each, pass it by far.
pub(crate) const NEXT_PAGE_SLACK_NS: u64 = 10_000_000;

/// Records with event ids the trace has no format for that make a page suspect (when they are
/// most of it). A few are honest: a capture that saved the formats of some events only (a
/// schedviz folder: the sched ones) still has the odd `print` among them.
pub(crate) const UNKNOWN_IDS_SUSPECT: u64 = 8;

const TYPE_PADDING: u32 = 29;
const TYPE_TIME_EXTEND: u32 = 30;
const TYPE_TIME_STAMP: u32 = 31;

/// One item of a page, in page order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PageItem<'a> {
    /// An event record (`payload` starts at `common_type`; may carry alignment padding).
    Record { ts: u64, payload: &'a [u8] },
    /// Events were dropped before this page; `count` when the kernel stored it.
    Lost { ts: u64, count: Option<u64> },
}

/// Decodes pages of one byte order and page-header layout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PageDecoder {
    pub endian: Endian,
    pub header: HeaderPage,
}

impl PageDecoder {
    pub(crate) fn new(endian: Endian, header: HeaderPage) -> PageDecoder {
        PageDecoder { endian, header }
    }

    /// Checks that the records of a page make sense as ring-buffer data before any is used: a
    /// page whose header is intact but whose payload is not (overwritten, random bytes) frames
    /// into records of nonsense that would pass one by one. It fails, naming the page's data
    /// (`file_offset` is where the page starts), when the records do not frame (as
    /// [`PageDecoder::decode_page`] would fail), when their time runs past `next_ts` (the
    /// timestamp of the CPU's next page, when known) by more than [`NEXT_PAGE_SLACK_NS`], or when
    /// most of their event ids, at least [`UNKNOWN_IDS_SUSPECT`], are not among the trace's
    /// formats (`known`).
    pub(crate) fn check_page(
        &self,
        page: &[u8],
        file_offset: u64,
        next_ts: Option<u64>,
        known: impl Fn(u16) -> bool,
    ) -> Result<()> {
        let (mut records, mut unknown, mut last_ts) = (0u64, 0u64, None);
        let at = file_offset + self.header.data_offset as u64;
        self.decode_page(page, file_offset, &mut |item| {
            if let PageItem::Record { ts, payload } = item {
                records += 1;
                last_ts = Some(ts);
                let id = payload.first_chunk::<2>().map(|&b| self.endian.u16(b));
                unknown += u64::from(!id.is_some_and(&known));
            }
        })
        // A record that does not frame condemns the records before it too: the whole data is
        // blamed (a bad header word keeps its own offset).
        .map_err(|e| match e.location {
            crate::Location::Offset(o) if o > at => Error::at(at, e.cause),
            _ => e,
        })?;
        if let (Some(last), Some(next)) = (last_ts, next_ts) {
            if last > next.saturating_add(NEXT_PAGE_SLACK_NS) {
                return Err(Error::at(
                    at,
                    format!(
                        "corrupt page: its {records} records run to timestamp {last}, past the next \
                         page's {next}"
                    ),
                ));
            }
        }
        if unknown >= UNKNOWN_IDS_SUSPECT && 2 * unknown > records {
            return Err(Error::at(
                at,
                format!(
                    "corrupt page: {unknown} of its {records} records have event ids the trace has \
                     no format for"
                ),
            ));
        }
        Ok(())
    }

    /// Decodes one page; `file_offset` is where the page starts (for errors).
    /// A record that crosses the committed length is an error (corrupt page).
    pub(crate) fn decode_page<'a>(
        &self,
        page: &'a [u8],
        file_offset: u64,
        out: &mut impl FnMut(PageItem<'a>),
    ) -> Result<()> {
        let e = self.endian;
        let h = &self.header;
        let err = |pos: usize, cause: String| Error::at(file_offset + pos as u64, cause);
        let base_ts = e.u64_at(page, 0).ok_or_else(|| {
            err(
                0,
                format!("truncated page: {} bytes, no header", page.len()),
            )
        })?;
        let commit = e
            .uint_at(page, 8, h.commit_size)
            .ok_or_else(|| err(8, "truncated page: no commit word".into()))?;
        let data_len = (commit & COMMIT_LEN_MASK) as usize;
        let data = page
            .get(h.data_offset..h.data_offset.saturating_add(data_len))
            .ok_or_else(|| {
                err(
                    8,
                    format!(
                        "corrupt page: commit says {data_len} data bytes, page has {}",
                        page.len().saturating_sub(h.data_offset)
                    ),
                )
            })?;
        let data_start = h.data_offset;

        if commit & RB_MISSED_EVENTS != 0 {
            let count = if commit & RB_MISSED_STORED != 0 {
                e.uint_at(page, data_start + data_len, h.commit_size)
            } else {
                None
            };
            out(PageItem::Lost { ts: base_ts, count });
        }

        let mut ts = base_ts;
        let mut pos = 0usize;
        while pos + 4 <= data.len() {
            let w = e.u32_at(data, pos).unwrap_or(0);
            let (type_len, delta) = match e {
                Endian::Little => (w & 0x1f, (w >> 5) as u64),
                Endian::Big => (w >> 27, (w & 0x07ff_ffff) as u64),
            };
            // The `plen` payload bytes after a `header`-byte record header.
            let payload = |header: usize, plen: usize| {
                data.get(pos + header..pos + header + plen).ok_or_else(|| {
                    err(
                        data_start + pos,
                        format!("corrupt page: {plen}-byte record crosses the committed data"),
                    )
                })
            };
            let array0 = |what: &str| {
                e.u32_at(data, pos + 4).ok_or_else(|| {
                    err(
                        data_start + pos,
                        format!("corrupt page: {what} crosses the committed data"),
                    )
                })
            };
            match type_len {
                TYPE_PADDING => {
                    if delta == 0 {
                        break; // Null padding: the rest of the page is unused.
                    }
                    let len = array0("padding length")? as usize;
                    // The kernel's padding to the end of a page may pass the committed data, but
                    // never the page.
                    if pos.saturating_add(4).saturating_add(len) > page.len() - data_start {
                        return Err(err(
                            data_start + pos,
                            format!("corrupt page: {len}-byte padding runs past the page"),
                        ));
                    }
                    ts = ts.wrapping_add(delta);
                    pos = pos.saturating_add(4).saturating_add(len);
                }
                TYPE_TIME_EXTEND => {
                    let hi = array0("time extend")? as u64;
                    ts = ts.wrapping_add((hi << 27) | delta);
                    pos += 8;
                }
                TYPE_TIME_STAMP => {
                    let hi = array0("absolute timestamp")? as u64;
                    // The record holds the low 59 bits; keep the top 5 of the running clock.
                    ts = ((hi << 27) | delta) | (ts & 0xf800_0000_0000_0000);
                    pos += 8;
                }
                0 => {
                    let len = array0("record length")? as usize;
                    if len < 4 {
                        return Err(err(
                            data_start + pos,
                            format!("corrupt page: record length {len}"),
                        ));
                    }
                    let plen = (len - 4 + 3) & !3;
                    ts = ts.wrapping_add(delta);
                    out(PageItem::Record {
                        ts,
                        payload: payload(8, plen)?,
                    });
                    pos += 8 + plen;
                }
                n => {
                    let plen = 4 * n as usize;
                    ts = ts.wrapping_add(delta);
                    out(PageItem::Record {
                        ts,
                        payload: payload(4, plen)?,
                    });
                    pos += 4 + plen;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H64: HeaderPage = HeaderPage {
        commit_size: 8,
        data_offset: 16,
        data_size: 4080,
    };
    const H32: HeaderPage = HeaderPage {
        commit_size: 4,
        data_offset: 12,
        data_size: 4084,
    };

    /// Builds a page: header, then (type_len, delta, extra words) records.
    fn page(
        endian: Endian,
        h: HeaderPage,
        ts: u64,
        flags: u64,
        words: &[u32],
        tail: &[u8],
    ) -> Vec<u8> {
        let mut p = vec![0u8; h.page_size()];
        let put32 = |p: &mut [u8], off: usize, v: u32| {
            let b = match endian {
                Endian::Little => v.to_le_bytes(),
                Endian::Big => v.to_be_bytes(),
            };
            p[off..off + 4].copy_from_slice(&b);
        };
        let b = match endian {
            Endian::Little => ts.to_le_bytes(),
            Endian::Big => ts.to_be_bytes(),
        };
        p[..8].copy_from_slice(&b);
        let commit = (words.len() * 4) as u64 | flags;
        if h.commit_size == 8 {
            let b = match endian {
                Endian::Little => commit.to_le_bytes(),
                Endian::Big => commit.to_be_bytes(),
            };
            p[8..16].copy_from_slice(&b);
        } else {
            put32(&mut p, 8, commit as u32);
        }
        for (i, &w) in words.iter().enumerate() {
            put32(&mut p, h.data_offset + 4 * i, w);
        }
        let at = h.data_offset + 4 * words.len();
        p[at..at + tail.len()].copy_from_slice(tail);
        p
    }

    fn hdr(endian: Endian, type_len: u32, delta: u32) -> u32 {
        match endian {
            Endian::Little => type_len | (delta << 5),
            Endian::Big => (type_len << 27) | delta,
        }
    }

    fn decode(endian: Endian, h: HeaderPage, p: &[u8]) -> Vec<(char, u64, u64)> {
        let mut items = Vec::new();
        PageDecoder::new(endian, h)
            .decode_page(p, 0, &mut |item| match item {
                PageItem::Record { ts, payload } => items.push(('r', ts, payload[0] as u64)),
                PageItem::Lost { ts, count } => items.push(('l', ts, count.unwrap_or(u64::MAX))),
            })
            .unwrap();
        items
    }

    /// The same logical page in both byte orders and both long sizes.
    #[test]
    fn extends_absolute_padding_and_lost_both_endians() {
        for endian in [Endian::Little, Endian::Big] {
            for h in [H64, H32] {
                let words = [
                    hdr(endian, 1, 5),
                    0xAA, // short record, ts 1005
                    hdr(endian, 30, 3),
                    2, // extend: +(2<<27)+3
                    hdr(endian, 2, 0),
                    0xBB,
                    0, // ts 1005+3+2<<27
                    hdr(endian, 29, 7),
                    8,
                    0, // discarded event: +7, 12 bytes in all
                    hdr(endian, 0, 1),
                    12,
                    0xCC,
                    0, // long form: payload 8 bytes
                    hdr(endian, 31, 9),
                    1, // absolute: (1<<27)|9
                    hdr(endian, 1, 0),
                    0xDD,
                ];
                // 0xAA etc. are payload u32 words: their first byte depends on the byte order.
                let first = |v: u32| match endian {
                    Endian::Little => v as u64 & 0xff,
                    Endian::Big => (v >> 24) as u64,
                };
                let lost = match h.commit_size {
                    8 => 17u64.to_le_bytes().to_vec(),
                    _ => 17u32.to_le_bytes().to_vec(),
                };
                let lost: Vec<u8> = if endian == Endian::Big {
                    lost.into_iter().rev().collect()
                } else {
                    lost
                };
                let p = page(
                    endian,
                    h,
                    1000,
                    RB_MISSED_EVENTS | RB_MISSED_STORED,
                    &words,
                    &lost,
                );
                let t2 = 1005 + 3 + (2u64 << 27);
                assert_eq!(
                    decode(endian, h, &p),
                    vec![
                        ('l', 1000, 17),
                        ('r', 1005, first(0xAA)),
                        ('r', t2, first(0xBB)),
                        ('r', t2 + 7 + 1, first(0xCC)),
                        ('r', (1 << 27) | 9, first(0xDD)),
                    ],
                    "{endian:?} {h:?}"
                );
            }
        }
    }

    #[test]
    fn lost_without_count_null_padding_and_corruption() {
        let e = Endian::Little;
        let words = [hdr(e, 1, 5), 1, hdr(e, 29, 0), 0, hdr(e, 1, 5), 2];
        let p = page(e, H64, 10, RB_MISSED_EVENTS, &words, &[]);
        assert_eq!(decode(e, H64, &p), vec![('l', 10, u64::MAX), ('r', 15, 1)]);
        // A record claiming more than the committed bytes.
        let p = page(e, H64, 10, 0, &[hdr(e, 0, 1), 400, 0], &[]);
        let err = PageDecoder::new(e, H64)
            .decode_page(&p, 4096, &mut |_| {})
            .unwrap_err();
        assert_eq!(err.location, crate::Location::Offset(4096 + 16));
        // Commit larger than the page.
        let mut p = page(e, H64, 10, 0, &[], &[]);
        p[8..16].copy_from_slice(&5000u64.to_le_bytes());
        assert!(PageDecoder::new(e, H64)
            .decode_page(&p, 0, &mut |_| {})
            .is_err());
        assert!(PageDecoder::new(e, H64)
            .decode_page(&p[..6], 0, &mut |_| {})
            .is_err());
    }
}
