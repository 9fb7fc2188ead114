//! Trace text: ftrace `trace`, `trace-cmd report`, `perf script` (formats.md §5).

use crate::{Error, EventSink, Ingested, Result};

pub fn read(_bytes: &[u8], _sink: &mut dyn EventSink) -> Result<Ingested> {
    Err(Error::whole("text reader not built yet"))
}
