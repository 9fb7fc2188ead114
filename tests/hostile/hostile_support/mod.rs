//! Running `schedtrace` on a hostile input with a deadline, and measuring what it cost: wall
//! time and the child's own peak RSS (from `wait4`, so tests running in parallel do not see
//! each other's children).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// What one run of the binary did.
pub struct Run {
    /// Exit status; `None` when it was killed at the deadline or by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub peak_rss_kib: u64,
    pub wall: Duration,
}

impl Run {
    /// Panics with everything the run printed unless it ended with `code`.
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "exit {:?} after {:?}, peak {} KiB\nstdout: {}\nstderr: {}",
            self.code,
            self.wall,
            self.peak_rss_kib,
            self.stdout,
            self.stderr
        );
        self
    }

    /// Panics unless the run stayed under `mib` MiB of peak RSS and `secs` seconds.
    pub fn expect_bounded(&self, mib: u64, secs: u64) -> &Run {
        assert!(
            self.peak_rss_kib <= mib * 1024,
            "peak RSS {} KiB over {mib} MiB\nstderr: {}",
            self.peak_rss_kib,
            self.stderr
        );
        assert!(
            self.wall <= Duration::from_secs(secs),
            "took {:?}, over {secs} s",
            self.wall
        );
        self
    }
}

/// Runs the binary with `args`, feeding `stdin` (if any), killing it after `deadline`.
pub fn run(args: &[&str], stdin: Option<Vec<u8>>, deadline: Duration) -> Run {
    let feed = stdin.map(|bytes| -> Box<dyn FnOnce(ChildStdin) + Send> {
        Box::new(move |mut pipe| {
            let _ = pipe.write_all(&bytes);
        })
    });
    run_fed(args, feed, deadline)
}

/// [`run`], its standard input written by `feed` on a thread of its own (an endless writer
/// stops at the write error that the reader's exit gives it).
pub fn run_fed(
    args: &[&str],
    feed: Option<Box<dyn FnOnce(ChildStdin) + Send>>,
    deadline: Duration,
) -> Run {
    // Reaped below by `wait4`, which gives its rusage too (clippy does not see that).
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedtrace"))
        .args(args)
        .stdin(if feed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn schedtrace");
    let start = Instant::now();
    let feeder = feed.map(|feed| {
        let pipe = child.stdin.take().unwrap();
        // A reader that stops early closes the pipe: the write error is expected then.
        std::thread::spawn(move || feed(pipe))
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data, written by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child; the pointers are to live locals.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert!(r == 0, "wait4 failed");
        if start.elapsed() > deadline {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let wall = start.elapsed();
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Run {
        code,
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
        peak_rss_kib: usage.ru_maxrss as u64,
        wall,
    }
}

/// A fresh scratch directory for one test's generated inputs.
pub fn scratch(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("schedtrace-hostile-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A shared reference trace, `.xz` undone; `None` (after saying so) when the traces are not
/// laid beside the clone — except under `CI=true`, where their absence fails the test.
pub fn shared_trace(rel: &str) -> Option<Vec<u8>> {
    let path = fixtures::trace(rel);
    if !path.exists() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{} is missing (CI must have the shared traces)",
            path.display()
        );
        eprintln!("skipped: {} is missing", path.display());
        return None;
    }
    let raw = std::fs::read(&path).unwrap();
    if rel.ends_with(".xz") {
        let mut out = Vec::new();
        xz2::read::XzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .unwrap();
        Some(out)
    } else {
        Some(raw)
    }
}

/// One ftrace text line of a `sched_switch` on CPU 0 at `ts` (`secs.micros`).
pub fn switch_line(ts: &str, prev: (&str, i32), state: &str, next: (&str, i32)) -> String {
    format!(
        "{:>16}-{:<5} [000] d..2. {ts}: sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={state} ==> next_comm={} next_pid={} next_prio=120\n",
        prev.0, prev.1, prev.0, prev.1, next.0, next.1
    )
}
