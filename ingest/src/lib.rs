//! Trace formats in, one normalized scheduler event stream out.
//!
//! `read_path` loads an input (memory map, or decompressed buffer for `.xz`/`.gz`/`.zst`
//! inputs and stdin), detects its format from the content, and hands every event to an
//! [`EventSink`] in global timestamp order. Each format lives in its own module:
//!
//! - `ftrace`: the kernel pieces shared by several containers: event `format` files,
//!   sched payload decoding, ring-buffer pages;
//! - [`tracedat`]: trace-cmd `trace.dat` v6/v7;
//! - [`perfdata`]: `perf.data` file and pipe mode;
//! - [`text`]: ftrace / `trace-cmd report` / `perf script` text;
//! - [`perfetto`]: Perfetto protobuf traces, read and written.

#![warn(unreachable_pub)]

pub mod damage;
mod detect;
pub mod error;
mod event;
mod ftrace;
pub mod inflate;
mod mark;
pub mod meta;
mod options;
pub mod perfdata;
pub mod perfetto;
mod progress;
mod relay;
mod schedviz;
pub mod source;
mod stream;
pub mod text;
pub mod topology;
pub mod tracedat;

pub use error::{Error, Location, Result};
pub use event::{Comm, Event, EventKind, EventSink, Mark, PrevState, TaskRef};
pub use mark::Marks;
pub use meta::{Format, IngestStats, Ingested, TraceMeta};
pub use options::ReadOptions;
pub use progress::Progress;

use std::path::Path;

/// Reads the trace at `path` (`-` = stdin) and feeds its events to `sink` in time order.
///
/// A pipe-mode perf.data on stdin (`perf record -o - | schedtrace analyze -`) is read as a
/// stream, round by round; other inputs on stdin are held whole first (trace.dat and
/// file-mode perf.data point back and forth in the file), once their first bytes are known to
/// start a trace and within a limit ([`stream`]).
pub fn read_path(path: &Path, sink: &mut dyn EventSink) -> Result<Ingested> {
    read_path_with(path, sink, &Progress::new())
}

/// [`read_path`], moving `progress` forward as it goes and stopping with
/// [`Error::cancelled`] once it is cancelled.
pub fn read_path_with(
    path: &Path,
    sink: &mut dyn EventSink,
    progress: &Progress,
) -> Result<Ingested> {
    read_path_opts(path, sink, progress, ReadOptions::default())
}

/// [`read_path_with`] under this run's [`ReadOptions`] (`--strict`, `--max-inflate`).
pub fn read_path_opts(
    path: &Path,
    sink: &mut dyn EventSink,
    progress: &Progress,
    options: ReadOptions,
) -> Result<Ingested> {
    let tracker = progress::Tracker::with_options(progress, options);
    mark::read_marked(tracker.marks(), sink, |sink| {
        let mut counting = progress::Counting::new(sink, progress);
        let result = read_path_counted(path, &mut counting, &tracker);
        counting.finish();
        result
    })
}

fn read_path_counted(
    path: &Path,
    sink: &mut dyn EventSink,
    tracker: &progress::Tracker,
) -> Result<Ingested> {
    if path.as_os_str() == "-" {
        source::widen_stdin_pipe();
        return read_stream(std::io::stdin(), sink, tracker).map_err(|e| e.in_file(path));
    }
    if path.is_dir() && schedviz::is_capture_dir(path) {
        return schedviz::read_dir(path, sink, tracker).map_err(|e| e.in_file(path));
    }
    let (progress, options) = (tracker.progress(), tracker.options());
    match source::open(path)? {
        source::Opened::Stream(file) => {
            let fifo = source::is_fifo(&file);
            read_stream(file, sink, tracker).map_err(|e| {
                // A FIFO reads as empty at once when nobody has it open for writing.
                if fifo && e.cause.starts_with("empty input") {
                    Error::whole("a FIFO with no writer: start the program that writes it first")
                } else {
                    e
                }
                .in_file(path)
            })
        }
        source::Opened::Regular(file) => {
            let raw = source::map_file(file, path)?;
            if let Some(wrapper) = source::Wrapper::detect(&raw) {
                if let Some(got) = read_inflating(&raw, wrapper, sink, tracker) {
                    return got.map_err(|e| e.in_file(path));
                }
            }
            let bytes = source::unwrap_compression_with(raw, progress, options)
                .map_err(|e| e.in_file(path))?;
            // A memory map gives consumed pages back as the readers stream through it.
            read_tracked(&bytes, &bytes, sink, tracker).map_err(|e| e.in_file(path))
        }
    }
}

/// Reads `raw`, compressed with `wrapper`, as it inflates, never held whole, when what it holds
/// can be read so (trace text, a pipe-mode perf.data); `None` when it must be inflated whole
/// first (a trace.dat or file-mode perf.data points back and forth, an HTML page is searched).
fn read_inflating(
    raw: &[u8],
    wrapper: source::Wrapper,
    sink: &mut dyn EventSink,
    tracker: &progress::Tracker,
) -> Option<Result<Ingested>> {
    let head = source::wrapped_head(raw, wrapper, source::SNIFF)?;
    let len = raw.len() as u64;
    if text::wrapped::is_text(&head) {
        Some(tracker.whole(len, || {
            text::wrapped::read(raw, wrapper, text::WINDOW, sink, tracker)
        }))
    } else if perfdata::is_pipe_header(&head) {
        Some(tracker.whole(len, || perfdata::wrapped::read(raw, wrapper, sink, tracker)))
    } else {
        None
    }
}

/// An input that can only be read front to back (stdin, a FIFO, a process substitution).
fn read_stream(
    mut reader: impl std::io::Read + Send + 'static,
    sink: &mut dyn EventSink,
    tracker: &progress::Tracker,
) -> Result<Ingested> {
    let prefix = source::read_prefix(&mut reader, 16)?;
    if perfdata::is_pipe_header(&prefix) {
        let stream = source::ReadAhead::new(reader);
        let got = relay::run(
            |sink| perfdata::read_stream_tracked(prefix, stream, sink, tracker),
            sink,
        )?;
        tracker.finish_stream();
        return Ok(got);
    }
    let bytes = stream::load(prefix, reader, tracker.progress(), tracker.options())?;
    read_tracked(&bytes, &source::KeepAll, sink, tracker)
}

/// Reads a trace held in memory (already decompressed) and feeds its events to `sink`.
pub fn read_bytes(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    read_bytes_with(bytes, sink, &Progress::new())
}

/// [`read_bytes`] with a [`Progress`] (see [`read_path_with`]); `bytes.len()` is added to its
/// total.
pub fn read_bytes_with(
    bytes: &[u8],
    sink: &mut dyn EventSink,
    progress: &Progress,
) -> Result<Ingested> {
    read_bytes_opts(bytes, sink, progress, ReadOptions::default())
}

/// [`read_bytes_with`] under this run's [`ReadOptions`].
pub fn read_bytes_opts(
    bytes: &[u8],
    sink: &mut dyn EventSink,
    progress: &Progress,
    options: ReadOptions,
) -> Result<Ingested> {
    let tracker = progress::Tracker::with_options(progress, options);
    mark::read_marked(tracker.marks(), sink, |sink| {
        let mut counting = progress::Counting::new(sink, progress);
        let result = read_tracked(bytes, &source::KeepAll, &mut counting, &tracker);
        counting.finish();
        result
    })
}

/// [`read_bytes`] for a reader that may tell `release` which byte ranges of `bytes` it has
/// finished with (see [`source::Release`]; an [`source::InputBytes`] is its own `release`).
pub fn read_releasing(
    bytes: &[u8],
    release: &dyn source::Release,
    sink: &mut dyn EventSink,
) -> Result<Ingested> {
    let progress = Progress::new();
    let tracker = progress::Tracker::new(&progress);
    mark::read_marked(tracker.marks(), sink, |sink| {
        read_tracked(bytes, release, sink, &tracker)
    })
}

/// One format's reader on its own (each format's public `read`): a progress nobody looks at, the
/// run's `options`, and the marker table told to `sink` and returned as every read does.
pub(crate) fn read_alone(
    options: ReadOptions,
    sink: &mut dyn EventSink,
    read: impl FnOnce(&mut dyn EventSink, &progress::Tracker) -> Result<Ingested>,
) -> Result<Ingested> {
    let progress = Progress::new();
    let tracker = progress::Tracker::with_options(&progress, options);
    mark::read_marked(tracker.marks(), sink, |sink| read(sink, &tracker))
}

/// Every reader, with this input's share of the progress in `tracker` (the input's size added
/// to the total first, topped up to it at the end: readers report the chunks they decode, not
/// headers).
fn read_tracked(
    bytes: &[u8],
    release: &dyn source::Release,
    sink: &mut dyn EventSink,
    tracker: &progress::Tracker,
) -> Result<Ingested> {
    tracker.whole(bytes.len() as u64, || match Format::detect(bytes)? {
        Format::TraceDat => tracedat::read_tracked(bytes, release, sink, tracker),
        // Both decode on a second thread while the sink works on this one (`relay`), unless
        // `ReadOptions::one_thread`.
        Format::PerfData => perfdata::read_tracked(bytes, release, sink, tracker),
        Format::Text => text::read_tracked(bytes, release, sink, tracker),
        Format::Perfetto => perfetto::read_tracked(bytes, sink, tracker),
        Format::SchedViz => schedviz::read_tar(bytes, sink, tracker),
    })
}
