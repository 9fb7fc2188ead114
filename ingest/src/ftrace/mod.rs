//! Kernel tracing pieces shared by trace.dat, perf.data and raw tracefs inputs:
//! event `format` files, sched payload decoding, ring-buffer pages (formats.md §2-3).

pub mod decode;
pub mod endian;
mod field;
pub mod format;
pub mod page;
pub mod prev_state;
pub mod tracing_data;

pub use decode::{Decoded, Decoder};
pub use endian::{Endian, Reader};
pub use format::{parse_format, parse_header_page, EventFormat, Field, FieldKind, HeaderPage};
pub use page::{PageDecoder, PageItem, PageTally};
pub use prev_state::PrevStateDecoder;
pub use tracing_data::{parse_tracing_data, TracingData};
