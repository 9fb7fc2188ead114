//! trace.dat version 7 layout (formats.md §1.5): compression header, chained
//! OPTIONS sections, metadata sections located through the options, and the
//! BUFFER option describing each instance's flyrecord section.

use super::compress::Codec;
use super::layout::{CpuData, CpuSource, Layout};
use super::options::{Options, OPT_BUFFER, OPT_DONE};
use super::v6::check_page_size;
use crate::error::{Error, Result};
use crate::ftrace::tracing_data::{
    read_cmdlines, read_event_formats, read_ftrace_formats, read_header_info, read_initial_header,
};
use crate::ftrace::{Endian, Reader};
use std::borrow::Cow;
use std::collections::HashSet;

const SEC_HEADER_INFO: u16 = 16;
const SEC_FTRACE_EVENTS: u16 = 17;
const SEC_EVENT_FORMATS: u16 = 18;
const SEC_CMDLINES: u16 = 21;
const SEC_FLAG_COMPRESS: u16 = 1;
/// A chain longer than this is a loop or garbage.
const MAX_OPTION_SECTIONS: usize = 1024;

/// A section: header offset, flags and payload (after the 16-byte header).
struct Section<'a> {
    offset: u64,
    flags: u16,
    payload: &'a [u8],
}

fn section<'a>(
    bytes: &'a [u8],
    offset: u64,
    endian: Endian,
    expect_id: u16,
) -> Result<Section<'a>> {
    let start = usize::try_from(offset)
        .ok()
        .filter(|&o| o <= bytes.len())
        .ok_or_else(|| {
            Error::at(
                offset,
                format!(
                    "section {expect_id} offset lies past the end of the file ({} bytes)",
                    bytes.len()
                ),
            )
        })?;
    let mut r = Reader::new(&bytes[start..], offset, endian);
    let id = r.u16("section id")?;
    if id != expect_id {
        return Err(Error::at(
            offset,
            format!("expected section id {expect_id}, found {id}"),
        ));
    }
    let flags = r.u16("section flags")?;
    r.u32("section description id")?;
    let size = r.u64("section size")?;
    let payload = r.bytes_u64(size, "section payload")?;
    Ok(Section {
        offset,
        flags,
        payload,
    })
}

/// The payload of a metadata/options section, decompressed if flagged.
fn section_data<'a>(
    bytes: &'a [u8],
    offset: u64,
    endian: Endian,
    id: u16,
    codec: Codec,
) -> Result<(Cow<'a, [u8]>, u64)> {
    let s = section(bytes, offset, endian, id)?;
    let data_at = s.offset + 16;
    if s.flags & SEC_FLAG_COMPRESS != 0 {
        // Offsets inside a decompressed block are reported relative to the section payload.
        Ok((
            Cow::Owned(codec.block(s.payload, data_at, endian)?),
            data_at,
        ))
    } else {
        Ok((Cow::Borrowed(s.payload), data_at))
    }
}

/// A BUFFER option of v7.
struct Buffer {
    section: u64,
    name: String,
    clock: String,
    page_size: u32,
    cpus: Vec<(u32, u64, u64)>,
}

fn parse_buffer(payload: &[u8], offset: u64, endian: Endian) -> Result<Buffer> {
    let mut r = Reader::new(payload, offset, endian);
    let section = r.u64("BUFFER section offset")?;
    let name = r.cstring("BUFFER name")?;
    let clock = r.cstring("BUFFER clock")?;
    let page_size = r.u32("BUFFER page size")?;
    let n = r.u32("BUFFER CPU count")?;
    if n as usize > r.remaining() / 20 {
        return Err(r.error(format!(
            "BUFFER lists {n} CPUs but has room for {}",
            r.remaining() / 20
        )));
    }
    let mut cpus = Vec::with_capacity(n as usize);
    for _ in 0..n {
        cpus.push((
            r.u32("BUFFER cpu id")?,
            r.u64("BUFFER data offset")?,
            r.u64("BUFFER data size")?,
        ));
    }
    Ok(Buffer {
        section,
        name,
        clock,
        page_size,
        cpus,
    })
}

pub fn parse(bytes: &[u8]) -> Result<Layout<'_>> {
    let (endian, long_size, file_page_size, _version, start) = read_initial_header(bytes, 0)?;
    let mut r = Reader::new(bytes, 0, endian);
    r.seek(start, "compression header")?;
    let name_at = r.offset();
    let codec = Codec::from_name(&r.cstring("compression name")?, name_at)?;
    r.cstring("compression version")?;
    let mut next = r.u64("first options offset")?;

    let mut options = Options::default();
    let mut sections = [0u64; 26];
    let mut top: Option<Buffer> = None;
    let mut seen = HashSet::new();
    while next != 0 {
        if !seen.insert(next) || seen.len() > MAX_OPTION_SECTIONS {
            return Err(Error::at(next, "options sections form a loop"));
        }
        let (data, data_at) = section_data(bytes, next, endian, OPT_DONE, codec)?;
        next = 0;
        let mut o = Reader::new(&data, data_at, endian);
        while !o.is_empty() {
            let id = o.u16("option id")?;
            let size = o.u32("option size")?;
            let payload_at = o.offset();
            let payload = o.bytes(size as usize, "option payload")?;
            match id {
                OPT_DONE => {
                    next = Reader::new(payload, payload_at, endian).u64("next options offset")?;
                    break;
                }
                OPT_BUFFER => {
                    let b = parse_buffer(payload, payload_at, endian)?;
                    if b.name.is_empty() && top.is_none() {
                        top = Some(b);
                    } else {
                        options.other_instances.push(b.name);
                    }
                }
                16..=25 => {
                    sections[id as usize] =
                        Reader::new(payload, payload_at, endian).u64("section offset option")?;
                }
                _ => {
                    options.apply(id, payload, payload_at, endian)?;
                }
            }
        }
    }

    let need = |id: u16, what: &str| -> Result<u64> {
        match sections[id as usize] {
            0 => Err(Error::whole(format!(
                "trace.dat v7 without a {what} section"
            ))),
            off => Ok(off),
        }
    };
    let (data, at) = section_data(
        bytes,
        need(SEC_HEADER_INFO, "header info")?,
        endian,
        SEC_HEADER_INFO,
        codec,
    )?;
    let header_page = read_header_info(&mut Reader::new(&data, at, endian))?
        .header_page
        .ok_or_else(|| {
            Error::at(
                at,
                "empty header_page: pre-2.6.31 ring-buffer format is not supported",
            )
        })?;
    let mut formats = Vec::new();
    if sections[SEC_FTRACE_EVENTS as usize] != 0 {
        let (data, at) = section_data(
            bytes,
            sections[SEC_FTRACE_EVENTS as usize],
            endian,
            SEC_FTRACE_EVENTS,
            codec,
        )?;
        read_ftrace_formats(&mut Reader::new(&data, at, endian), &mut formats)?;
    }
    let (data, at) = section_data(
        bytes,
        need(SEC_EVENT_FORMATS, "event formats")?,
        endian,
        SEC_EVENT_FORMATS,
        codec,
    )?;
    read_event_formats(&mut Reader::new(&data, at, endian), &mut formats)?;
    let cmdlines = match sections[SEC_CMDLINES as usize] {
        0 => Vec::new(),
        off => {
            let (data, at) = section_data(bytes, off, endian, SEC_CMDLINES, codec)?;
            read_cmdlines(&mut Reader::new(&data, at, endian))?
        }
    };

    let top = top.ok_or_else(|| {
        Error::whole("trace.dat v7 without a top-instance BUFFER option (no flyrecord data)")
    })?;
    if !top.clock.is_empty() {
        options.clock = Some(top.clock.clone());
    }
    let page_size = if top.page_size != 0 {
        top.page_size
    } else {
        file_page_size
    } as usize;
    check_page_size(page_size, header_page.page_size(), top.section)?;
    let fly = section(bytes, top.section, endian, OPT_BUFFER)?;
    let fly_end = fly.offset + 16 + fly.payload.len() as u64;
    let compressed = fly.flags & SEC_FLAG_COMPRESS != 0;
    let mut cpus = Vec::new();
    let mut max_cpu = 0;
    for &(cpu, offset, size) in &top.cpus {
        // Per-CPU state is allocated by number: a corrupt one must not ask for 2^32 of them.
        if cpu > crate::topology::MAX_CPU {
            return Err(Error::at(
                offset,
                format!("CPU {cpu} of the BUFFER option: not a plausible CPU number"),
            ));
        }
        max_cpu = max_cpu.max(cpu + 1);
        if size == 0 {
            continue;
        }
        if offset < fly.offset + 16 || offset > fly_end {
            return Err(Error::at(
                offset,
                format!("CPU {cpu} data offset {offset} lies outside its flyrecord section"),
            ));
        }
        let source = if compressed {
            // `size` differs between trace-cmd versions (with or without the chunk count):
            // walk the chunks, bounded by the section end.
            CpuSource::Chunked {
                bytes: &bytes[offset as usize..fly_end as usize],
                offset,
                codec,
            }
        } else {
            let end = offset.checked_add(size).filter(|&e| e <= fly_end).ok_or_else(|| {
                Error::at(offset, format!("CPU {cpu} data (+{size}) runs past its flyrecord section end {fly_end}"))
            })?;
            CpuSource::Raw {
                bytes: &bytes[offset as usize..end as usize],
                offset,
            }
        };
        cpus.push(CpuData { cpu, source });
    }
    Ok(Layout {
        version: 7,
        endian,
        user_long_size: long_size,
        page_size,
        codec,
        header_page,
        formats,
        cmdlines,
        options,
        cpus_in_file: max_cpu,
        cpus,
    })
}
