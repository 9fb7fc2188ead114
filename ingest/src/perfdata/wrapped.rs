//! A pipe-mode perf.data in a whole-file wrapper (`perf record -o - | zstd > run.data.zst`),
//! read as it inflates: the wrapper's decoder is the stream the pipe reader already reads
//! standard input from ([`super::read_stream_tracked`]), so only the records of about two
//! rounds are held, never the inflated file. Inflation draws on the input's budget like every
//! other inflation, so a bomb stops with the limit named.

use crate::inflate::Budgeted;
use crate::progress::Tracker;
use crate::source::{decoder, Counted, Wrapper};
use crate::{Error, EventSink, Ingested, Result};

/// Reads the pipe-mode perf.data that `wrapper` holds in `raw` into `sink`, on a second thread
/// (as the pipe on standard input is read). `progress` counts the compressed bytes taken.
pub(crate) fn read(
    raw: &[u8],
    wrapper: Wrapper,
    sink: &mut dyn EventSink,
    progress: &Tracker,
) -> Result<Ingested> {
    let budget = progress.budget();
    budget.read(raw.len() as u64);
    // The framing reports inflated offsets, which are no part of this input's compressed total:
    // it counts into a progress nobody looks at (the compressed bytes are counted as taken).
    let plain = crate::Progress::new();
    let framing =
        Tracker::with_options(&plain, progress.options()).with_marks(progress.marks().clone());
    let read = |sink: &mut dyn EventSink| {
        let inflating = decoder(wrapper, Counted::new(raw, progress))
            .map_err(|e| Error::whole(format!("{} decompression failed: {e}", wrapper.name())))?;
        let stream = Budgeted::new(inflating, &budget, wrapper.label());
        super::read_stream_tracked(Vec::new(), stream, sink, &framing)
    };
    let got = if progress.options().one_thread {
        read(sink)
    } else {
        crate::relay::run(read, sink)
    };
    got.map_err(|e| match progress.progress().check() {
        Err(cancelled) => cancelled,
        Ok(()) => e,
    })
}
