//! The files of one schedviz capture, gathered from a folder or a tar, and the trace.dat-style
//! layout they make.

use super::topology;
use crate::ftrace::format::{parse_format, parse_header_page};
use crate::ftrace::{Endian, HeaderPage};
use crate::meta::{Format, TraceMeta};
use crate::progress::Tracker;
use crate::source::{InputBytes, KeepAll};
use crate::tracedat::compress::Codec;
use crate::tracedat::layout::{CpuData, CpuSource, Layout};
use crate::{Error, EventSink, Ingested, Result};
use std::collections::BTreeMap;

/// A capture's files, by what they are.
#[derive(Default)]
pub(super) struct Collection {
    header_page: Option<InputBytes>,
    /// (system, `format` file text).
    formats: Vec<(String, InputBytes)>,
    /// CPU -> (its `trace_pipe_raw` pages, the offset of their first byte in the input).
    traces: BTreeMap<u32, (InputBytes, u64)>,
    /// `topology/...` path -> file text.
    topology: BTreeMap<String, InputBytes>,
}

/// What a path inside the capture is.
enum Part {
    HeaderPage,
    Format { system: String },
    Trace { cpu: u32 },
    Topology,
}

fn part(rel: &str) -> Option<Part> {
    let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        ["formats", "header_page"] => Some(Part::HeaderPage),
        ["formats", system, _event, "format"] => Some(Part::Format {
            system: system.to_string(),
        }),
        ["traces", cpu] => Some(Part::Trace {
            cpu: cpu.strip_prefix("cpu")?.parse().ok()?,
        }),
        ["topology", ..] => Some(Part::Topology),
        _ => None,
    }
}

impl Collection {
    /// Whether the file at `rel` (relative to the capture's root) is one the capture is read from.
    pub(super) fn wants(rel: &str) -> bool {
        part(rel).is_some()
    }

    /// Takes the file at `rel`, its `bytes` found at input offset `at`.
    pub(super) fn add(&mut self, rel: &str, bytes: InputBytes, at: u64) {
        match part(rel) {
            Some(Part::HeaderPage) => self.header_page = Some(bytes),
            Some(Part::Format { system }) => self.formats.push((system, bytes)),
            Some(Part::Trace { cpu }) => {
                self.traces.insert(cpu, (bytes, at));
            }
            Some(Part::Topology) => {
                self.topology.insert(rel.to_string(), bytes);
            }
            None => {}
        }
    }

    pub(super) fn has_traces(&self) -> bool {
        !self.traces.is_empty()
    }

    /// Reads the events of every CPU's pages into `sink`, in time order.
    pub(super) fn read(&self, sink: &mut dyn EventSink, progress: &Tracker) -> Result<Ingested> {
        let header_page =
            match &self.header_page {
                Some(text) => parse_header_page(text)
                    .map_err(|e| Error::whole(format!("formats/header_page: {}", e.cause)))?,
                None => return Err(Error::whole(
                    "a schedviz capture without formats/header_page: the page layout is unknown",
                )),
            };
        if self.traces.is_empty() {
            return Err(Error::whole("a schedviz capture without traces/cpuN files"));
        }
        let mut formats = Vec::new();
        for (system, text) in &self.formats {
            formats
                .push(parse_format(system, text).map_err(|e| {
                    Error::whole(format!("formats/{system}/…/format: {}", e.cause))
                })?);
        }
        let layout = Layout {
            version: 0,
            endian: self.endian(&header_page),
            user_long_size: header_page.commit_size as u8,
            page_size: header_page.page_size(),
            codec: Codec::None,
            header_page,
            formats,
            cmdlines: Vec::new(),
            options: Default::default(),
            cpus_in_file: self.traces.keys().max().map_or(0, |&c| c + 1),
            cpus: self
                .traces
                .iter()
                .map(|(&cpu, (bytes, offset))| CpuData {
                    cpu,
                    source: CpuSource::Raw {
                        bytes: &bytes[..],
                        offset: *offset,
                    },
                })
                .collect(),
        };
        let topology = topology::from_sysfs(&self.topology);
        let meta = TraceMeta {
            format: Some(Format::SchedViz),
            format_version: "schedviz".into(),
            kernel_release: None,
            cpus: Some(
                topology
                    .as_ref()
                    .map_or(layout.cpus_in_file, |t| t.cpu_count() as u32)
                    .max(layout.cpus_in_file),
            ),
            clock: None,
            extra: [
                ("page_size".to_string(), layout.page_size.to_string()),
                ("cpus_with_data".to_string(), layout.cpus.len().to_string()),
            ]
            .into(),
            topology,
        };
        crate::tracedat::read_layout(&layout, None, meta, &KeepAll, sink, progress)
    }

    /// Bytes of every CPU's pages (what the progress counts for a capture folder).
    pub(super) fn trace_bytes(&self) -> u64 {
        self.traces.values().map(|(b, _)| b.len() as u64).sum()
    }

    /// The byte order of the pages: the one in which the first page's commit word fits the page
    /// (tracefs writes the machine's own order and the capture does not say which).
    fn endian(&self, header: &HeaderPage) -> Endian {
        let first = self
            .traces
            .values()
            .map(|(b, _)| &b[..])
            .find(|b| b.len() >= header.page_size());
        let fits = |e: Endian| {
            first
                .and_then(|p| e.uint_at(p, 8, header.commit_size))
                .is_some_and(|c| (c & 0x07ff_ffff) as usize <= header.data_size)
        };
        if !fits(Endian::Little) && fits(Endian::Big) {
            Endian::Big
        } else {
            Endian::Little
        }
    }
}
