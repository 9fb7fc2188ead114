//! The host facts a trace's events do not carry, read once when recording starts: the kernel
//! release, the tick rate (HZ), the scheduler's feature flags and tunables, and the CPU
//! topology with its caches (what `--topology host` reads).
//!
//! Each value says where it came from, and a value that could not be read says why (debugfs
//! not mounted, a locked-down kernel refusing a file) instead of being left out silently.

use analysis::recording::{Host, TopologyRecord};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

/// Where debugfs keeps the scheduler's files.
const DEBUG_SCHED: &str = "/sys/kernel/debug/sched";

/// Reads every host fact; never fails (what cannot be read is said in its `*_source`).
pub(crate) fn read() -> (Host, Option<TopologyRecord>) {
    let kernel_release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let (hz, hz_source) = hz(&kernel_release);
    let mounted = DebugFs::mount_if_absent();
    let (sched_features, mut sched_features_source) = features();
    let tunables = tunables();
    if let Some(note) = mounted.note() {
        sched_features_source = format!("{sched_features_source}; {note}");
    }
    drop(mounted);
    let host = Host {
        kernel_release,
        hz,
        hz_source,
        sched_features,
        sched_features_source,
        tunables,
    };
    let topology = analysis::topology_load::from_sysfs(Path::new("/sys/devices/system/cpu"))
        .ok()
        .map(|t| TopologyRecord::from_topology(&t));
    (host, topology)
}

/// debugfs, mounted by us for the scheduler's files when it was not (and unmounted again
/// when dropped, so the host is left as it was).
struct DebugFs {
    /// Whether we mounted it; the error when mounting failed.
    mounted: Result<bool, String>,
}

const DEBUGFS: &str = "/sys/kernel/debug";

impl DebugFs {
    fn mount_if_absent() -> DebugFs {
        if Path::new(DEBUG_SCHED).exists() || !Path::new(DEBUGFS).is_dir() {
            return DebugFs { mounted: Ok(false) };
        }
        let c = |s: &str| std::ffi::CString::new(s).expect("no NUL");
        let (src, dir, fs) = (c("debugfs"), c(DEBUGFS), c("debugfs"));
        // Read-only: we only read; nothing a mount could change.
        let r = unsafe {
            libc::mount(
                src.as_ptr(),
                dir.as_ptr(),
                fs.as_ptr(),
                libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            )
        };
        let mounted = if r == 0 {
            eprintln!(
                "schedtrace: debugfs was not mounted: mounted it read-only at {DEBUGFS} to read the \
                 scheduler's features and tunables (unmounted again when read)"
            );
            Ok(true)
        } else {
            Err(std::io::Error::last_os_error().to_string())
        };
        DebugFs { mounted }
    }

    /// What the sidecar says about the mount, when we tried one.
    fn note(&self) -> Option<String> {
        match &self.mounted {
            Ok(true) => Some(format!(
                "debugfs was not mounted: schedtrace record mounted it read-only at {DEBUGFS} to read this, and unmounted it"
            )),
            Ok(false) => None,
            Err(e) => Some(format!(
                "debugfs is not mounted and mounting it at {DEBUGFS} failed: {e}"
            )),
        }
    }
}

impl Drop for DebugFs {
    fn drop(&mut self) {
        if self.mounted == Ok(true) {
            let dir = std::ffi::CString::new(DEBUGFS).expect("no NUL");
            unsafe { libc::umount2(dir.as_ptr(), libc::MNT_DETACH) };
        }
    }
}

/// `CONFIG_HZ` of a kernel config's text.
fn config_hz(config: &str) -> Option<u32> {
    config
        .lines()
        .find_map(|l| l.strip_prefix("CONFIG_HZ="))
        .and_then(|v| v.trim().parse().ok())
}

/// HZ from the kernel's config (`/proc/config.gz`, else `/boot/config-RELEASE`), else
/// measured: the `jiffies` of `/proc/timer_list` over 200 ms, rounded to the nearest rate
/// the kernel offers.
fn hz(release: &str) -> (Option<u32>, String) {
    let mut config = String::new();
    let gz = std::fs::File::open("/proc/config.gz")
        .and_then(|f| flate2::read::GzDecoder::new(f).read_to_string(&mut config));
    if gz.is_ok() {
        if let Some(hz) = config_hz(&config) {
            return (Some(hz), "CONFIG_HZ in /proc/config.gz".into());
        }
    }
    let boot = format!("/boot/config-{release}");
    if let Some(hz) = std::fs::read_to_string(&boot)
        .ok()
        .as_deref()
        .and_then(config_hz)
    {
        return (Some(hz), format!("CONFIG_HZ in {boot}"));
    }
    match measured_hz() {
        Some((hz, rate)) => (
            Some(hz),
            format!("measured: /proc/timer_list jiffies advanced {rate:.0}/s over 200 ms (no kernel config readable)"),
        ),
        None => (
            None,
            "unknown: no kernel config (/proc/config.gz, /boot) and /proc/timer_list unreadable".into(),
        ),
    }
}

fn jiffies() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/timer_list").ok()?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("jiffies:"))
        .and_then(|v| v.trim().parse().ok())
}

fn measured_hz() -> Option<(u32, f64)> {
    let (j0, t0) = (jiffies()?, Instant::now());
    std::thread::sleep(Duration::from_millis(200));
    let (j1, t1) = (jiffies()?, Instant::now());
    let rate = j1.checked_sub(j0)? as f64 / (t1 - t0).as_secs_f64();
    let hz = [100u32, 250, 300, 1000].into_iter().min_by(|a, b| {
        (*a as f64 - rate)
            .abs()
            .total_cmp(&(*b as f64 - rate).abs())
    })?;
    Some((hz, rate))
}

/// The scheduler's feature flags (debugfs `sched/features`, one line of words).
fn features() -> (Option<Vec<String>>, String) {
    let path = format!("{DEBUG_SCHED}/features");
    match std::fs::read_to_string(&path) {
        Ok(text) => (
            Some(text.split_whitespace().map(str::to_string).collect()),
            path,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (
            None,
            format!(
                "{path} is absent: debugfs is not mounted (mount -t debugfs none /sys/kernel/debug) \
                 or the kernel has no CONFIG_SCHED_DEBUG"
            ),
        ),
        Err(e) => (None, format!("{path}: refused: {e}")),
    }
}

/// Scheduler tunables: sysctl `kernel.sched_*` and debugfs `sched/*` single values, by file.
fn tunables() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (dir, prefix) in [("/proc/sys/kernel", "sched_"), (DEBUG_SCHED, "")] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if !name.starts_with(prefix) || !path.is_file() || name == "features" {
                continue;
            }
            // Only one-line values: debugfs also holds tables (debug, numa) not tunables.
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let value = text.trim();
            if !value.is_empty() && !value.contains('\n') && value.len() <= 64 {
                out.insert(path.display().to_string(), value.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_hz_is_read_from_the_config_text() {
        assert_eq!(
            config_hz("# x\nCONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"),
            Some(1000)
        );
        assert_eq!(config_hz("CONFIG_HZ_250=y\n"), None);
    }

    /// On this machine's kernel: whatever HZ says, its source is named, and a config that
    /// is readable gives the same rate as the tick measured.
    #[test]
    fn hz_names_its_source() {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let (hz, source) = hz(release.trim());
        assert!(!source.is_empty());
        if let (Some(hz), Some((measured, _))) = (hz, measured_hz()) {
            assert_eq!(hz, measured, "{source}");
        }
    }
}
