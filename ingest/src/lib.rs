//! Trace formats in, one normalized scheduler event stream out.
//!
//! `read_path` loads an input (memory map, or decompressed buffer for `.xz`/`.gz`/`.zst`
//! inputs and stdin), detects its format from the content, and hands every event to an
//! [`EventSink`] in global timestamp order. Each format lives in its own module:
//!
//! - [`ftrace`]: the kernel pieces shared by several containers: event `format` files,
//!   sched payload decoding, ring-buffer pages;
//! - [`tracedat`]: trace-cmd `trace.dat` v6/v7;
//! - [`perfdata`]: `perf.data` file and pipe mode;
//! - [`text`]: ftrace / `trace-cmd report` / `perf script` text;
//! - [`perfetto`]: Perfetto protobuf traces, read and written.

pub mod damage;
pub mod error;
pub mod event;
pub mod ftrace;
pub mod inflate;
pub mod input;
pub mod meta;
pub mod perfdata;
pub mod perfetto;
pub mod relay;
pub mod text;
pub mod topology;
pub mod tracedat;

pub use error::{Error, Location, Result};
pub use event::{Comm, Event, EventKind, EventSink, PrevState, TaskRef};
pub use meta::{Format, IngestStats, Ingested, TraceMeta};

use std::path::Path;

/// Reads the trace at `path` (`-` = stdin) and feeds its events to `sink` in time order.
///
/// A pipe-mode perf.data on stdin (`perf record -o - | schedtrace analyze -`) is read as a
/// stream, round by round; other inputs on stdin are read whole first (trace.dat and
/// file-mode perf.data point back and forth in the file).
pub fn read_path(path: &Path, sink: &mut dyn EventSink) -> Result<Ingested> {
    if path.as_os_str() == "-" {
        input::widen_stdin_pipe();
        return read_stream(std::io::stdin(), sink).map_err(|e| e.in_file(path));
    }
    match input::open(path)? {
        input::Opened::Stream(file) => {
            let fifo = input::is_fifo(&file);
            read_stream(file, sink).map_err(|e| {
                // A FIFO reads as empty at once when nobody has it open for writing.
                if fifo && e.cause.starts_with("empty input") {
                    Error::whole("a FIFO with no writer: start the program that writes it first")
                } else {
                    e
                }
                .in_file(path)
            })
        }
        input::Opened::Regular(file) => {
            let raw = input::map_file(file, path)?;
            // Compressed text is read as it inflates, never held whole.
            if let Some(wrapper) = input::Wrapper::detect(&raw) {
                if text::wrapped::holds_text(&raw, wrapper) {
                    return text::wrapped::read(&raw, wrapper, sink).map_err(|e| e.in_file(path));
                }
            }
            let bytes = input::unwrap_compression(raw).map_err(|e| e.in_file(path))?;
            // A memory map gives consumed pages back as the readers stream through it.
            read_releasing(&bytes, &bytes, sink).map_err(|e| e.in_file(path))
        }
    }
}

/// An input that can only be read front to back (stdin, a FIFO, a process substitution).
fn read_stream(
    mut reader: impl std::io::Read + Send + 'static,
    sink: &mut dyn EventSink,
) -> Result<Ingested> {
    let prefix = input::read_prefix(&mut reader, 16)?;
    if perfdata::is_pipe_header(&prefix) {
        let stream = input::ReadAhead::new(reader);
        return relay::run(|sink| perfdata::read_stream(prefix, stream, sink), sink);
    }
    let bytes = input::load_reader(prefix, reader)?;
    read_bytes(&bytes, sink)
}

/// Reads a trace held in memory (already decompressed) and feeds its events to `sink`.
pub fn read_bytes(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    read_releasing(bytes, &input::KeepAll, sink)
}

/// [`read_bytes`] for a reader that may tell `release` which byte ranges of `bytes` it has
/// finished with (see [`input::Release`]; an [`input::InputBytes`] is its own `release`).
pub fn read_releasing(
    bytes: &[u8],
    release: &dyn input::Release,
    sink: &mut dyn EventSink,
) -> Result<Ingested> {
    match Format::detect(bytes)? {
        Format::TraceDat => tracedat::read_releasing(bytes, release, sink),
        // Both read on a second thread while the sink works on this one (perfdata::split,
        // tracedat's merge).
        Format::PerfData => perfdata::read_releasing(bytes, release, sink),
        Format::Text => text::read_releasing(bytes, release, sink),
        Format::Perfetto => perfetto::read(bytes, sink),
    }
}
