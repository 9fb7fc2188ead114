//! Trace text: ftrace `trace` / `trace_pipe`, `trace-cmd report` (default, sched plugin
//! and `-R` renderings), `perf script` / `perf sched script`, and the ftrace text inside
//! Android systrace HTML (formats.md §5). The flavour is told from the content.
//!
//! The input is read in windows of whole lines, so that memory stays bounded whatever the
//! size of the file: each window is split into chunks parsed in parallel (rayon) into small
//! event vectors ([`chunk`]), while the previous window's events go to the sink; [`merge`]
//! puts a window's chunks back in file order (lost-marker times, timestamp order, the
//! `prev_state` encoding) and [`tally`] keeps the counts of the whole file. The window's
//! pages of a memory-mapped input are given back once its events are out.

mod chunk;
mod fields;
mod html;
mod line;
mod merge;
mod pass;
mod prefix;
mod state;
mod tally;
#[cfg(test)]
mod window_tests;
pub mod wrapped;

use crate::progress::Tracker;
use crate::source::{KeepAll, Release};
use crate::{EventSink, Ingested, Result};
use state::Evidence;

pub use state::Encoding as PrevStateEncoding;

/// Reads trace text held in memory and feeds its events to `sink` in timestamp order.
///
/// Lines that are not trace lines are counted by reason in `IngestStats::rejected`; the
/// read fails only when no event line parses at all (the error names the first bad line).
pub fn read(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    crate::read_alone(Default::default(), sink, |sink, tracker| {
        read_tracked(bytes, &KeepAll, sink, tracker)
    })
}

/// Whether `head`, the first bytes of a stream that goes on, holds a line that parses as an
/// event line (or is a systrace page, whose trace text may follow a long script). Trace text
/// is held whole before it is read, so a stream of text that is no trace (`yes |`) would be
/// held up to the memory bound before the reader could say so: it is refused from its head.
pub(crate) fn starts_like_trace_text(head: &[u8]) -> bool {
    html::is_html(head)
        || head.split(|&b| b == b'\n').any(|line| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            prefix::parse(line).is_ok()
        })
}

/// [`read`], telling `release` about each window of `bytes` whose events have gone out and
/// counting it in `progress` (stopping there when the read is cancelled).
pub(crate) fn read_tracked(
    bytes: &[u8],
    release: &dyn Release,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    read_in_windows(bytes, WINDOW, release, sink, progress)
}

fn read_in_windows(
    bytes: &[u8],
    window_size: usize,
    release: &dyn Release,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let html = html::is_html(bytes);
    let windows = windows(bytes, html, window_size);
    let mut pass = pass::Pass::new();
    let mut ahead = windows
        .first()
        .map(|w| pass::parse(w.text(bytes), progress));
    for (i, window) in windows.iter().enumerate() {
        let outs = ahead.take().transpose()?.unwrap_or_default();
        let later = &windows[i + 1..];
        let rest = || {
            later.iter().fold(Evidence::default(), |mut e, w| {
                e.merge(&pass::evidence(w.text(bytes)));
                e
            })
        };
        // The next window is parsed while this one's events go to the sink.
        std::thread::scope(|scope| {
            let next = later
                .first()
                .map(|w| scope.spawn(move || pass::parse(w.text(bytes), progress)));
            pass.window(outs, window.region_first_line, rest, sink);
            ahead = next.map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        });
        release.release(window.start..window.end);
    }
    pass.finish(html, sink)
}

/// Text read at a time: its events (about 90 bytes per ~100-byte line) are what is held,
/// twice over with the window parsed ahead.
pub(crate) const WINDOW: usize = 32 << 20;

/// A stretch of whole lines of the input; the first window of an HTML block knows its line.
struct Window {
    start: usize,
    end: usize,
    region_first_line: Option<u64>,
}

impl Window {
    fn text<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.start..self.end]
    }
}

fn windows(bytes: &[u8], html: bool, size: usize) -> Vec<Window> {
    let regions = if html {
        html::trace_data_regions(bytes)
    } else {
        vec![html::Region {
            start: 0,
            end: bytes.len(),
        }]
    };
    let mut windows = Vec::new();
    for region in &regions {
        let first_line = 1 + memchr::memchr_iter(b'\n', &bytes[..region.start]).count() as u64;
        let text = &bytes[region.start..region.end];
        let bounds = split_at_lines(text, size);
        for (i, w) in bounds.windows(2).enumerate() {
            windows.push(Window {
                start: region.start + w[0],
                end: region.start + w[1],
                region_first_line: (i == 0).then_some(first_line),
            });
        }
    }
    windows
}

/// Big enough that a chunk's bookkeeping is noise, small enough that both cores get work.
fn chunk_size(len: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (len / (threads * 4)).clamp(1 << 20, 16 << 20)
}

/// Chunk boundaries: 0, ends just after a `\n` near each multiple of `size`, `text.len()`.
fn split_at_lines(text: &[u8], size: usize) -> Vec<usize> {
    let mut bounds = vec![0];
    let mut pos = 0;
    while text.len() - pos > size {
        match memchr::memchr(b'\n', &text[pos + size..]) {
            Some(nl) => {
                pos += size + nl + 1;
                if pos < text.len() {
                    bounds.push(pos);
                }
            }
            None => break,
        }
    }
    bounds.push(text.len());
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_line_ends() {
        let text = b"aaaa\nbbbb\ncccc\nd";
        let b = split_at_lines(text, 3);
        assert_eq!(b, vec![0, 5, 10, 15, 16]);
        assert_eq!(split_at_lines(b"ab\n", 1), vec![0, 3]);
        assert_eq!(split_at_lines(b"", 1), vec![0, 0]);
    }
}
