//! Damage a reader can step over — a corrupt ring-buffer page in a trace.dat, a perf.data
//! sample that fails its checks — is skipped and counted ([`Skipped`], per CPU with offset,
//! bytes and reason) rather than costing the whole trace; the CPU then reads like one that
//! lost events there (its tasks are unknown until their next switch). `--strict`
//! ([`set_strict`]) keeps the hard error at the first damage.

use std::sync::atomic::{AtomicBool, Ordering};

/// `--strict`: process-wide, a command-line setting for every input of the run.
static STRICT: AtomicBool = AtomicBool::new(false);

pub fn set_strict(strict: bool) {
    STRICT.store(strict, Ordering::Relaxed);
}

/// Whether damage is an error (`--strict`) rather than skipped.
pub fn strict() -> bool {
    STRICT.load(Ordering::Relaxed)
}

/// One stretch of input skipped as damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The CPU whose data it was (`None`: not known, e.g. a perf.data record).
    pub cpu: Option<u32>,
    /// Offset of the damage in the input (for compressed trace.dat data: of the chunk).
    pub offset: u64,
    pub bytes: u64,
    pub reason: String,
}
