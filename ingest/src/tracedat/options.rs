//! trace.dat options (formats.md §1.7) shared by v6 and v7: the metadata kept in
//! [`TraceMeta`](crate::TraceMeta) and the timestamp adjustments.

use crate::error::{Error, Result};
use crate::ftrace::{Endian, Reader};

pub(super) const OPT_DONE: u16 = 0;
pub(super) const OPT_DATE: u16 = 1;
pub(super) const OPT_CPUSTAT: u16 = 2;
pub(super) const OPT_BUFFER: u16 = 3;
pub(super) const OPT_TRACECLOCK: u16 = 4;
pub(super) const OPT_UNAME: u16 = 5;
pub(super) const OPT_HOOK: u16 = 6;
pub(super) const OPT_OFFSET: u16 = 7;
pub(super) const OPT_CPUCOUNT: u16 = 8;
pub(super) const OPT_VERSION: u16 = 9;
pub(super) const OPT_TIME_SHIFT: u16 = 12;
pub(super) const OPT_GUEST: u16 = 13;
pub(super) const OPT_TSC2NSEC: u16 = 14;

/// What the options said.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Clock name (`local`, `global`, ...), from TRACECLOCK, the v6 clock tail or BUFFER.
    pub clock: Option<String>,
    pub uname: Option<String>,
    pub cpu_count: Option<u32>,
    pub tracecmd_version: Option<String>,
    pub cpustats: Vec<String>,
    /// Nanoseconds added to every timestamp (DATE µs × 1000 + OFFSET ns).
    pub ts_offset: i64,
    /// TSC2NSEC `(mult, shift)`: timestamps are raw counter values.
    pub tsc2nsec: Option<(u32, u32)>,
    /// Names of instance buffers other than the top one (not analysed).
    pub other_instances: Vec<String>,
    /// Options seen but not used, by name (e.g. "TIME_SHIFT").
    pub ignored: Vec<String>,
}

impl Options {
    /// Applies one option that means the same in v6 and v7. Returns false for ids the
    /// caller handles itself (BUFFER, section offsets).
    pub fn apply(&mut self, id: u16, payload: &[u8], offset: u64, endian: Endian) -> Result<bool> {
        let text = || {
            let end = payload
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(payload.len());
            String::from_utf8_lossy(&payload[..end]).trim().to_string()
        };
        match id {
            OPT_DATE => {
                let us = parse_c_integer(&text()).ok_or_else(|| {
                    Error::at(offset, format!("DATE option {:?} is not a number", text()))
                })?;
                self.ts_offset = self.ts_offset.wrapping_add(us.wrapping_mul(1000));
            }
            OPT_OFFSET => {
                let ns = parse_c_integer(&text()).ok_or_else(|| {
                    Error::at(
                        offset,
                        format!("OFFSET option {:?} is not a number", text()),
                    )
                })?;
                self.ts_offset = self.ts_offset.wrapping_add(ns);
            }
            OPT_CPUSTAT => self.cpustats.push(text()),
            OPT_TRACECLOCK => {
                // trace-cmd <= 2.9 wrote this empty, as a flag; the clock is then in the v6 tail.
                if let Some(clock) = selected_clock(&text()) {
                    self.clock = Some(clock);
                }
            }
            OPT_UNAME => self.uname = Some(text()),
            OPT_CPUCOUNT => {
                let n = Reader::new(payload, offset, endian).u32("CPUCOUNT option")?;
                self.cpu_count = Some(n);
            }
            OPT_VERSION => self.tracecmd_version = Some(text()),
            OPT_TSC2NSEC => {
                let mut r = Reader::new(payload, offset, endian);
                let mult = r.u32("TSC2NSEC mult")?;
                let shift = r.u32("TSC2NSEC shift")?;
                if shift >= 64 {
                    return Err(Error::at(
                        offset,
                        format!("TSC2NSEC shift {shift} is impossible"),
                    ));
                }
                self.tsc2nsec = Some((mult, shift));
            }
            OPT_HOOK => self.ignored.push("HOOK".into()),
            OPT_TIME_SHIFT => self
                .ignored
                .push("TIME_SHIFT (guest clock sync, not applied)".into()),
            OPT_GUEST => self.ignored.push("GUEST".into()),
            OPT_BUFFER | OPT_DONE => return Ok(false),
            16..=25 => return Ok(false),
            _ => {}
        }
        Ok(true)
    }

    /// The kernel release: third word of `sysname nodename release machine`.
    pub fn kernel_release(&self) -> Option<String> {
        self.uname
            .as_deref()?
            .split_whitespace()
            .nth(2)
            .map(str::to_string)
    }
}

/// The clock between `[` `]` of a `trace_clock` file, or the plain name.
pub(super) fn selected_clock(text: &str) -> Option<String> {
    if let (Some(a), Some(b)) = (text.find('['), text.find(']')) {
        if a < b {
            return Some(text[a + 1..b].to_string());
        }
    }
    let t = text.trim();
    (!t.is_empty() && !t.contains(' ')).then(|| t.to_string())
}

/// C `strtoll(s, 0)` syntax: decimal, `0x` hex or leading-0 octal, optional sign.
fn parse_c_integer(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Timestamp conversion applied to every event, in trace-cmd's order: TSC2NSEC, then offsets.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TsAdjust {
    pub tsc2nsec: Option<(u32, u32)>,
    pub offset: i64,
}

impl TsAdjust {
    #[inline]
    pub(super) fn apply(&self, ts: u64) -> u64 {
        let ts = match self.tsc2nsec {
            // Like the kernel's mul_u64_u32_shr: exact in 128 bits.
            Some((mult, shift)) => ((ts as u128 * mult as u128) >> shift) as u64,
            None => ts,
        };
        ts.wrapping_add(self.offset as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_adjustments() {
        let mut o = Options::default();
        o.apply(OPT_DATE, b"0x10\0", 0, Endian::Little).unwrap();
        o.apply(OPT_OFFSET, b"-6\0", 0, Endian::Little).unwrap();
        o.apply(
            OPT_UNAME,
            b"Linux box 6.18.0-rc1 x86_64\0",
            0,
            Endian::Little,
        )
        .unwrap();
        o.apply(
            OPT_TRACECLOCK,
            b"local global [boot] mono\0",
            0,
            Endian::Little,
        )
        .unwrap();
        o.apply(OPT_CPUCOUNT, &[0, 0, 0, 12], 0, Endian::Big)
            .unwrap();
        assert_eq!(o.ts_offset, 16_000 - 6);
        assert_eq!(o.kernel_release().as_deref(), Some("6.18.0-rc1"));
        assert_eq!(o.clock.as_deref(), Some("boot"));
        assert_eq!(o.cpu_count, Some(12));
        assert!(o.apply(OPT_DATE, b"zz\0", 9, Endian::Little).is_err());
        assert!(o.apply(OPT_CPUCOUNT, &[1], 9, Endian::Little).is_err());
        let adj = TsAdjust {
            tsc2nsec: Some((3, 1)),
            offset: 10,
        };
        assert_eq!(
            adj.apply(u64::MAX / 2),
            ((u64::MAX / 2) as u128 * 3 / 2) as u64 + 10
        );
        assert_eq!(parse_c_integer("010"), Some(8));
    }
}
