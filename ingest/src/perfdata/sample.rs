//! PERF_RECORD_SAMPLE bodies and `sample_id` trailers (formats.md §4.6, §4.7).
//!
//! A [`SampleFormat`] is computed once per attr from `sample_type`, `read_format`,
//! `branch_sample_type` and the register masks; parsing a sample then walks the body once
//! without allocating and hands back borrowed views. Every `sample_type` bit the kernel
//! defines is honoured (variable-length fields included) so that samples of any event,
//! not only what `perf sched record` sets up, are located correctly.

use super::attr::Attr;
use super::bytes::{u32_at, u64_at, Endian};

pub(super) const IP: u64 = 1 << 0;
pub(super) const TID: u64 = 1 << 1;
pub(super) const TIME: u64 = 1 << 2;
pub(super) const ADDR: u64 = 1 << 3;
pub(super) const READ: u64 = 1 << 4;
pub(super) const CALLCHAIN: u64 = 1 << 5;
pub(super) const ID: u64 = 1 << 6;
pub(super) const CPU: u64 = 1 << 7;
pub(super) const PERIOD: u64 = 1 << 8;
pub(super) const STREAM_ID: u64 = 1 << 9;
pub(super) const RAW: u64 = 1 << 10;
pub(super) const BRANCH_STACK: u64 = 1 << 11;
pub(super) const REGS_USER: u64 = 1 << 12;
pub(super) const STACK_USER: u64 = 1 << 13;
pub(super) const WEIGHT: u64 = 1 << 14;
pub(super) const DATA_SRC: u64 = 1 << 15;
pub(super) const IDENTIFIER: u64 = 1 << 16;
pub(super) const TRANSACTION: u64 = 1 << 17;
pub(super) const REGS_INTR: u64 = 1 << 18;
pub(super) const PHYS_ADDR: u64 = 1 << 19;
pub(super) const AUX: u64 = 1 << 20;
pub(super) const CGROUP: u64 = 1 << 21;
pub(super) const DATA_PAGE_SIZE: u64 = 1 << 22;
pub(super) const CODE_PAGE_SIZE: u64 = 1 << 23;
pub(super) const WEIGHT_STRUCT: u64 = 1 << 24;

const READ_TOTAL_TIME_ENABLED: u64 = 1;
const READ_TOTAL_TIME_RUNNING: u64 = 2;
const READ_ID: u64 = 4;
const READ_GROUP: u64 = 8;
const READ_LOST: u64 = 16;

const BRANCH_HW_INDEX: u64 = 1 << 17;
const BRANCH_COUNTERS: u64 = 1 << 19;

/// Fields laid out after RAW (IDENTIFIER has a higher bit but comes first): when none is
/// set the walk stops at RAW.
const AFTER_RAW: u64 = !((RAW << 1) - 1) & !IDENTIFIER;

/// Precomputed layout of the samples and trailers of one attr.
#[derive(Debug, Clone, Default)]
pub(crate) struct SampleFormat {
    pub sample_type: u64,
    read_format: u64,
    branch_hw_index: bool,
    branch_counters: bool,
    regs_user_words: usize,
    regs_intr_words: usize,
    /// Non-sample kernel records carry a `sample_id` trailer.
    pub id_all: bool,
    /// Byte length of that trailer.
    pub trailer_len: usize,
    /// Offset of TIME in a sample body, if sampled (it precedes every variable-length field).
    pub time_offset: Option<usize>,
    /// Offset of the ID word in a sample body (IDENTIFIER first, else ID), if any.
    pub id_offset: Option<usize>,
    /// Position of the ID word counted in bytes back from the end of a non-sample record.
    pub trailer_id_from_end: Option<usize>,
    /// When every field up to RAW has a fixed size and nothing follows RAW (the tracepoint
    /// case), the offsets of the fields we read, so a sample needs no field-by-field walk.
    fixed: Option<FixedLayout>,
}

#[derive(Debug, Clone, Copy, Default)]
struct FixedLayout {
    id: Option<usize>,
    tid: Option<usize>,
    time: Option<usize>,
    cpu: Option<usize>,
    period: Option<usize>,
    raw: Option<usize>,
    /// Bytes before RAW (the whole sample when there is no RAW).
    len: usize,
}

impl FixedLayout {
    fn new(st: u64, read_format: u64) -> Option<FixedLayout> {
        if st & (CALLCHAIN | AFTER_RAW) != 0 || (st & READ != 0 && read_format & READ_GROUP != 0) {
            return None;
        }
        let mut f = FixedLayout::default();
        let mut pos = 0;
        let mut take = |bit: u64, size: usize| -> Option<usize> {
            (st & bit != 0).then(|| {
                pos += size;
                pos - size
            })
        };
        let identifier = take(IDENTIFIER, 8);
        take(IP, 8);
        f.tid = take(TID, 8);
        f.time = take(TIME, 8);
        take(ADDR, 8);
        let id = take(ID, 8);
        f.id = identifier.or(id);
        take(STREAM_ID, 8);
        f.cpu = take(CPU, 8);
        f.period = take(PERIOD, 8);
        let rf = read_format;
        let read_words = 1
            + (rf & READ_TOTAL_TIME_ENABLED != 0) as usize
            + (rf & READ_TOTAL_TIME_RUNNING != 0) as usize
            + (rf & READ_ID != 0) as usize
            + (rf & READ_LOST != 0) as usize;
        take(READ, 8 * read_words);
        f.raw = take(RAW, 4);
        f.len = pos;
        Some(f)
    }
}

/// The fields of one sample that schedtrace uses; absent fields are `None`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Sample<'a> {
    pub id: Option<u64>,
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub time: Option<u64>,
    pub cpu: Option<u32>,
    pub period: Option<u64>,
    pub raw: Option<&'a [u8]>,
}

/// The `sample_id` trailer of a non-sample record.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SampleId {
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    pub time: Option<u64>,
    pub id: Option<u64>,
    pub cpu: Option<u32>,
}

impl SampleFormat {
    pub(crate) fn new(attr: &Attr) -> SampleFormat {
        let st = attr.sample_type;
        let has = |bit: u64| st & bit != 0;
        let time_offset = has(TIME)
            .then(|| 8 * (has(IDENTIFIER) as usize + has(IP) as usize + has(TID) as usize));
        let id_offset = if has(IDENTIFIER) {
            Some(0)
        } else if has(ID) {
            Some(
                8 * (has(IP) as usize
                    + has(TID) as usize
                    + has(TIME) as usize
                    + has(ADDR) as usize),
            )
        } else {
            None
        };
        let trailer_words = has(TID) as usize
            + has(TIME) as usize
            + has(ID) as usize
            + has(STREAM_ID) as usize
            + has(CPU) as usize
            + has(IDENTIFIER) as usize;
        let trailer_id_from_end = if has(IDENTIFIER) {
            Some(8)
        } else if has(ID) {
            Some(8 * (1 + has(CPU) as usize + has(STREAM_ID) as usize))
        } else {
            None
        };
        SampleFormat {
            sample_type: st,
            read_format: attr.read_format,
            branch_hw_index: attr.branch_sample_type & BRANCH_HW_INDEX != 0,
            branch_counters: attr.branch_sample_type & BRANCH_COUNTERS != 0,
            regs_user_words: attr.sample_regs_user.count_ones() as usize,
            regs_intr_words: attr.sample_regs_intr.count_ones() as usize,
            id_all: attr.sample_id_all(),
            trailer_len: if attr.sample_id_all() {
                8 * trailer_words
            } else {
                0
            },
            time_offset,
            id_offset,
            trailer_id_from_end: if attr.sample_id_all() {
                trailer_id_from_end
            } else {
                None
            },
            fixed: FixedLayout::new(st, attr.read_format),
        }
    }

    /// [`SampleFormat::parse`] for the fixed layouts: direct reads at known offsets.
    #[inline]
    fn parse_fixed<'a>(
        &self,
        f: &FixedLayout,
        endian: Endian,
        body: &'a [u8],
    ) -> Result<Sample<'a>, &'static str> {
        if body.len() < f.len {
            return Err("sample shorter than its fixed fields");
        }
        let u64f = |o: Option<usize>| o.and_then(|o| u64_at(endian, body, o));
        let raw = match f.raw {
            Some(o) => {
                let size = u32_at(endian, body, o).ok_or("RAW")? as usize;
                Some(body.get(o + 4..o + 4 + size).ok_or("RAW")?)
            }
            None => None,
        };
        Ok(Sample {
            id: u64f(f.id),
            pid: f.tid.and_then(|o| u32_at(endian, body, o)),
            tid: f.tid.and_then(|o| u32_at(endian, body, o + 4)),
            time: u64f(f.time),
            cpu: f.cpu.and_then(|o| u32_at(endian, body, o)),
            period: u64f(f.period),
            raw,
        })
    }

    /// Walks a sample body (the record after its 8-byte header). Errors name the field.
    #[inline]
    pub(crate) fn parse<'a>(
        &self,
        endian: Endian,
        body: &'a [u8],
    ) -> Result<Sample<'a>, &'static str> {
        if let Some(f) = &self.fixed {
            return self.parse_fixed(f, endian, body);
        }
        self.parse_walk(endian, body)
    }

    /// The general walk, field by field in the kernel's order.
    pub(crate) fn parse_walk<'a>(
        &self,
        endian: Endian,
        body: &'a [u8],
    ) -> Result<Sample<'a>, &'static str> {
        let st = self.sample_type;
        let mut w = Walk {
            endian,
            body,
            pos: 0,
        };
        let mut s = Sample::default();
        if st & IDENTIFIER != 0 {
            s.id = Some(w.u64("IDENTIFIER")?);
        }
        if st & IP != 0 {
            w.skip(8, "IP")?;
        }
        if st & TID != 0 {
            s.pid = Some(w.u32("TID")?);
            s.tid = Some(w.u32("TID")?);
        }
        if st & TIME != 0 {
            s.time = Some(w.u64("TIME")?);
        }
        if st & ADDR != 0 {
            w.skip(8, "ADDR")?;
        }
        if st & ID != 0 {
            s.id = Some(w.u64("ID")?);
        }
        if st & STREAM_ID != 0 {
            w.skip(8, "STREAM_ID")?;
        }
        if st & CPU != 0 {
            s.cpu = Some(w.u32("CPU")?);
            w.skip(4, "CPU")?;
        }
        if st & PERIOD != 0 {
            s.period = Some(w.u64("PERIOD")?);
        }
        if st & READ != 0 {
            self.skip_read(&mut w)?;
        }
        if st & CALLCHAIN != 0 {
            let nr = w.u64("CALLCHAIN")?;
            w.skip_words(nr, "CALLCHAIN")?;
        }
        if st & RAW != 0 {
            let size = w.u32("RAW")? as usize;
            s.raw = Some(w.bytes(size, "RAW")?);
        }
        if st & AFTER_RAW != 0 {
            self.skip_after_raw(&mut w)?;
        }
        Ok(s)
    }

    fn skip_read(&self, w: &mut Walk) -> Result<(), &'static str> {
        let rf = self.read_format;
        let per_value = 1 + (rf & READ_ID != 0) as u64 + (rf & READ_LOST != 0) as u64;
        let times =
            (rf & READ_TOTAL_TIME_ENABLED != 0) as u64 + (rf & READ_TOTAL_TIME_RUNNING != 0) as u64;
        if rf & READ_GROUP != 0 {
            let nr = w.u64("READ")?;
            w.skip_words(times, "READ")?;
            w.skip_words(nr.checked_mul(per_value).ok_or("READ")?, "READ")
        } else {
            w.skip_words(per_value + times, "READ")
        }
    }

    fn skip_after_raw(&self, w: &mut Walk) -> Result<(), &'static str> {
        let st = self.sample_type;
        if st & BRANCH_STACK != 0 {
            let nr = w.u64("BRANCH_STACK")?;
            if self.branch_hw_index {
                w.skip(8, "BRANCH_STACK")?;
            }
            w.skip_words(nr.checked_mul(3).ok_or("BRANCH_STACK")?, "BRANCH_STACK")?;
            if self.branch_counters {
                w.skip_words(nr, "BRANCH_STACK")?;
            }
        }
        if st & REGS_USER != 0 {
            let abi = w.u64("REGS_USER")?;
            if abi != 0 {
                w.skip_words(self.regs_user_words as u64, "REGS_USER")?;
            }
        }
        if st & STACK_USER != 0 {
            let size = w.u64("STACK_USER")?;
            w.skip(
                usize::try_from(size).map_err(|_| "STACK_USER")?,
                "STACK_USER",
            )?;
            if size != 0 {
                w.skip(8, "STACK_USER")?;
            }
        }
        if st & (WEIGHT | WEIGHT_STRUCT) != 0 {
            w.skip(8, "WEIGHT")?;
        }
        for (bit, name) in [(DATA_SRC, "DATA_SRC"), (TRANSACTION, "TRANSACTION")] {
            if st & bit != 0 {
                w.skip(8, name)?;
            }
        }
        if st & REGS_INTR != 0 {
            let abi = w.u64("REGS_INTR")?;
            if abi != 0 {
                w.skip_words(self.regs_intr_words as u64, "REGS_INTR")?;
            }
        }
        for (bit, name) in [
            (PHYS_ADDR, "PHYS_ADDR"),
            (CGROUP, "CGROUP"),
            (DATA_PAGE_SIZE, "DATA_PAGE_SIZE"),
            (CODE_PAGE_SIZE, "CODE_PAGE_SIZE"),
        ] {
            if st & bit != 0 {
                w.skip(8, name)?;
            }
        }
        if st & AUX != 0 {
            let size = w.u64("AUX")?;
            w.skip(usize::try_from(size).map_err(|_| "AUX")?, "AUX")?;
        }
        Ok(())
    }

    /// Reads the `sample_id` trailer at the end of a non-sample record body.
    pub(crate) fn trailer(&self, endian: Endian, body: &[u8]) -> Option<SampleId> {
        if !self.id_all || self.trailer_len > body.len() {
            return None;
        }
        let st = self.sample_type;
        let t = &body[body.len() - self.trailer_len..];
        let mut pos = 0;
        let mut id = SampleId::default();
        if st & TID != 0 {
            id.pid = u32_at(endian, t, pos);
            id.tid = u32_at(endian, t, pos + 4);
            pos += 8;
        }
        if st & TIME != 0 {
            id.time = u64_at(endian, t, pos);
            pos += 8;
        }
        if st & ID != 0 {
            id.id = u64_at(endian, t, pos);
            pos += 8;
        }
        if st & STREAM_ID != 0 {
            pos += 8;
        }
        if st & CPU != 0 {
            id.cpu = u32_at(endian, t, pos);
            pos += 8;
        }
        if st & IDENTIFIER != 0 {
            id.id = u64_at(endian, t, pos);
        }
        Some(id)
    }
}

/// Forward walk over a sample body; errors are the name of the field that did not fit.
struct Walk<'a> {
    endian: Endian,
    body: &'a [u8],
    pos: usize,
}

impl<'a> Walk<'a> {
    #[inline]
    fn u64(&mut self, what: &'static str) -> Result<u64, &'static str> {
        let v = u64_at(self.endian, self.body, self.pos).ok_or(what)?;
        self.pos += 8;
        Ok(v)
    }

    #[inline]
    fn u32(&mut self, what: &'static str) -> Result<u32, &'static str> {
        let v = u32_at(self.endian, self.body, self.pos).ok_or(what)?;
        self.pos += 4;
        Ok(v)
    }

    #[inline]
    fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], &'static str> {
        let end = self.pos.checked_add(n).ok_or(what)?;
        let out = self.body.get(self.pos..end).ok_or(what)?;
        self.pos = end;
        Ok(out)
    }

    #[inline]
    fn skip(&mut self, n: usize, what: &'static str) -> Result<(), &'static str> {
        self.bytes(n, what).map(|_| ())
    }

    #[inline]
    fn skip_words(&mut self, n: u64, what: &'static str) -> Result<(), &'static str> {
        let n = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(8))
            .ok_or(what)?;
        self.skip(n, what)
    }
}

#[cfg(test)]
#[path = "sample_tests.rs"]
mod tests;
