//! Trace text: ftrace `trace` / `trace_pipe`, `trace-cmd report` (default, sched plugin
//! and `-R` renderings), `perf script` / `perf sched script`, and the ftrace text inside
//! Android systrace HTML (formats.md §5). The flavour is told from the content.
//!
//! The input is split at line boundaries into chunks that are parsed in parallel
//! (rayon) into small event vectors ([`chunk`]); [`merge`] then puts them back in file
//! order, settles what needs the whole file (the `prev_state` encoding, times of lost
//! markers), counts and sorts out-of-order events, and feeds the sink.

mod chunk;
mod fields;
mod html;
mod line;
mod merge;
mod prefix;
mod state;

use crate::progress::{Progress, Tracker};
use crate::{EventSink, Ingested, Result};
use rayon::prelude::*;

pub use state::Encoding as PrevStateEncoding;

/// Reads trace text held in memory and feeds its events to `sink` in timestamp order.
///
/// Lines that are not trace lines are counted by reason in `IngestStats::rejected`; the
/// read fails only when no event line parses at all (the error names the first bad line).
pub fn read(bytes: &[u8], sink: &mut dyn EventSink) -> Result<Ingested> {
    read_tracked(bytes, sink, &Tracker::new(&Progress::new()))
}

/// [`read`], counting each parsed chunk in `progress` (and stopping when it is cancelled).
pub(crate) fn read_tracked(
    bytes: &[u8],
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let html = html::is_html(bytes);
    let regions = if html {
        html::trace_data_regions(bytes)
    } else {
        vec![html::Region {
            start: 0,
            end: bytes.len(),
        }]
    };
    let mut pieces = Vec::new();
    for region in &regions {
        let first_line = 1 + memchr::memchr_iter(b'\n', &bytes[..region.start]).count() as u64;
        let text = &bytes[region.start..region.end];
        let bounds = split_at_lines(text, chunk_size(text.len()));
        for (i, w) in bounds.windows(2).enumerate() {
            pieces.push(merge::Piece {
                text: &text[w[0]..w[1]],
                region_first_line: (i == 0).then_some(first_line),
            });
        }
    }
    let outs: Vec<chunk::ChunkOut<'_>> = pieces
        .par_iter()
        .map(|piece| {
            let out = chunk::parse_chunk(piece.text);
            progress.advance(piece.text.len() as u64).map(|()| out)
        })
        .collect::<Result<_>>()?;
    merge::finish(&pieces, outs, html, sink)
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
