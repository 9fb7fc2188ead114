//! `schedtrace record`'s arguments: a command to record, or a time.

use super::parse_duration;
use clap::Parser;
use std::ffi::OsString;
use std::path::PathBuf;

pub const LONG_ABOUT: &str = "Record the scheduler events of the whole system while COMMAND runs \
                      (or for --duration, or until Ctrl-C), with what the events lack kept beside the \
                      trace in FILE.schedtrace.json: every task's allowed CPUs, nice, policy and cgroup \
                      (sampled from /proc), the CPU topology and caches, HZ, and the scheduler's feature \
                      flags and tunables. `analyze`, `compare`, `tui` and `export` find that file by \
                      themselves.\n\n\
                      The recorder is perf (`perf record -a -k mono`): its buffers are its own, so it \
                      never resets the shared tracefs buffer another tracer is using; it needs none of \
                      the function-tracing files that locked-down kernels refuse; and its CLOCK_MONOTONIC \
                      timestamps line up with the task samples. Needs root, a mounted tracefs and perf.";

pub const AFTER_HELP: &str = "Examples:\n  schedtrace record -- ./benchmark --threads 4\n  \
                      schedtrace record -o idle.perf.data --duration 10s\n  \
                      schedtrace record -o pinned.perf.data -- taskset -c 1 ./spin\n  \
                      schedtrace analyze schedtrace.perf.data\n\n\
                      Exit status: the command's (128+N when signal N ended it); 0 after --duration; \
                      130 after Ctrl-C; 2 when recording could not start or had to stop (not root, \
                      tracefs not mounted, perf missing or refused, no space left): the message says \
                      which and what to do.";

#[derive(Parser, Debug)]
pub struct RecordArgs {
    /// The trace to write (perf.data); its sidecar is FILE.schedtrace.json
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        default_value = "schedtrace.perf.data"
    )]
    pub output: PathBuf,

    /// Stop after this long, e.g. 10s, 500ms (with a command: at whichever comes first)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<u64>,

    /// How often every task's allowed CPUs, nice, policy and cgroup are read from /proc
    /// (each task is also read as it forks and execs, where the kernel reports those)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "100ms")]
    pub sample_every: u64,

    /// Also record irq and softirq entry and exit
    #[arg(long)]
    pub irq: bool,

    /// No progress on stderr (events and MiB written so far, and the events lost on each CPU
    /// as they happen: redrawn every second on a terminal; else a line after 1 s, every 10 s
    /// and whenever losses grow)
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// The command to run and record until it exits (after `--`)
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

impl RecordArgs {
    pub fn options(&self) -> record::Options {
        record::Options {
            output: self.output.clone(),
            duration: self.duration.map(std::time::Duration::from_nanos),
            command: self.command.clone(),
            sample_interval: std::time::Duration::from_nanos(self.sample_every.max(1_000_000)),
            irq: self.irq,
            quiet: self.quiet,
        }
    }
}
