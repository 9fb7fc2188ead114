//! Scheduler metrics from the normalized event stream (`docs/metrics.md` §1–4, §9).
//!
//! Data flows one way: events → task timelines ([`timeline`]) and CPU states ([`cpu`])
//! in one pass ([`Analyzer`], an [`ingest::EventSink`]) → [`Report`] ([`report`]) →
//! shaped for the user ([`select`]) → text ([`text`]) or JSON (serde).
//!
//! ```no_run
//! let mut analyzer = analysis::Analyzer::new(analysis::Config::default());
//! let ingested = ingest::read_path("trace.dat".as_ref(), &mut analyzer).unwrap();
//! let report = analyzer.finish(&ingested, "trace.dat");
//! print!("{}", analysis::text::render(&report, &analysis::text::TextOptions::default()));
//! ```

pub mod analyzer;
pub mod cpu;
mod finish;
pub mod report;
pub mod scope;
pub mod select;
pub mod stats;
pub mod text;
pub mod timeline;

pub use analyzer::Analyzer;
pub use report::{CpuRow, Quality, Report, Source, TaskRow, Window};
pub use select::{CommFilter, GroupBy, Selection, SortKey};
pub use stats::{Samples, Stats};
pub use text::TextOptions;

/// What to analyze.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// `--time`: ns, inclusive start, exclusive end. Intervals are clipped to it and
    /// counts taken only for events inside it; state before it is still tracked.
    pub time_window: Option<(u64, u64)>,
    /// `-C`: only these CPUs in the per-CPU table, and only task time on them.
    pub cpus: Option<Vec<u32>>,
}
