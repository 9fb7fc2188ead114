//! `schedtrace tui` in a real terminal: tmux drives the binary on a private socket
//! (`escape-time 0` so Esc is Esc, `remain-on-exit on` so the exit status can be read),
//! polling the screen instead of sleeping a fixed time. Under CI a missing tmux fails the
//! test; elsewhere it is skipped with a message.

use crate::support::shared;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A tmux server of our own, killed when the test ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    fn format(&self, what: &str) -> String {
        let out = self.run(&["display-message", "-p", "-t", "t", what]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Polls until `ready` holds for the screen (or fails after a generous deadline).
    fn wait(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn compare_three_kernels_then_browse_resize_and_quit() {
    if !tmux_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is missing under CI (.ci/run installs it)"
        );
        eprintln!("skipped: tmux is not installed (apt-get install tmux)");
        return;
    }
    let tmux = Tmux {
        socket: format!("schedtrace-test-{}", std::process::id()),
    };
    // The exit status goes through a file: tmux does not always learn a dead pane's status
    // (seen here: `pane_dead` 1 with an empty `pane_dead_status` in about half the runs).
    let status_file =
        std::env::temp_dir().join(format!("schedtrace-tui-status-{}", std::process::id()));
    let _ = std::fs::remove_file(&status_file);
    let command = format!(
        "sh -c '{} tui cfs={} eevdf={} pds={},{}; echo $? > {}'",
        env!("CARGO_BIN_EXE_schedtrace"),
        shared("cfs-6.1-vm/mi/trace-v6.dat.xz"),
        shared("eevdf-6.12-vm/mi/trace-v6.dat.xz"),
        shared("pds-6.1-vm/mi/trace-v6.dat.xz"),
        shared("pds-6.1-vm/mi-repeat/trace-v6.dat.xz"),
        status_file.display(),
    );
    // The server starts with a shell; the options are set before the program starts.
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50"]);
    tmux.run(&["set-option", "-s", "escape-time", "0"]);
    tmux.run(&["set-option", "-g", "remain-on-exit", "on"]);
    tmux.run(&["respawn-pane", "-k", "-t", "t", &command]);

    tmux.wait("the comparison", |s| {
        s.contains("+54.9 ^") || s.contains("wakeup latency p50")
    });
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "1",
        "the TUI runs on the alternate screen"
    );
    tmux.keys(&["1"]);
    tmux.wait("the overview", |s| s.contains("Jain's index"));
    tmux.keys(&["2"]);
    tmux.wait("the tasks", |s| {
        s.contains("task:pid") && s.contains("rows")
    });
    tmux.keys(&["/", "mi-work", "Enter"]);
    tmux.wait("the filtered tasks", |s| s.contains("filter /mi-work"));
    tmux.keys(&["?"]);
    tmux.wait("the help", |s| s.contains("keys (Esc closes)"));
    tmux.keys(&["Escape"]);
    tmux.wait("the help closed", |s| !s.contains("keys (Esc closes)"));
    // A task's detail says why it waited; O goes to the timeline behind its first occupant.
    tmux.keys(&["Enter"]);
    tmux.wait("the detail's wait causes", |s| s.contains("why it waited:"));
    tmux.keys(&["O"]);
    tmux.wait("the timeline", |s| {
        s.contains("· cursor ") && s.contains("CPU 1")
    });
    tmux.keys(&["2"]);
    tmux.run(&["resize-window", "-t", "t", "-x", "80", "-y", "24"]);
    tmux.wait("80×24", |s| {
        s.lines().count() <= 24 && s.contains("task:pid")
    });
    tmux.run(&["resize-window", "-t", "t", "-x", "30", "-y", "8"]);
    tmux.wait("too small", |s| s.contains("terminal too small"));
    tmux.run(&["resize-window", "-t", "t", "-x", "160", "-y", "50"]);
    tmux.wait("back to 160×50", |s| s.contains("task:pid"));
    tmux.keys(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = || std::fs::read_to_string(&status_file).unwrap_or_default();
    while tmux.format("#{pane_dead}") != "1" || status().trim().is_empty() {
        assert!(
            Instant::now() < deadline,
            "the TUI did not exit on q:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(status().trim(), "0", "exit status of the TUI");
    let _ = std::fs::remove_file(&status_file);
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "0",
        "the alternate screen is left"
    );
}
