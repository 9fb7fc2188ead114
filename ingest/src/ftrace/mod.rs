//! Kernel tracing pieces shared by trace.dat, perf.data and raw tracefs inputs:
//! event `format` files, sched payload decoding, ring-buffer pages (formats.md §2-3).
