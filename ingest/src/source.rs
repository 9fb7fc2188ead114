//! Getting the bytes of an input: a memory map of the file, or, for inputs that
//! are compressed as a whole (`.xz`, `.gz`, `.zst`, detected by content, not by
//! name) and for standard input (`-`), a buffer in memory; and giving back the
//! pages of a map that a reader has finished with ([`Release`]).

use crate::error::{Error, Result};
use crate::inflate::{Budget, FLOOR};
use crate::progress::{Progress, Tracker};
use crate::ReadOptions;
use memmap2::Mmap;
use std::fs::File;
use std::io::Read;
use std::ops::{Deref, Range};
use std::path::Path;

/// The bytes of one input.
pub enum InputBytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Deref for InputBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InputBytes::Mapped(m) => m,
            InputBytes::Owned(v) => v,
        }
    }
}

/// Lets a reader hand back byte ranges of its input that it has finished with, so that
/// the pages of a multi-gigabyte memory-mapped trace do not all stay resident (and count
/// in the peak RSS) while it streams through them. Purely a hint: the bytes stay valid
/// and readable, a later read of a released range just costs a page fault.
pub trait Release: Sync {
    /// `range` (byte offsets into the input given to the reader) is consumed.
    fn release(&self, range: Range<usize>);
}

/// [`Release`] for inputs that are not memory maps (buffers, tests): does nothing.
pub struct KeepAll;

impl Release for KeepAll {
    fn release(&self, _: Range<usize>) {}
}

/// Released ranges are shrunk to this alignment: a multiple of every Linux page size
/// (4, 16, 64 KiB), so no partially consumed page is dropped and madvise never sees an
/// unaligned offset.
const RELEASE_ALIGN: usize = 64 << 10;

impl Release for InputBytes {
    fn release(&self, range: Range<usize>) {
        #[cfg(target_os = "linux")]
        if let InputBytes::Mapped(map) = self {
            let start = range.start.next_multiple_of(RELEASE_ALIGN);
            let end = (range.end.min(map.len()) / RELEASE_ALIGN) * RELEASE_ALIGN;
            if start < end {
                // SAFETY: `Mmap::map` makes a read-only MAP_SHARED file mapping. On Linux,
                // MADV_DONTNEED on such a mapping only drops our page-table entries: a later
                // access faults the same bytes back in from the page cache / file, so
                // slices into the released range keep their contents (unlike anonymous or
                // private-written memory, which would read back as zeroes). Errors are
                // ignored: the advice is an optimisation.
                let _ = unsafe {
                    map.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        start,
                        end - start,
                    )
                };
            }
        }
        // Buffers in memory cannot give back part of themselves.
        let _ = range;
    }
}

/// Whole-file compression wrappers that people mail traces in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Xz,
    Gzip,
    Zstd,
}

impl Wrapper {
    pub fn detect(bytes: &[u8]) -> Option<Wrapper> {
        if bytes.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
            Some(Wrapper::Xz)
        } else if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Wrapper::Gzip)
        } else if bytes.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Wrapper::Zstd)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Wrapper::Xz => "xz",
            Wrapper::Gzip => "gzip",
            Wrapper::Zstd => "zstd",
        }
    }

    /// The wrapper as an inflation error names it.
    pub fn label(self) -> &'static str {
        match self {
            Wrapper::Xz => "the xz wrapper",
            Wrapper::Gzip => "the gzip wrapper",
            Wrapper::Zstd => "the zstd wrapper",
        }
    }
}

/// An opened input path: a regular file is mapped; anything else (a FIFO, the pipe of a
/// process substitution `<(xz -dc t.xz)`, a character device) is read as a stream.
pub enum Opened {
    Regular(File),
    Stream(File),
}

/// Opens `path` without blocking: `open()` of a FIFO waits for a writer unless `O_NONBLOCK`
/// is given, so it is opened non-blocking and switched back to blocking reads after.
pub fn open(path: &Path) -> Result<Opened> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| Error::whole(format!("cannot open: {e}")).in_file(path))?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: fcntl on our own open descriptor with integer arguments.
        unsafe {
            let fd = file.as_raw_fd();
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
    let meta = file
        .metadata()
        .map_err(|e| Error::whole(format!("cannot stat: {e}")).in_file(path))?;
    if meta.is_dir() {
        return Err(Error::whole(
            "is a directory, not a trace file, nor a schedviz capture (traces/ and formats/ in it); \
             give the trace.dat / perf.data / trace text inside it",
        )
        .in_file(path));
    }
    Ok(if meta.is_file() {
        Opened::Regular(file)
    } else {
        Opened::Stream(file)
    })
}

/// Whether `file` is a named pipe.
pub fn is_fifo(file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        file.metadata().is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        false
    }
}

/// Maps the regular file `file` (at `path`), undoing a whole-file compression wrapper.
/// The decompression of a wrapped file is counted in `progress`; a plain file is mapped, which
/// takes no time worth showing (its reader counts the bytes it works through).
pub fn load_file(
    file: File,
    path: &Path,
    progress: &Progress,
    options: ReadOptions,
) -> Result<InputBytes> {
    unwrap_compression_with(map_file(file, path)?, progress, options).map_err(|e| e.in_file(path))
}

/// Maps the regular file `file` (at `path`) as it is.
pub fn map_file(file: File, path: &Path) -> Result<InputBytes> {
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let raw = if len == 0 {
        // mmap of an empty file fails on Linux; an empty buffer gives the usual "empty input" error.
        InputBytes::Owned(Vec::new())
    } else {
        // SAFETY: the map is read-only; a trace file truncated by another process while we
        // read it would fault, which is the accepted risk of every mmap-based reader.
        let map = unsafe { Mmap::map(&file) }
            .map_err(|e| Error::whole(format!("cannot map: {e}")).in_file(path))?;
        // The readers stream through the file front to back: ask for large read-ahead.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        InputBytes::Mapped(map)
    };
    Ok(raw)
}

/// Loads `path` (`-` = standard input), undoing a whole-file compression wrapper. A path
/// that is not a regular file is read as a stream ([`crate::stream::load`]: its head checked
/// first, the whole held within a limit).
pub fn load(path: &Path) -> Result<InputBytes> {
    load_with(path, &Progress::new(), ReadOptions::default())
}

/// [`load`], counting the decompression of a wrapped file (or the reading of a stream) in
/// `progress`, inflating within the run's `options.max_inflate`.
pub fn load_with(path: &Path, progress: &Progress, options: ReadOptions) -> Result<InputBytes> {
    if path.as_os_str() == "-" {
        return crate::stream::load(Vec::new(), std::io::stdin(), progress, options)
            .map_err(|e| e.in_file(path));
    }
    match open(path)? {
        Opened::Regular(file) => load_file(file, path, progress, options),
        Opened::Stream(file) => {
            crate::stream::load(Vec::new(), file, progress, options).map_err(|e| e.in_file(path))
        }
    }
}

/// Reads a live input (a pipe from `perf record -o -`) on its own thread into a queue of
/// chunks, so that the writer is never blocked while the reader is busy analysing: a blocked
/// `perf record` cannot empty its ring buffers and loses events. Holds at most
/// `READ_AHEAD_CHUNKS` chunks (memory grows only while the analysis lags). Hand-written:
/// a thread, a bounded channel and a `Read` over it, too small for a dependency.
pub struct ReadAhead {
    chunks: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    current: Vec<u8>,
    at: usize,
}

const READ_AHEAD_CHUNK: usize = 1 << 20;
const READ_AHEAD_CHUNKS: usize = 256;

impl ReadAhead {
    pub fn new(mut reader: impl Read + Send + 'static) -> ReadAhead {
        let (tx, chunks) = std::sync::mpsc::sync_channel(READ_AHEAD_CHUNKS);
        std::thread::spawn(move || loop {
            let mut chunk = Vec::with_capacity(READ_AHEAD_CHUNK);
            match (&mut reader)
                .take(READ_AHEAD_CHUNK as u64)
                .read_to_end(&mut chunk)
            {
                Ok(0) => return,
                Ok(_) => {
                    if tx.send(Ok(chunk)).is_err() {
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        });
        ReadAhead {
            chunks,
            current: Vec::new(),
            at: 0,
        }
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.current.len() {
            match self.chunks.recv() {
                Ok(chunk) => {
                    self.current = chunk?;
                    self.at = 0;
                }
                // The reading thread is done: the end of the input.
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.current.len() - self.at);
        out[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Asks for a 1 MiB pipe buffer when standard input is a pipe (best effort: the default
/// 64 KiB fills in well under a millisecond at `perf record` rates).
pub fn widen_stdin_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: fcntl on fd 0 with integer arguments; failure (not a pipe, limit) is harmless.
    unsafe {
        libc::fcntl(0, libc::F_SETPIPE_SZ, 1 << 20);
    }
}

/// Reads up to `n` bytes from the start of `reader` (fewer only at its end): enough to tell
/// a format that can be read as a stream from one that needs the whole input.
pub fn read_prefix(reader: &mut impl Read, n: usize) -> Result<Vec<u8>> {
    let mut prefix = Vec::with_capacity(n);
    reader
        .take(n as u64)
        .read_to_end(&mut prefix)
        .map_err(|e| Error::whole(format!("cannot read: {e}")))?;
    Ok(prefix)
}

/// The whole input of `reader` after the `prefix` already read from it, in memory, undoing a
/// whole-file compression wrapper: [`crate::stream::load`], which checks its head first and
/// holds it within a [`crate::stream::Limit`].
pub fn load_reader(prefix: Vec<u8>, reader: impl Read + Send) -> Result<InputBytes> {
    crate::stream::load(prefix, reader, &Progress::new(), ReadOptions::default())
}

/// How much of a wrapped input is inflated before its format is checked: enough for
/// [`crate::Format::detect`], which looks at the first bytes only.
pub const SNIFF: usize = 64 << 10;
/// Inflated at a time after the first [`SNIFF`] bytes, each step drawn from the [`Budget`].
pub const INFLATE_STEP: usize = 1 << 20;

/// The first `n` bytes (fewer if it holds fewer) that `wrapper` holds in `raw`, or `None` when
/// they do not inflate: enough to tell the format inside before choosing how to read it.
pub fn wrapped_head(raw: &[u8], wrapper: Wrapper, n: usize) -> Option<Vec<u8>> {
    let reader = decoder(wrapper, raw).ok()?;
    let mut head = Vec::with_capacity(n);
    reader.take(n as u64).read_to_end(&mut head).ok()?;
    Some(head)
}

/// A reader of what `wrapper` holds in `bytes` (every member or frame, one after another).
pub fn decoder<'a>(
    wrapper: Wrapper,
    bytes: impl Read + Send + 'a,
) -> std::io::Result<Box<dyn Read + Send + 'a>> {
    Ok(match wrapper {
        Wrapper::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(bytes)),
        Wrapper::Gzip => Box::new(flate2::read::MultiGzDecoder::new(bytes)),
        Wrapper::Zstd => Box::new(zstd::stream::read::Decoder::new(bytes)?),
    })
}

/// Decompresses `bytes` if they carry a whole-file compression wrapper. The head is inflated
/// first and its format checked, so that a wrapper around something that is no trace (a bomb of
/// zeros) fails at once; the rest inflates within the input's [`Budget`].
pub fn unwrap_compression(bytes: InputBytes) -> Result<InputBytes> {
    unwrap_compression_with(bytes, &Progress::new(), ReadOptions::default())
}

/// [`unwrap_compression`], counting the compressed bytes taken in `progress` (its total grows by
/// the compressed size first), inflating within `options.max_inflate`.
pub fn unwrap_compression_with(
    bytes: InputBytes,
    progress: &Progress,
    options: ReadOptions,
) -> Result<InputBytes> {
    let Some(wrapper) = Wrapper::detect(&bytes) else {
        return Ok(bytes);
    };
    let budget = Budget::new(options.max_inflate);
    budget.read(bytes.len() as u64);
    progress.add_total(bytes.len() as u64);
    let tracker = Tracker::new(progress);
    let input = Counted::new(&bytes[..], &tracker);
    let failed = |out: &Vec<u8>, e: std::io::Error| {
        if progress.is_cancelled() {
            return Error::cancelled();
        }
        Error::at(
            out.len() as u64,
            format!(
                "{} decompression failed after {} output bytes: {e}",
                wrapper.name(),
                out.len()
            ),
        )
    };
    let mut decoder = decoder(wrapper, input).map_err(|e| failed(&Vec::new(), e))?;
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(4).min(FLOOR as usize));
    let what = wrapper.label();
    let mut sniffed = false;
    loop {
        let step = if sniffed { INFLATE_STEP } else { SNIFF };
        budget.inflate(step as u64, out.len() as u64, what)?;
        let before = out.len();
        (&mut decoder)
            .take(step as u64)
            .read_to_end(&mut out)
            .map_err(|e| failed(&out, e))?;
        if !sniffed {
            sniffed = true;
            if Wrapper::detect(&out).is_none() {
                crate::Format::detect(&out).map_err(|e| Error {
                    cause: format!("inside the {} wrapper: {}", wrapper.name(), e.cause),
                    ..e
                })?;
            }
        }
        if out.len() - before < step {
            break;
        }
    }
    drop(decoder);
    tracker.finish(bytes.len() as u64);
    Ok(InputBytes::Owned(out))
}

/// A reader that reports what it hands out to a [`Tracker`] and fails once the read is
/// cancelled (a decompressor pulls its input in blocks of a few KiB: one report per block).
pub(crate) struct Counted<'t, R> {
    inner: R,
    tracker: &'t Tracker<'t>,
}

impl<'t, R: Read> Counted<'t, R> {
    pub(crate) fn new(inner: R, tracker: &'t Tracker<'t>) -> Counted<'t, R> {
        Counted { inner, tracker }
    }
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.tracker
            .advance(n as u64)
            .map_err(|e| std::io::Error::other(e.cause))?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_ahead_hands_out_the_input_unchanged() {
        let data: Vec<u8> = (0..3 * READ_AHEAD_CHUNK + 12345)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut out = Vec::new();
        ReadAhead::new(std::io::Cursor::new(data.clone()))
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, data);
    }
}
