//! Perfetto protobuf traces (formats.md §6): reading ([`read`]) and writing
//! ([`Writer`], an [`crate::EventSink`]), sharing one set of message definitions
//! ([`proto`], the subset in `schemas/perfetto/schedtrace_subset.proto`).

mod compact;
mod convert;
mod events;
pub mod proto;
mod read;
pub mod wire;
mod write;

pub use convert::{convert, Converted};
pub use read::read;
pub(crate) use read::read_tracked;
pub use write::{WriteStats, Writer, WriterOptions};
