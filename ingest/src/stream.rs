//! Inputs that are not regular files: standard input, a FIFO, a process substitution
//! (`<(xz -dc t.xz)`), a character device. They can be read once, front to back, and may never
//! end (`/dev/zero`, a writer that loops), so nothing is read past their first [`SNIFF`] bytes
//! before those are known to start a trace: an unknown format is refused at once, naming the
//! bytes it saw, and so is text with no event line in those bytes. A pipe-mode perf.data is then read as it comes (`lib.rs`); every other format
//! points back and forth (trace.dat, file-mode perf.data), is searched whole (HTML, a tar) or
//! read twice (trace text, for its `prev_state` evidence), so it is held in memory, up to a
//! [`Limit`] that the error names when the stream is longer. A compressed stream is inflated
//! as it is read, never held compressed: its inflated head is checked the same way, and the
//! inflated bytes are held within both that limit and the input's inflation [`Budget`].

use crate::error::{Error, Result};
use crate::inflate::{Budget, Budgeted};
use crate::progress::{Progress, Tracker};
use crate::source::{decoder, Counted, InputBytes, Wrapper, INFLATE_STEP, SNIFF};
use crate::{Format, ReadOptions};
use std::io::Read;

/// The most bytes a stream is held to when its format must be read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Limit {
    pub(crate) bytes: u64,
    /// Where the number comes from, as the error states it.
    pub(crate) rule: String,
}

/// Held when the available memory cannot be read (no `/proc/meminfo`).
const FALLBACK: u64 = 4 << 30;

impl Limit {
    /// `--max-inflate` when given (the same "most bytes one input may take in memory" as for a
    /// compressed file), else half the memory available now: the analysis of a trace held
    /// whole needs room beside it.
    pub(crate) fn of(options: ReadOptions) -> Limit {
        let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
        Limit::from_meminfo(options, meminfo.as_deref())
    }

    fn from_meminfo(options: ReadOptions, meminfo: Option<&str>) -> Limit {
        if let Some(bytes) = options.max_inflate {
            return Limit {
                bytes,
                rule: "--max-inflate".into(),
            };
        }
        match meminfo.and_then(mem_available) {
            Some(available) => Limit {
                bytes: available / 2,
                rule: format!("half the {} MiB of memory available", available >> 20),
            },
            None => Limit {
                bytes: FALLBACK,
                rule: format!("{} MiB: the memory available is unknown", FALLBACK >> 20),
            },
        }
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The format that a stream's first bytes start, or why they are refused. Unlike a mapped file,
/// whose first packet may be malformed and is then named with its offset by the Perfetto
/// reader, a stream starting with 0x0a (one time in 256 for random bytes) must frame as
/// well-formed Perfetto packets over all its head: it would have to be held whole to be told
/// otherwise, and a short first packet of random bytes is well-formed often enough.
pub(crate) fn format_of(head: &[u8]) -> Result<Format> {
    let format = Format::detect(head)?;
    if format == Format::Perfetto && !frames_as_perfetto(head) {
        return Err(Error::at(
            0,
            format!(
                "unknown format: starts with {:02x?}, not a well-formed Perfetto packet; \
                 expected trace.dat, perf.data, Perfetto protobuf or trace text",
                &head[..head.len().min(8)]
            ),
        ));
    }
    // A head shorter than SNIFF is the whole stream: the text reader names its first bad line.
    if format == Format::Text && head.len() >= SNIFF && !crate::text::starts_like_trace_text(head) {
        return Err(Error::at(
            0,
            format!(
                "text with no event line in its first {} KiB: expected trace text \
                 (ftrace, trace-cmd report or perf script lines such as \
                 `comm-pid [cpu] sec.usec: sched_switch: ...`)",
                SNIFF >> 10
            ),
        ));
    }
    Ok(format)
}

/// Whether every top-level field of `head` parses, each packet a well-formed message, up to its
/// end or to a packet cut by it.
fn frames_as_perfetto(head: &[u8]) -> bool {
    use crate::perfetto::wire::{field_at, is_well_formed, looks_like_trace, varint};
    if !looks_like_trace(head) {
        return false;
    }
    let mut pos = 0;
    while pos < head.len() {
        match field_at(head, pos) {
            Ok(field) => {
                let (start, end) = field.payload;
                if field.number == 1 && !is_well_formed(&head[start..end]) {
                    return false;
                }
                pos = end;
            }
            // Only a packet cut by the end of the head may fail to parse.
            Err(_) => return varint(head, pos).is_some_and(|(key, _)| key == 0x0a),
        }
    }
    true
}

/// `format` as the error of an over-long stream names what it held.
fn held(format: Format) -> &'static str {
    match format {
        Format::TraceDat => "a trace.dat",
        Format::PerfData => "a file-mode perf.data",
        Format::Text => "trace text",
        Format::Perfetto => "a Perfetto trace",
        Format::SchedViz => "a schedviz capture (tar)",
    }
}

/// The whole of a stream after its `prefix` already read, in memory, inflated when it is
/// compressed, for a format that is read whole. Its first [`SNIFF`] bytes (inflated ones for a
/// compressed stream) are checked before anything more is read; the rest is held up to
/// [`Limit::of`] `options`. The bytes read are counted in `progress`.
pub(crate) fn load(
    prefix: Vec<u8>,
    reader: impl Read + Send,
    progress: &Progress,
    options: ReadOptions,
) -> Result<InputBytes> {
    load_within(prefix, reader, progress, options, &Limit::of(options))
}

/// [`load`] up to `limit`.
fn load_within(
    prefix: Vec<u8>,
    reader: impl Read + Send,
    progress: &Progress,
    options: ReadOptions,
    limit: &Limit,
) -> Result<InputBytes> {
    let tracker = Tracker::new(progress);
    tracker.advance(prefix.len() as u64)?;
    let mut raw = Counted::new(reader, &tracker);
    let head = fill(prefix, &mut raw, SNIFF).map_err(|e| read_error(e, progress))?;
    let bytes = match Wrapper::detect(&head) {
        None => {
            let what = held(format_of(&head)?);
            hold(head, &mut raw, limit, what, |_, e| read_error(e, progress))?
        }
        Some(wrapper) => {
            let budget = Budget::new(options.max_inflate);
            let compressed = Drawn {
                inner: std::io::Cursor::new(head).chain(&mut raw),
                budget: &budget,
            };
            let failed = |at: usize, e: std::io::Error| {
                if progress.is_cancelled() {
                    return Error::cancelled();
                }
                Error::at(
                    at as u64,
                    format!(
                        "{} decompression failed after {at} output bytes: {e}",
                        wrapper.name()
                    ),
                )
            };
            let mut inflated = Budgeted::new(
                decoder(wrapper, compressed).map_err(|e| failed(0, e))?,
                &budget,
                wrapper.label(),
            );
            let inner = fill(Vec::new(), &mut inflated, SNIFF).map_err(|e| failed(0, e))?;
            let format = format_of(&inner).map_err(|e| Error {
                cause: format!("inside the {} wrapper: {}", wrapper.name(), e.cause),
                ..e
            })?;
            let what = format!("{} inside the {} wrapper", held(format), wrapper.name());
            hold(inner, &mut inflated, limit, &what, failed)?
        }
    };
    tracker.finish_stream();
    Ok(InputBytes::Owned(bytes))
}

/// `bytes` with what `reader` gives after them, up to `n` bytes in all (fewer at its end).
fn fill(mut bytes: Vec<u8>, reader: &mut impl Read, n: usize) -> std::io::Result<Vec<u8>> {
    if bytes.len() < n {
        reader
            .take((n - bytes.len()) as u64)
            .read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// `bytes` with the rest of `reader` after them, unless the whole passes `limit`: then an error
/// at the limit's offset that names `what` was held and the limit. `failed` names a failed read
/// after the bytes held by then.
fn hold(
    mut bytes: Vec<u8>,
    reader: &mut impl Read,
    limit: &Limit,
    what: &str,
    failed: impl FnOnce(usize, std::io::Error) -> Error,
) -> Result<Vec<u8>> {
    // One byte past the limit tells "exactly at it" from "over it".
    let end = limit.bytes.saturating_add(1);
    // In steps: a decompressor fills whatever buffer it is given before the budget sees its
    // output, and `read_to_end` offers ever larger ones.
    while (bytes.len() as u64) < end {
        let step = (end - bytes.len() as u64).min(INFLATE_STEP as u64);
        match reader.take(step).read_to_end(&mut bytes) {
            Ok(n) if (n as u64) < step => break,
            Ok(_) => {}
            Err(e) => return Err(failed(bytes.len(), e)),
        }
    }
    if bytes.len() as u64 <= limit.bytes {
        return Ok(bytes);
    }
    Err(Error::at(
        limit.bytes,
        format!(
            "{what} is read whole, and a stream (not a regular file, which is mapped) is held \
             in memory up to {} bytes ({}): this one is longer; give the file itself, or raise \
             the limit with --max-inflate SIZE",
            limit.bytes, limit.rule
        ),
    ))
}

/// A failed read of a stream: the cancellation if that was the cause.
fn read_error(e: std::io::Error, progress: &Progress) -> Error {
    if progress.is_cancelled() {
        Error::cancelled()
    } else {
        Error::whole(format!("cannot read: {e}"))
    }
}

/// The compressed bytes of a stream, each read entered in the [`Budget`] as it is taken: the
/// inflation allowed grows with them as it does for a mapped file's whole size.
struct Drawn<'b, R> {
    inner: R,
    budget: &'b Budget,
}

impl<R: Read> Read for Drawn<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.budget.read(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
