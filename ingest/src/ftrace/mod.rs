//! Kernel tracing pieces shared by trace.dat, perf.data and raw tracefs inputs:
//! event `format` files, sched payload decoding, ring-buffer pages (formats.md §2-3).

pub(crate) mod decode;
pub(crate) mod endian;
mod field;
pub(crate) mod format;
pub(crate) mod page;
pub(crate) mod prev_state;
pub(crate) mod tracing_data;

pub(crate) use decode::{Decoded, Decoder};
pub(crate) use endian::{Endian, Reader};
pub(crate) use format::{EventFormat, HeaderPage};
pub(crate) use page::{PageDecoder, PageItem};
pub(crate) use prev_state::PrevStateDecoder;
pub(crate) use tracing_data::{parse_tracing_data, TracingData};
