//! trace.dat version 6 layout (formats.md §1.4): metadata blocks back to back,
//! CPU count, options, then the flyrecord table of per-CPU page blocks.

use super::compress::Codec;
use super::layout::{CpuData, CpuSource, Layout};
use super::options::{selected_clock, Options, OPT_BUFFER};
use crate::error::{Error, Result};
use crate::ftrace::{parse_tracing_data, Reader};

pub fn parse(bytes: &[u8]) -> Result<Layout<'_>> {
    let td = parse_tracing_data(bytes, 0)?;
    let header_page = td.header_page.ok_or_else(|| {
        Error::at(
            0,
            "empty header_page: pre-2.6.31 ring-buffer format is not supported",
        )
    })?;
    let mut r = Reader::new(bytes, 0, td.endian);
    r.seek(td.consumed, "CPU count")?;
    let cpus = r.u32("CPU count")?;
    if cpus > 1 << 16 {
        return Err(Error::at(
            r.offset() - 4,
            format!("implausible CPU count {cpus}"),
        ));
    }
    let mut options = Options::default();
    let mut tag_at = r.offset();
    let mut tag = r.bytes(10, "section tag")?;
    if tag == b"options  \0" {
        loop {
            let at = r.offset();
            let id = r.u16("option id")?;
            if id == 0 {
                break; // v6: DONE has no size.
            }
            let size = r.u32("option size")?;
            let payload_at = r.offset();
            let payload = r.bytes(size as usize, "option payload")?;
            if id == OPT_BUFFER {
                // u64 offset; cstr name. Instances are listed, not analysed.
                let mut b = Reader::new(payload, payload_at, td.endian);
                b.u64("BUFFER offset")?;
                options.other_instances.push(b.cstring("BUFFER name")?);
            } else if !options.apply(id, payload, payload_at, td.endian)? {
                options.ignored.push(format!("option {id} at {at}"));
            }
        }
        tag_at = r.offset();
        tag = r.bytes(10, "section tag")?;
    }
    match tag {
        b"flyrecord\0" => {}
        b"latency  \0" => {
            return Err(Error::at(
                tag_at,
                "latency-tracer (text) trace.dat files are not supported",
            ))
        }
        other => {
            return Err(Error::at(
                tag_at,
                format!("expected \"flyrecord\" tag, found {other:02x?}"),
            ))
        }
    }
    let page_size = td.page_size as usize;
    check_page_size(page_size, header_page.page_size(), 0)?;
    let mut cpu_data = Vec::new();
    for cpu in 0..cpus {
        let at = r.offset();
        let offset = r.u64("CPU data offset")?;
        let size = r.u64("CPU data size")?;
        if size == 0 {
            continue;
        }
        let end = offset.checked_add(size).filter(|&e| e <= bytes.len() as u64).ok_or_else(|| {
            Error::at(at, format!("CPU {cpu} data [{offset}, +{size}) lies past the end of the file ({} bytes)", bytes.len()))
        })?;
        cpu_data.push(CpuData {
            cpu,
            source: CpuSource::Raw {
                bytes: &bytes[offset as usize..end as usize],
                offset,
            },
        });
    }
    // Optional clock tail: u64 length; trace_clock text.
    if options.clock.is_none() {
        if let Ok(len) = r.u64("trace clock length") {
            if len < 4096 {
                if let Ok(text) = r.bytes(len as usize, "trace clock") {
                    options.clock = selected_clock(&String::from_utf8_lossy(text));
                }
            }
        }
    }
    Ok(Layout {
        version: 6,
        endian: td.endian,
        user_long_size: td.long_size,
        page_size,
        codec: Codec::None,
        header_page,
        formats: td.formats,
        cmdlines: td.cmdlines,
        options,
        cpus_in_file: cpus,
        cpus: cpu_data,
    })
}

/// Page size must be able to hold the page header and agree with header_page
/// (which gives the kernel's sub-buffer size).
pub fn check_page_size(page_size: usize, from_header_page: usize, offset: u64) -> Result<()> {
    if page_size < 64 || page_size > 64 << 20 {
        return Err(Error::at(
            offset,
            format!("implausible page size {page_size}"),
        ));
    }
    if page_size < from_header_page {
        return Err(Error::at(
            offset,
            format!(
                "page size {page_size} is smaller than header_page's sub-buffer {from_header_page}"
            ),
        ));
    }
    Ok(())
}
