//! The recorder: `perf record` of the whole system, stamped with `CLOCK_MONOTONIC`.
//!
//! Why perf and not trace-cmd or tracefs directly: perf's ring buffers belong to its own
//! session, so a recording never resets or fights over the shared tracefs buffer another
//! tracer (a colleague's trace-cmd, a CI job) is using; it needs no function-tracing files,
//! which locked-down kernels refuse (trace-cmd 3.x resets them even for events only); and
//! `-k mono` stamps the events with the clock this process reads, so the task samples of the
//! sidecar line up with them. Its perf.data also carries the CPU topology, the kernel
//! release and per-CPU loss records, which the readers already take.
//!
//! perf starts with its events disabled (`-D -1`) and a control FIFO: the recording begins
//! when perf acknowledges `enable`, so nothing the command does is missed; it ends with
//! SIGINT, on which perf writes its header and exits. perf runs in its own process group, so
//! a Ctrl-C at the terminal reaches the command and this process, which then stops perf
//! itself, in order.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Per-CPU ring buffer size: perf's default (512 KiB) loses events under a wakeup storm, so
/// up to 16 MiB per CPU, within 256 MiB in all (perf locks this memory: a 256-CPU machine
/// gets 1 MiB per CPU, not 4 GiB). A power of two of pages, as perf requires.
fn mmap_size() -> String {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mib = (256 / cpus).clamp(1, 16);
    format!("{}M", 1usize << mib.ilog2())
}

/// A running `perf record`.
pub(crate) struct Perf {
    child: Child,
    /// perf's own messages (its stderr), read back for errors and the summary.
    log: PathBuf,
    dir: PathBuf,
}

/// `perf --version`, or an error saying how to get perf.
pub(crate) fn version() -> Result<String, String> {
    let out = Command::new("perf").arg("--version").output().map_err(|e| {
        format!("perf is needed to record and was not found ({e}): install it (Debian: apt-get install linux-perf)")
    })?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn mkfifo(path: &Path) -> Result<(), String> {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(format!(
            "{}: cannot make a FIFO: {}",
            path.display(),
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

impl Perf {
    /// Starts perf recording `events` into `output` and waits until its events are on.
    pub(crate) fn start(output: &Path, events: &[String]) -> Result<Perf, String> {
        let dir = std::env::temp_dir().join(format!("schedtrace-record.{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let (ctl, ack, log) = (dir.join("ctl"), dir.join("ack"), dir.join("perf.log"));
        for f in [&ctl, &ack] {
            let _ = std::fs::remove_file(f);
            mkfifo(f)?;
        }
        let stderr = File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut cmd = Command::new("perf");
        cmd.args(["record", "-a", "-k", "mono", "-D", "-1", "--control"])
            .arg(format!("fifo:{},{}", ctl.display(), ack.display()))
            .arg("-m")
            .arg(mmap_size())
            .arg("-o")
            .arg(output);
        for e in events {
            cmd.arg("-e").arg(e);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .process_group(0);
        let child = cmd.spawn().map_err(|e| format!("cannot start perf: {e}"))?;
        let mut perf = Perf { child, log, dir };
        perf.enable(&ctl, &ack)?;
        Ok(perf)
    }

    /// What perf wrote on its stderr so far.
    pub(crate) fn messages(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn failed(&mut self, what: &str) -> String {
        let status = self.child.try_wait().ok().flatten();
        format!(
            "perf {what}{}:\n{}",
            status.map(|s| format!(" ({s})")).unwrap_or_default(),
            self.messages().trim_end()
        )
    }

    /// Sends `enable` on the control FIFO and waits for perf's `ack` (perf opens the FIFOs
    /// once its events are set up, so both opens wait for it, watching that it lives).
    fn enable(&mut self, ctl: &Path, ack: &Path) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut ctl_file = loop {
            // Non-blocking: an open for writing fails (ENXIO) until perf opens it to read.
            match std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(ctl)
            {
                Ok(f) => break f,
                Err(_) if Instant::now() < deadline => {
                    if self.child.try_wait().ok().flatten().is_some() {
                        return Err(self.failed("stopped before recording"));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => {
                    self.stop_now();
                    return Err(format!("perf did not open its control FIFO in 30 s: {e}"));
                }
            }
        };
        let mut ack_file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(ack)
            .map_err(|e| format!("{}: {e}", ack.display()))?;
        ctl_file
            .write_all(b"enable\n")
            .map_err(|e| format!("{}: cannot tell perf to start: {e}", ctl.display()))?;
        let mut got = Vec::new();
        while !got.starts_with(b"ack") {
            let mut buf = [0u8; 16];
            match ack_file.read(&mut buf) {
                Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
                _ if Instant::now() >= deadline => {
                    self.stop_now();
                    return Err("perf did not acknowledge `enable` in 30 s".into());
                }
                _ => {
                    if self.child.try_wait().ok().flatten().is_some() {
                        return Err(self.failed("stopped before recording"));
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
        }
        Ok(())
    }

    fn stop_now(&mut self) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let _ = self.child.wait();
    }

    /// Whether perf stopped by itself (an error: it records until told).
    pub(crate) fn exited(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }

    /// Stops the recording: SIGINT, on which perf flushes its buffers, writes the header and
    /// exits. Returns perf's messages.
    pub(crate) fn stop(mut self) -> Result<String, String> {
        if !self.exited() {
            unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        }
        let status = self
            .child
            .wait()
            .map_err(|e| format!("waiting for perf: {e}"))?;
        let messages = self.messages();
        // perf exits 0 after SIGINT; another status means it did not finish the file.
        if !status.success() && !messages.contains("Captured and wrote") {
            return Err(format!("perf failed ({status}):\n{}", messages.trim_end()));
        }
        Ok(messages)
    }
}

impl Drop for Perf {
    fn drop(&mut self) {
        if !self.exited() {
            self.stop_now();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
