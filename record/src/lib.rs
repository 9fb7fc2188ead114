//! `schedtrace record`: one command that captures a run with everything the analysis needs.
//!
//! It checks what a recording needs and says what is missing in words a user can act on
//! ([`preflight`]), reads the host facts the events lack ([`host`]), starts the recorder
//! ([`perf`], which says why perf), runs the command (or waits for the time), samples every
//! task's allowed CPUs, nice, policy and cgroup while it runs ([`tasks`]), stops cleanly on
//! Ctrl-C, SIGTERM, the end of the command or the time, or a disk about to fill, and then
//! writes the sidecar (`analysis::recording`) and a summary of what was recorded and lost,
//! read back from the file as `analyze` reads it ([`summary`]).

mod host;
mod perf;
mod preflight;
mod proc_events;
mod summary;
mod tasks;

use analysis::recording::{sidecar_path, Recorder, Recording, FORMAT_VERSION};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// What to record.
#[derive(Debug, Clone)]
pub struct Options {
    /// The trace (perf.data); its sidecar goes beside it.
    pub output: PathBuf,
    /// Stop after this long (the whole system is recorded either way).
    pub duration: Option<Duration>,
    /// The command to run and record until it exits; empty: record until the time or Ctrl-C.
    pub command: Vec<OsString>,
    /// How often every task's attributes are read from /proc.
    pub sample_interval: Duration,
    /// Also irq and softirq entry and exit.
    pub irq: bool,
    /// No progress line.
    pub quiet: bool,
}

/// Stop recording when the output's file system has less free space than this: perf then
/// still has room to flush its buffers and write its header, so the file stays valid.
const MIN_FREE_BYTES: u64 = 64 << 20;

/// The signal that asked us to stop (0: none yet).
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    STOP_SIGNAL.store(signal, Ordering::SeqCst);
}

fn catch_stop_signals() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        unsafe { libc::signal(s, handler) };
    }
}

/// The trace clock's now: `CLOCK_MONOTONIC`, what `perf record -k mono` stamps events with.
fn monotonic_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Why the recording stopped.
#[derive(Debug, PartialEq)]
enum Stop {
    CommandExited(i32),
    Duration,
    Signal(i32),
    DiskFull(u64),
    RecorderDied,
}

/// Records, prints the summary, and returns the exit status to leave with: the command's
/// (128 + N when a signal N ended it), 0 after a time, 130 after Ctrl-C. Errors are for
/// exit status 2 and say what to do.
pub fn run(o: &Options) -> Result<u8, String> {
    let plan = preflight::check(o)?;
    for missing in &plan.missing {
        eprintln!("schedtrace: warning: this kernel has no {missing} event: recording the rest");
    }
    let (host, topology) = host::read();
    catch_stop_signals();
    let started = Instant::now();
    let perf = perf::Perf::start(&o.output, &plan.events)?;
    let start_ns = monotonic_ns();
    let mut sampler = tasks::Sampler::default();
    // Before the first scan: a task forked meanwhile is read by one or the other.
    let new_tasks = tasks::watch_new_tasks(monotonic_ns);
    sampler.scan(start_ns);
    let mut child = match o.command.split_first() {
        Some((program, args)) => Some(spawn(program, args)?),
        None => None,
    };
    let mut perf = perf;
    let terminal = std::io::stderr().is_terminal();
    let progress = !o.quiet && terminal;
    // What perf wrote so far: events, bytes and losses per CPU, as they happen.
    let mut written = ingest::perfdata::Growing::default();
    let mut lost_said = 0;
    // Not a terminal (a log): a line after 1 s, then every 10 s, and whenever losses grow.
    let mut next_log = Instant::now() + Duration::from_secs(1);
    let mut next_sample = Instant::now() + o.sample_interval;
    let mut next_draw = Instant::now();
    let (mut signalled, mut forwarded) = (None, false);
    let stop = loop {
        if let Some(c) = &mut child {
            if let Some(status) = exited_unreaped(c) {
                // Still a zombie: its own attributes can be read once more before it goes.
                sampler.scan_one(monotonic_ns(), c.id() as i32);
                let _ = c.wait();
                break Stop::CommandExited(status);
            }
        }
        let signal = STOP_SIGNAL.load(Ordering::SeqCst);
        if signal != 0 {
            let since = *signalled.get_or_insert_with(Instant::now);
            match &child {
                // A Ctrl-C at the terminal reached the command too: let it end by itself.
                // `kill -INT` of this process alone did not: after 300 ms pass it on, once,
                // then wait up to 5 s more.
                Some(c) if !forwarded && since.elapsed() >= Duration::from_millis(300) => {
                    forwarded = true;
                    unsafe { libc::kill(c.id() as i32, signal) };
                }
                Some(_) if since.elapsed() < Duration::from_secs(5) => {}
                _ => break Stop::Signal(signal),
            }
        }
        if o.duration.is_some_and(|d| started.elapsed() >= d) {
            break Stop::Duration;
        }
        if perf.exited() {
            break Stop::RecorderDied;
        }
        if let Some(free) = preflight::free_bytes(&o.output).filter(|&f| f < MIN_FREE_BYTES) {
            break Stop::DiskFull(free);
        }
        for (ts, tid, attrs) in new_tasks.iter().flat_map(|rx| rx.try_iter()) {
            sampler.seen(ts, tid, attrs);
        }
        if Instant::now() >= next_sample {
            sampler.scan(monotonic_ns());
            next_sample += o.sample_interval;
        }
        if !o.quiet && Instant::now() >= next_draw {
            let _ = written.update(&o.output);
            let lost: u64 = written.lost.values().sum();
            if terminal {
                draw(started, &written, sampler.live());
            } else if lost > lost_said || Instant::now() >= next_log {
                eprintln!("{}", progress_line(started, &written, sampler.live()));
                next_log = Instant::now() + Duration::from_secs(10);
            }
            lost_said = lost;
            next_draw += Duration::from_secs(1);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let end_ns = monotonic_ns();
    sampler.finish(end_ns);
    if progress {
        eprint!("\r\x1b[K");
    }
    let messages = match stop {
        Stop::RecorderDied => {
            return Err(format!(
                "perf stopped while recording:\n{}",
                perf.messages().trim_end()
            ))
        }
        _ => perf.stop()?,
    };
    let recording = Recording {
        schedtrace_recording: FORMAT_VERSION,
        trace: o
            .output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        clock: "monotonic".into(),
        recorder: Recorder {
            tool: "perf".into(),
            version: plan.perf_version.clone(),
            events: plan.events.clone(),
            missing_events: plan.missing.clone(),
            command: o
                .command
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
        },
        start_ns,
        end_ns,
        host,
        topology,
        sample_interval_ns: o.sample_interval.as_nanos() as u64,
        tasks: sampler.samples,
    };
    let sidecar = write_sidecar(&o.output, &recording)?;
    summary::print(
        &o.output,
        &sidecar,
        &recording,
        &messages,
        started.elapsed(),
    );
    // A child that a forwarded signal did not end is left running, and said so.
    if let Some(c) = &mut child {
        if matches!(stop, Stop::Signal(_) | Stop::Duration | Stop::DiskFull(_))
            && c.try_wait().ok().flatten().is_none()
        {
            eprintln!(
                "schedtrace: the command (pid {}) is still running; it is no longer recorded",
                c.id()
            );
        }
    }
    match stop {
        Stop::CommandExited(status) => Ok(status as u8),
        Stop::Duration => Ok(0),
        Stop::Signal(s) => Ok(128 + s as u8),
        Stop::DiskFull(free) => Err(format!(
            "{}: no space left: stopped with {} MiB free so that the trace stays valid; it holds what was recorded until then",
            o.output.display(),
            free >> 20
        )),
        Stop::RecorderDied => unreachable!("returned above"),
    }
}

fn spawn(program: &OsString, args: &[OsString]) -> Result<Child, String> {
    Command::new(program)
        .args(args)
        .spawn()
        .map_err(|e| format!("{}: cannot run: {e}", program.to_string_lossy()))
}

/// The command's exit status (128 + signal) when it has exited, without reaping it.
fn exited_unreaped(child: &Child) -> Option<i32> {
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    let r = unsafe { libc::waitid(libc::P_PID, child.id() as libc::id_t, &mut info, flags) };
    if r != 0 || unsafe { info.si_pid() } == 0 {
        return None;
    }
    let status = unsafe { info.si_status() };
    Some(match info.si_code {
        libc::CLD_EXITED => status,
        _ => 128 + status,
    })
}

/// `schedtrace record: 3.0 s, 12345 events, 4.1 MiB, 17 tasks sampled, lost: CPU 1 225`.
fn progress_line(started: Instant, w: &ingest::perfdata::Growing, tasks: usize) -> String {
    let lost = if w.lost.values().all(|&n| n == 0) {
        "none".to_string()
    } else {
        w.lost
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(cpu, n)| match cpu {
                Some(c) => format!("CPU {c} {n}"),
                None => format!("CPU ? {n}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "schedtrace record: {:.1} s, {} events, {:.1} MiB, {tasks} tasks sampled, lost: {lost}",
        started.elapsed().as_secs_f64(),
        w.samples,
        w.bytes as f64 / (1 << 20) as f64
    )
}

fn draw(started: Instant, w: &ingest::perfdata::Growing, tasks: usize) {
    eprint!(
        "\r\x1b[K{} (Ctrl-C stops)",
        progress_line(started, w, tasks)
    );
    let _ = std::io::stderr().flush();
}

/// Writes the sidecar beside `trace` (to a `.partial` file renamed when whole).
fn write_sidecar(trace: &Path, recording: &Recording) -> Result<PathBuf, String> {
    let path = sidecar_path(trace);
    let mut partial = path.clone().into_os_string();
    partial.push(".partial");
    let json = serde_json::to_string_pretty(recording).map_err(|e| e.to_string())?;
    std::fs::write(&partial, json + "\n")
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            format!(
                "{}: cannot write the recording's sidecar: {e} (the trace {} is complete; \
                 without its sidecar it is analysed with affinity unknown)",
                path.display(),
                trace.display()
            )
        })?;
    Ok(path)
}
