//! `perf.data`, file and pipe mode (formats.md §4).

use crate::{Error, EventSink, Ingested, Result};

pub fn read(_bytes: &[u8], _sink: &mut dyn EventSink) -> Result<Ingested> {
    Err(Error::whole("perf.data reader not built yet"))
}
