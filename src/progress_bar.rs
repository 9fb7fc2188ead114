//! The progress line on stderr while inputs load: bytes and events read, rate, ETA.
//!
//! Drawn by indicatif from a [`ingest::Progress`] that the readers move forward; a thread of
//! ours copies the counters into the bar ten times a second, so the readers never wait on the
//! terminal. Only when stderr is a terminal and `--quiet` is not given: a redirected stderr or
//! a script gets nothing, and stdout is never touched. The bar is cleared before the report
//! is printed.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ingest::Progress;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often the bar is refreshed from the counters.
const TICK: Duration = Duration::from_millis(100);

/// A progress line being drawn; dropping it stops the drawing and erases the line.
pub struct Shown {
    stop: Arc<AtomicBool>,
    drawer: Option<JoinHandle<()>>,
}

/// Starts drawing `progress` on stderr, unless `quiet` or stderr is not a terminal.
pub fn show(progress: &Arc<Progress>, quiet: bool) -> Option<Shown> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let drawer = {
        let progress = Arc::clone(progress);
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || draw(&progress, &stop))
    };
    Some(Shown {
        stop,
        drawer: Some(drawer),
    })
}

impl Drop for Shown {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(drawer) = self.drawer.take() {
            let _ = drawer.join();
        }
    }
}

fn draw(progress: &Progress, stop: &AtomicBool) {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let mut sized = None;
    loop {
        let total = progress.total();
        if sized != Some(total.is_some()) {
            sized = Some(total.is_some());
            bar.set_style(style(total.is_some()));
        }
        if let Some(total) = total {
            bar.set_length(total);
        }
        bar.set_position(progress.bytes());
        bar.set_message(format!("{} events", thousands(progress.events())));
        if stop.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(TICK);
    }
    bar.finish_and_clear();
}

/// With a known total: a bar and the ETA; without (a pipe): what has come so far.
fn style(sized: bool) -> ProgressStyle {
    let template = if sized {
        "{spinner} reading [{bar:24}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec}, \
         ETA {eta}, {msg}"
    } else {
        "{spinner} reading {binary_bytes} {binary_bytes_per_sec}, {msg}"
    };
    ProgressStyle::with_template(template)
        .expect("a valid template")
        .progress_chars("=> ")
}

/// `1234567` as `1,234,567` (indicatif's `{human_pos}` would count bytes, not events).
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_by_three() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1000), "1,000");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
