//! `perf_event_attr` (formats.md §4.8): every size version from PERF_ATTR_SIZE_VER0 (64
//! bytes) to VER8 (136) and larger ones from newer kernels. Missing trailing fields read as
//! zero, unknown trailing bytes are skipped — the same rule as the kernel's own ABI.

use super::bytes::{u32_at, u64_at, Endian};
use crate::{Error, Result};

/// PERF_ATTR_SIZE_VER0: the smallest attr ever written (and what `size == 0` means).
pub(super) const ATTR_SIZE_VER0: u32 = 64;

pub(super) const TYPE_TRACEPOINT: u32 = 2;

/// The fields of `perf_event_attr` that decide how records are laid out or named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Attr {
    pub kind: u32,
    /// Bytes the writer declared for the struct (0 is read as VER0 = 64).
    pub size: u32,
    pub config: u64,
    pub sample_period: u64,
    pub sample_type: u64,
    pub read_format: u64,
    /// The bitfield word in little-endian bit numbering (bit 18 = sample_id_all), whatever the
    /// producer's byte order.
    pub flags: u64,
    pub branch_sample_type: u64,
    pub sample_regs_user: u64,
    pub clockid: i32,
    pub sample_regs_intr: u64,
}

impl Attr {
    pub(crate) fn sample_id_all(&self) -> bool {
        self.flags >> 18 & 1 == 1
    }

    pub(crate) fn use_clockid(&self) -> bool {
        self.flags >> 25 & 1 == 1
    }
}

/// Parses one attr from `buf` (which holds at least the attr; more bytes may follow).
/// `room` is how many bytes the container reserves for it (the attrs-section stride minus
/// the ids section, or the HEADER_ATTR record body); a declared size beyond it is a lie.
pub(super) fn parse(endian: Endian, buf: &[u8], room: usize, offset: u64) -> Result<Attr> {
    let declared = u32_at(endian, buf, 4).ok_or_else(|| {
        Error::at(
            offset,
            format!("truncated perf_event_attr: {} bytes", buf.len()),
        )
    })?;
    let size = if declared == 0 {
        ATTR_SIZE_VER0
    } else {
        declared
    };
    if size < ATTR_SIZE_VER0 {
        return Err(Error::at(
            offset + 4,
            format!("perf_event_attr size {size} is below the smallest version (64)"),
        ));
    }
    if size as usize > room || size as usize > buf.len() {
        return Err(Error::at(
            offset + 4,
            format!(
                "perf_event_attr size {size} is larger than the {} bytes reserved for it",
                room.min(buf.len())
            ),
        ));
    }
    let body = &buf[..size as usize];
    let u64f = |off: usize| u64_at(endian, body, off).unwrap_or(0);
    let raw_flags = u64f(40);
    // Bitfields are allocated from the most significant bit on big-endian ABIs.
    let flags = match endian {
        Endian::Little => raw_flags,
        Endian::Big => raw_flags.reverse_bits(),
    };
    Ok(Attr {
        kind: u32_at(endian, body, 0).unwrap_or(0),
        size,
        config: u64f(8),
        sample_period: u64f(16),
        sample_type: u64f(24),
        read_format: u64f(32),
        flags,
        branch_sample_type: u64f(72),
        sample_regs_user: u64f(80),
        clockid: u32_at(endian, body, 92).unwrap_or(0) as i32,
        sample_regs_intr: u64f(96),
    })
}

/// Name of a Linux clock id as `perf record -k` spells it.
pub(super) fn clock_name(clockid: i32) -> String {
    match clockid {
        0 => "realtime".into(),
        1 => "monotonic".into(),
        4 => "monotonic_raw".into(),
        7 => "boottime".into(),
        11 => "tai".into(),
        other => format!("clockid {other}"),
    }
}
