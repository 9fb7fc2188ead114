//! One read of a text trace, window by window, whatever holds the text (a memory map, or
//! buffers inflated from a compressed file): each window of whole lines is split into chunks
//! parsed in parallel, counted in file order ([`Tally`]) and merged into the sink ([`Merger`]).

use super::chunk::{parse_chunk, ChunkOut};
use super::merge::Merger;
use super::state::Evidence;
use super::tally::Tally;
use super::{chunk_size, split_at_lines};
use crate::progress::Tracker;
use crate::{EventSink, Ingested, Result};
use rayon::prelude::*;

pub(super) struct Pass {
    tally: Tally,
    merger: Merger,
}

impl Pass {
    pub(super) fn new() -> Pass {
        Pass {
            tally: Tally::new(),
            merger: Merger::default(),
        }
    }

    /// Counts one window's chunks and sends their events. `region_first_line` is the line of
    /// the window's first line when it starts an HTML block; `rest` gives the `prev_state`
    /// evidence of the text after the window (see [`Merger::window`]).
    pub(super) fn window(
        &mut self,
        outs: Vec<ChunkOut<'_>>,
        region_first_line: Option<u64>,
        rest: impl FnOnce() -> Evidence,
        sink: &mut dyn EventSink,
    ) {
        for (k, out) in outs.iter().enumerate() {
            self.tally.add(out, region_first_line.filter(|_| k == 0));
        }
        self.merger.window(outs, &self.tally.evidence, rest, sink);
    }

    /// The whole file's metadata and counts, after the lost markers that end it.
    pub(super) fn finish(self, html: bool, sink: &mut dyn EventSink) -> Result<Ingested> {
        let out_of_order = if self.tally.events() > 0 {
            self.merger.finish(sink)
        } else {
            0 // no event line: an error, and nothing goes out
        };
        self.tally.finish(html, out_of_order)
    }
}

/// The chunks of one window of whole lines, parsed in parallel, in file order; each chunk is
/// counted in `progress`, and a cancelled read stops at the next chunk.
pub(super) fn parse<'a>(text: &'a [u8], progress: &Tracker) -> Result<Vec<ChunkOut<'a>>> {
    chunks(text)
        .par_iter()
        .map(|c| {
            let out = parse_chunk(c);
            progress.advance(c.len() as u64).map(|()| out)
        })
        .collect()
}

/// The `prev_state` evidence of `text` alone (its events are dropped as they are parsed).
pub(super) fn evidence(text: &[u8]) -> Evidence {
    chunks(text)
        .par_iter()
        .map(|c| parse_chunk(c).evidence)
        .reduce(Evidence::default, |mut a, b| {
            a.merge(&b);
            a
        })
}

fn chunks(text: &[u8]) -> Vec<&[u8]> {
    split_at_lines(text, chunk_size(text.len()))
        .windows(2)
        .map(|w| &text[w[0]..w[1]])
        .collect()
}
