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

pub mod error;
pub mod event;
pub mod ftrace;
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
        return read_stdin(sink).map_err(|e| e.in_file(path));
    }
    let bytes = input::load(path)?;
    // A memory map gives consumed pages back as the readers stream through it.
    read_releasing(&bytes, &bytes, sink).map_err(|e| e.in_file(path))
}

fn read_stdin(sink: &mut dyn EventSink) -> Result<Ingested> {
    input::widen_stdin_pipe();
    let prefix = input::read_prefix(&mut std::io::stdin().lock(), 16)?;
    if perfdata::is_pipe_header(&prefix) {
        let stdin = input::ReadAhead::new(std::io::stdin());
        return relay::run(|sink| perfdata::read_stream(prefix, stdin, sink), sink);
    }
    let bytes = input::load_reader(prefix, std::io::stdin().lock())?;
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
        Format::Text => text::read(bytes, sink),
        Format::Perfetto => perfetto::read(bytes, sink),
    }
}
