//! schedviz captures: what Google's schedviz collector (`trace.sh`) saves, as a folder or as the
//! tar archive it packs it in (`trace.tar.gz`, the gzip wrapper undone like any other):
//!
//! - `formats/header_page` and `formats/SYSTEM/EVENT/format`: the tracefs format files;
//! - `traces/cpuN`: CPU N's `trace_pipe_raw`, whole ring-buffer pages;
//! - `topology/nodeN/cpuM/topology/*`: the sysfs topology of each CPU, by NUMA node;
//! - `metadata.textproto`: `trace_type: FTRACE`.
//!
//! The pages are those of a trace.dat's CPU data, so they are read by the trace.dat reader's own
//! page streams and merge ([`crate::tracedat::read_layout`]) from a layout built here; only the
//! container differs. The tar is walked with the `tar` crate (headers, long names, padding are
//! its business, not ours).

mod collection;
mod topology;

use collection::Collection;

use crate::progress::Tracker;
use crate::source::{map_file, InputBytes};
use crate::{Error, EventSink, Ingested, Result};
use std::path::Path;

/// Whether the folder `dir` looks like a schedviz capture (it has `traces/` and `formats/`).
pub(crate) fn is_capture_dir(dir: &Path) -> bool {
    dir.join("traces").is_dir() && dir.join("formats").is_dir()
}

/// Reads the schedviz capture in the folder `dir`.
pub(crate) fn read_dir(
    dir: &Path,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let mut capture = Collection::default();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(folder) = todo.pop() {
        let entries = std::fs::read_dir(&folder)
            .map_err(|e| Error::whole(format!("cannot list {}: {e}", folder.display())))?;
        for entry in entries {
            let entry = entry
                .map_err(|e| Error::whole(format!("cannot list {}: {e}", folder.display())))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| Error::whole(format!("cannot stat {}: {e}", path.display())))?;
            if kind.is_dir() {
                todo.push(path);
                continue;
            }
            let Ok(rel) = path.strip_prefix(dir) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if Collection::wants(&rel) {
                // Mapped, as any trace file: a CPU's pages may be large.
                let file = std::fs::File::open(&path)
                    .map_err(|e| Error::whole(format!("cannot open {}: {e}", path.display())))?;
                capture.add(&rel, map_file(file, &path)?, 0);
            }
        }
    }
    progress.whole(capture.trace_bytes(), || capture.read(sink, progress))
}

/// Reads the schedviz capture packed in the tar archive `bytes`.
pub(crate) fn read_tar(
    bytes: &[u8],
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let capture = unpack(bytes).map_err(|cause| {
        Error::at(
            257,
            format!(
                "a tar archive that is not a schedviz capture ({cause}); extract it (tar xf) and \
                 give the trace.dat / perf.data inside"
            ),
        )
    })?;
    capture.read(sink, progress)
}

/// The capture's files from the tar archive `bytes`, or what is wrong with it.
fn unpack(bytes: &[u8]) -> std::result::Result<Collection, String> {
    let mut capture = Collection::default();
    let mut archive = tar::Archive::new(bytes);
    let entries = archive.entries().map_err(|e| e.to_string())?;
    for entry in entries {
        let mut entry = entry.map_err(|e| e.to_string())?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let at = entry.raw_file_position();
        let rel = entry
            .path()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let rel = rel.trim_start_matches("./").to_string();
        if !Collection::wants(&rel) {
            continue;
        }
        // Sized by the tar's own size field, but never beyond the archive itself.
        let mut data = Vec::with_capacity((entry.size() as usize).min(bytes.len()));
        std::io::Read::read_to_end(&mut entry, &mut data)
            .map_err(|e| format!("{rel} at offset {at}: {e}"))?;
        capture.add(&rel, InputBytes::Owned(data), at);
    }
    if !capture.has_traces() {
        return Err("no traces/cpuN in it".into());
    }
    Ok(capture)
}
