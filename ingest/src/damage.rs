//! Damage a reader can step over — a corrupt ring-buffer page in a trace.dat, a perf.data
//! sample that fails its checks — is skipped and counted ([`Skipped`], per CPU with offset,
//! bytes and reason) rather than costing the whole trace; the CPU then reads like one that
//! lost events there (its tasks are unknown until their next switch). `--strict`
//! ([`crate::ReadOptions::strict`]) keeps the hard error at the first damage.

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
