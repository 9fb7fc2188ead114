//! The per-run settings of a read: `--strict` and `--max-inflate`. They are carried with each
//! input (in [`crate::progress::Tracker`], which every reader already threads to where damage
//! is met and bytes inflate), never held process-wide, so that `compare` and `export` with
//! several inputs, the TUI and tests in one process cannot leak one run's settings into another.

/// How one read treats damage and inflation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// `--strict`: the first damaged page or record is an error, instead of being skipped and
    /// counted in the ledger ([`crate::damage::Skipped`]).
    pub strict: bool,
    /// `--max-inflate`: the total bytes one input may inflate to; `None`: the default rule of
    /// [`crate::inflate::Budget`] (a floor plus a multiple of the compressed bytes read).
    pub max_inflate: Option<u64>,
    /// Decode on the caller's thread alone, interleaved with its sink, instead of on a second
    /// thread that hands the sink ordered batches (perf.data, trace.dat). The events, their
    /// order and the ledger are the same either way (a test holds the two to the same report);
    /// one thread suits a caller that already runs one read per core.
    pub one_thread: bool,
}
