//! Trace text in a whole-file compression wrapper (`report.txt.zst`, `.gz`, `.xz`), read as
//! it inflates: a second thread inflates windows of whole lines while this one parses and
//! analyses the previous window, so at most two windows of text are held, never the file.
//! Inflation draws on the input's [`Budget`] in the same steps as
//! [`crate::source::unwrap_compression`], so a bomb fails with the same error.

use super::{html, pass};
use crate::inflate::Budget;
use crate::progress::Tracker;
use crate::source::{decoder, Counted, Wrapper, INFLATE_STEP, SNIFF};
use crate::{Error, EventSink, Format, Ingested, Result};
use std::io::Read;

/// Whether `head`, the first [`SNIFF`] inflated bytes of a wrapped input, starts plain trace
/// text, judged the way the whole-file path judges it (an HTML page is read whole: its blocks
/// are found in the whole text).
pub fn is_text(head: &[u8]) -> bool {
    Wrapper::detect(head).is_none()
        && matches!(Format::detect(head), Ok(Format::Text))
        && !html::is_html(head)
}

/// Reads the trace text compressed in `raw` and feeds its events to `sink` in time order, in
/// windows of at least `window` bytes (after the first, [`SNIFF`] bytes; the reader's own is
/// [`super::WINDOW`]). The compressed bytes are counted in `progress` as the decompressor takes
/// them.
pub(crate) fn read(
    raw: &[u8],
    wrapper: Wrapper,
    window: usize,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let (windows, texts) = std::sync::mpsc::sync_channel::<Result<Vec<u8>>>(1);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut inflated =
                match Inflated::new(Counted::new(raw, progress), raw, wrapper, window, progress) {
                    Ok(inflated) => inflated,
                    Err(e) => return drop(windows.send(Err(e))),
                };
            loop {
                let (text, last) = match inflated.next_window() {
                    Ok(Some(text)) => (Ok(text), false),
                    Ok(None) => return,
                    Err(e) => (Err(e), true),
                };
                // A closed channel: the reading side stopped on an error of its own.
                if windows.send(text).is_err() || last {
                    return;
                }
            }
        });
        let mut pass = pass::Pass::new();
        let plain = crate::Progress::new();
        let uncounted = Tracker::new(&plain).with_marks(progress.marks().clone());
        let mut consumed = 0u64;
        for text in texts {
            let text = text.map_err(|e| match progress.progress().check() {
                Err(cancelled) => cancelled,
                Ok(()) => e,
            })?;
            consumed += text.len() as u64;
            let rest = || evidence_after(raw, wrapper, window, consumed, progress);
            // The compressed bytes taken are what `progress` counts (see `Counted`).
            let outs = pass::parse(&text, &uncounted)?;
            pass.window(outs, None, rest, sink);
        }
        pass.finish(false, sink)
    })
}

/// The `prev_state` evidence of the text after its first `skip` bytes, inflated again.
/// A failure to inflate ends the scan: the main pass meets the same failure.
fn evidence_after(
    raw: &[u8],
    wrapper: Wrapper,
    window: usize,
    skip: u64,
    progress: &Tracker,
) -> super::state::Evidence {
    let mut evidence = super::state::Evidence::default();
    let Ok(mut inflated) = Inflated::new(raw, raw, wrapper, window, progress) else {
        return evidence;
    };
    let mut at = 0u64;
    while let Ok(Some(text)) = inflated.next_window() {
        let end = at + text.len() as u64;
        if end > skip {
            let from = skip.saturating_sub(at) as usize;
            evidence.merge(&pass::evidence(&text[from..]));
        }
        at = end;
    }
    evidence
}

/// The inflated text in windows of whole lines (the last may lack its final newline).
struct Inflated<'a> {
    reader: Box<dyn Read + Send + 'a>,
    wrapper: Wrapper,
    window: usize,
    budget: Budget,
    /// The start of a line that the previous window cut.
    carry: Vec<u8>,
    out: u64,
    sniffed: bool,
    done: bool,
}

impl<'a> Inflated<'a> {
    /// `input` reads `raw`, the compressed bytes (whose size sets the budget; `progress`, the
    /// run's limit).
    fn new(
        input: impl Read + Send + 'a,
        raw: &[u8],
        wrapper: Wrapper,
        window: usize,
        progress: &Tracker,
    ) -> Result<Inflated<'a>> {
        let budget = progress.budget();
        budget.read(raw.len() as u64);
        Ok(Inflated {
            reader: decoder(wrapper, input).map_err(|e| Self::failed(wrapper, 0, e))?,
            wrapper,
            window,
            budget,
            carry: Vec::new(),
            out: 0,
            sniffed: false,
            done: false,
        })
    }

    fn failed(wrapper: Wrapper, at: u64, e: std::io::Error) -> Error {
        Error::at(
            at,
            format!(
                "{} decompression failed after {at} output bytes: {e}",
                wrapper.name()
            ),
        )
    }

    fn next_window(&mut self) -> Result<Option<Vec<u8>>> {
        let mut text = std::mem::take(&mut self.carry);
        let what = self.wrapper.label();
        while !self.done && (text.len() < self.window || memchr::memrchr(b'\n', &text).is_none()) {
            let step = if self.sniffed { INFLATE_STEP } else { SNIFF };
            self.sniffed = true;
            self.budget.inflate(step as u64, self.out, what)?;
            let before = text.len();
            (&mut self.reader)
                .take(step as u64)
                .read_to_end(&mut text)
                .map_err(|e| Self::failed(self.wrapper, self.out, e))?;
            let got = text.len() - before;
            self.out += got as u64;
            self.done = got < step;
        }
        if !self.done {
            let cut = memchr::memrchr(b'\n', &text).map_or(text.len(), |nl| nl + 1);
            self.carry = text[cut..].to_vec();
            text.truncate(cut);
        }
        Ok((!text.is_empty()).then_some(text))
    }
}

#[cfg(test)]
#[path = "wrapped_tests.rs"]
mod tests;
