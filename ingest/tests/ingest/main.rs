//! The ingest crate against real traces of every format: counts, fields, bad input, progress.
//!
//! One test binary for the crate, each file a module, so that the dependencies are linked
//! once instead of once per file (a fresh clone builds its tests in a fraction of the time).

mod perfdata_bad_input;
mod perfdata_common;
mod perfdata_counts;
mod perfdata_samples;
mod perfdata_stream;
mod perfdata_topology;
mod perfetto_convert;
mod perfetto_decode;
mod perfetto_errors;
mod perfetto_roundtrip;
mod perfetto_schema;
mod perfetto_sequences;
mod progress;
mod read_options;
mod schedviz;
mod text_bad_input;
mod text_common;
mod text_fields;
mod text_ftrace_fixture;
mod text_odd_lines;
mod text_real;
mod text_speed;
mod tracedat_bad_input;
mod tracedat_common;
mod tracedat_counts;
mod tracedat_garbage_page;
mod tracedat_values;
mod tracedat_zlib;
