//! Hostile and odd inputs run through the binary with a deadline and a peak-RSS bound.
//!
//! A test binary of its own, apart from `tests/schedtrace`: the peak RSS of a child comes from
//! `wait4`, and Linux counts in it the memory of the process that spawned it (`posix_spawn`
//! shares the parent's address space until `exec`, whose high-water mark the child keeps). In the
//! big end-to-end binary, with other tests holding whole reports, that is ~110 MB before the child
//! reads a byte; this small binary keeps the bound about the child.

mod convert_window;
mod hostile_inflate;
mod hostile_stream;
mod hostile_support;
mod hostile_time;
mod hostile_warnings;
mod wrapped_pipe;
