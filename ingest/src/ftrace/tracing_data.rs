//! Readers of the tracing metadata blocks (formats.md §1.3): header info, ftrace and
//! event formats, kallsyms, printk formats, saved cmdlines; each usable alone (trace.dat
//! v7 hands them one section each) and [`parse_tracing_data`] for the sequential layout
//! shared by trace.dat v6 and perf's HEADER_TRACING_DATA (formats.md §4.4).

use super::endian::{Endian, Reader};
use super::format::{parse_format, parse_header_page, EventFormat, HeaderPage};
use crate::error::{Error, Result};
use crate::event::Comm;

/// The `tracing` magic: `17 08 44 "tracing"`.
pub(crate) const MAGIC: &[u8; 10] = b"\x17\x08\x44tracing";

/// Everything of the sequential tracing-data layout that decoding needs.
#[derive(Clone, Debug)]
pub(crate) struct TracingData {
    pub endian: Endian,
    /// Long size of the recording user space (the kernel's is `header_page.commit_size`).
    pub long_size: u8,
    pub page_size: u32,
    /// "6", "7" (trace.dat) or "0.5", "0.6" (perf).
    pub version: String,
    pub header_page: Option<HeaderPage>,
    pub formats: Vec<EventFormat>,
    pub cmdlines: Vec<(i32, Comm)>,
    /// Bytes consumed from the start of the slice.
    pub consumed: usize,
}

/// The HEADER INFO block: `header_page` and `header_event` texts.
#[derive(Clone, Debug)]
pub(crate) struct HeaderInfo {
    /// `None` for the empty header_page of pre-2.6.31 kernels.
    pub header_page: Option<HeaderPage>,
}

/// Parses the initial `17 08 44 tracing VERSION\0 endian long_size page_size` header.
/// Returns (endian, long_size, page_size, version, bytes consumed).
pub(crate) fn read_initial_header(
    bytes: &[u8],
    base_offset: u64,
) -> Result<(Endian, u8, u32, String, usize)> {
    let mut r = Reader::new(bytes, base_offset, Endian::Little);
    let magic = r.bytes(MAGIC.len(), "tracing data magic")?;
    if magic != MAGIC {
        return Err(Error::at(
            base_offset,
            format!("bad tracing data magic {magic:02x?} (expected 17 08 44 \"tracing\")"),
        ));
    }
    let version = r.cstring("tracing data version")?;
    let endian = match r.u8("endianness byte")? {
        0 => Endian::Little,
        1 => Endian::Big,
        other => return Err(r.error(format!("endianness byte {other} is neither 0 nor 1"))),
    };
    r.set_endian(endian);
    let long_size = r.u8("long size")?;
    let page_size = r.u32("page size")?;
    Ok((endian, long_size, page_size, version, r.pos()))
}

/// HEADER INFO (`"header_page\0"`, u64 size, text, `"header_event\0"`, u64 size, text).
pub(crate) fn read_header_info(r: &mut Reader) -> Result<HeaderInfo> {
    let at = r.offset();
    let tag = r.bytes(12, "header_page tag")?;
    if tag != b"header_page\0" {
        return Err(Error::at(
            at,
            format!("expected \"header_page\" tag, found {tag:02x?}"),
        ));
    }
    let size = r.u64("header_page size")?;
    let page_at = r.offset();
    let text = r.bytes_u64(size, "header_page text")?;
    let header_page = if text.is_empty() {
        None
    } else {
        Some(parse_header_page(text).map_err(|e| Error::at(page_at, e.cause))?)
    };
    let at = r.offset();
    let tag = r.bytes(13, "header_event tag")?;
    if tag != b"header_event\0" {
        return Err(Error::at(
            at,
            format!("expected \"header_event\" tag, found {tag:02x?}"),
        ));
    }
    let size = r.u64("header_event size")?;
    r.bytes_u64(size, "header_event text")?;
    Ok(HeaderInfo { header_page })
}

/// FTRACE EVENT FORMATS: u32 count; count × {u64 size; format text} (system `ftrace`).
pub(crate) fn read_ftrace_formats(r: &mut Reader, out: &mut Vec<EventFormat>) -> Result<()> {
    let count = r.u32("ftrace format count")?;
    for _ in 0..count {
        read_one_format(r, "ftrace", out)?;
    }
    Ok(())
}

/// EVENT FORMATS: u32 systems; per system {cstr name; u32 count; count × {u64 size; text}}.
pub(crate) fn read_event_formats(r: &mut Reader, out: &mut Vec<EventFormat>) -> Result<()> {
    let systems = r.u32("event system count")?;
    for _ in 0..systems {
        let system = r.cstring("event system name")?;
        let count = r.u32("event format count")?;
        for _ in 0..count {
            read_one_format(r, &system, out)?;
        }
    }
    Ok(())
}

fn read_one_format(r: &mut Reader, system: &str, out: &mut Vec<EventFormat>) -> Result<()> {
    let size = r.u64("format size")?;
    let at = r.offset();
    let text = r.bytes_u64(size, "format text")?;
    let format = parse_format(system, text).map_err(|e| Error::at(at, e.cause))?;
    out.push(format);
    Ok(())
}

/// KALLSYMS: u32 size; text. Skipped (not needed for scheduling analysis).
pub(crate) fn read_kallsyms(r: &mut Reader) -> Result<()> {
    let size = r.u32("kallsyms size")?;
    r.skip(size as usize, "kallsyms text")
}

/// TRACE_PRINTK: u32 size; text. Skipped.
pub(crate) fn read_printk(r: &mut Reader) -> Result<()> {
    let size = r.u32("printk formats size")?;
    r.skip(size as usize, "printk formats text")
}

/// SAVED CMDLINES: u64 size; `"<pid> <comm>\n"` lines.
pub(crate) fn read_cmdlines(r: &mut Reader) -> Result<Vec<(i32, Comm)>> {
    let size = r.u64("saved cmdlines size")?;
    let text = r.bytes_u64(size, "saved cmdlines text")?;
    Ok(parse_cmdlines(text))
}

/// Parses `saved_cmdlines` text; lines that are not `PID COMM` are ignored.
pub(crate) fn parse_cmdlines(text: &[u8]) -> Vec<(i32, Comm)> {
    text.split(|&b| b == b'\n')
        .filter_map(|line| {
            let space = line.iter().position(|&b| b == b' ')?;
            let pid = std::str::from_utf8(&line[..space])
                .ok()?
                .trim()
                .parse()
                .ok()?;
            Some((pid, Comm::from_bytes(&line[space + 1..])))
        })
        .collect()
}

/// The sequential layout: initial header then the six blocks (cmdlines only from
/// perf's version 0.6 / any trace.dat version on).
pub(crate) fn parse_tracing_data(bytes: &[u8], base_offset: u64) -> Result<TracingData> {
    let (endian, long_size, page_size, version, start) = read_initial_header(bytes, base_offset)?;
    let mut r = Reader::new(bytes, base_offset, endian);
    r.seek(start, "tracing data blocks")?;
    let info = read_header_info(&mut r)?;
    let mut formats = Vec::new();
    read_ftrace_formats(&mut r, &mut formats)?;
    read_event_formats(&mut r, &mut formats)?;
    read_kallsyms(&mut r)?;
    read_printk(&mut r)?;
    // perf wrote no saved cmdlines before tracing-data version 0.6.
    let has_cmdlines = version != "0.5";
    let cmdlines = if has_cmdlines {
        read_cmdlines(&mut r)?
    } else {
        Vec::new()
    };
    Ok(TracingData {
        endian,
        long_size,
        page_size,
        version,
        header_page: info.header_page,
        formats,
        cmdlines,
        consumed: r.pos(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmdlines_with_spaces() {
        let c = parse_cmdlines(b"1 systemd\n17910 opt cgu.0\nbad\n");
        assert_eq!(c.len(), 2);
        assert_eq!(c[1], (17910, Comm::from("opt cgu.0")));
    }

    #[test]
    fn bad_magic_and_truncation_have_offsets() {
        let e = parse_tracing_data(b"\x17\x08\x44trazing6\0", 40).unwrap_err();
        assert_eq!(e.location, crate::Location::Offset(40));
        let e = parse_tracing_data(b"\x17\x08\x44tracing6\0\0\x08\x00\x10", 0).unwrap_err();
        assert!(e.cause.contains("page size"), "{e}");
    }
}
