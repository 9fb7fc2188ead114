//! A comparison ([`analysis::compare::Comparison`]) for people, in three layouts: fixed-width
//! text ([`text`], the default of `schedtrace compare`), the blocks scheduler patch mails
//! use ([`lkml`]) and GitHub / wiki tables ([`markdown`]). What they share — the blocks of
//! rows, the preamble, number formats, fitting runs into a width — is in `grid`. Each
//! row's unit and direction come from the column catalogue's compare tables
//! ([`analysis::columns::compare`]).

mod grid;
pub mod lkml;
pub mod markdown;
pub mod text;
pub mod why;

use analysis::columns::compare::Compared;

/// How a comparison is laid out.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Task metrics shown, one block each (empty: the default set).
    pub task_metrics: Vec<&'static Compared>,
    /// Every metric, and no width limit.
    pub wide: bool,
    /// Line width limit (ignored with `wide`).
    pub width: usize,
    /// The "Why" block (`--explain`; `lkml` shows it unless `--no-explain`).
    pub explain: bool,
}

impl Layout {
    fn width(&self) -> Option<usize> {
        (!self.wide).then_some(self.width.max(40))
    }
}
