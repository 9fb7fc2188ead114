//! What a recording needs, checked before anything starts, each failure said in words a
//! user can act on: root, a mounted tracefs (perf reads the events' formats there), perf
//! itself, a writable output with room; and which events this kernel has (a missing one is
//! left out with a warning, unless it is `sched_switch`, without which nothing can be said).

use crate::Options;
use std::path::{Path, PathBuf};

/// The scheduler events every recording asks for, then the ones taken where the kernel has them.
const SCHED_EVENTS: &[&str] = &[
    "sched:sched_switch",
    "sched:sched_waking",
    "sched:sched_wakeup",
    "sched:sched_wakeup_new",
    "sched:sched_migrate_task",
    "sched:sched_process_fork",
    "sched:sched_process_exec",
    "sched:sched_process_exit",
    "sched:sched_process_free",
    "power:cpu_idle",
    "power:cpu_frequency",
];

/// `--irq`.
const IRQ_EVENTS: &[&str] = &[
    "irq:irq_handler_entry",
    "irq:irq_handler_exit",
    "irq:softirq_entry",
    "irq:softirq_exit",
];

/// What was found: the events to record, those missing, perf's version.
pub(crate) struct Plan {
    pub(crate) events: Vec<String>,
    pub(crate) missing: Vec<String>,
    pub(crate) perf_version: String,
}

/// Where tracefs is mounted, if anywhere.
fn tracefs() -> Option<PathBuf> {
    ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.join("events").is_dir())
}

pub(crate) fn check(o: &Options) -> Result<Plan, String> {
    if unsafe { libc::geteuid() } != 0 {
        return Err(
            "record needs root: perf traces every CPU's scheduler events, which only root may \
                    (run it with sudo)"
                .into(),
        );
    }
    let Some(tracefs) = tracefs() else {
        return Err(
            "tracefs is not mounted (perf reads the events' formats from it): mount it with \
                    `mount -t tracefs nodev /sys/kernel/tracing`"
                .into(),
        );
    };
    let perf_version = crate::perf::version()?;
    let mut events = Vec::new();
    let mut missing = Vec::new();
    let wanted = SCHED_EVENTS
        .iter()
        .chain(if o.irq { IRQ_EVENTS } else { &[] });
    for &event in wanted {
        let (system, name) = event.split_once(':').unwrap_or(("", event));
        match tracefs
            .join("events")
            .join(system)
            .join(name)
            .join("format")
        {
            p if p.is_file() => events.push(event.to_string()),
            _ => missing.push(event.to_string()),
        }
    }
    if missing.iter().any(|e| e == "sched:sched_switch") {
        return Err(format!(
            "{}: this kernel has no sched_switch event: nothing to record",
            tracefs.join("events/sched").display()
        ));
    }
    writable(&o.output)?;
    if let Some(free) = free_bytes(&o.output).filter(|&f| f < crate::MIN_FREE_BYTES) {
        return Err(format!(
            "{}: no space left to record: {} MiB free, {} MiB needed at least",
            o.output.display(),
            free >> 20,
            crate::MIN_FREE_BYTES >> 20
        ));
    }
    Ok(Plan {
        events,
        missing,
        perf_version,
    })
}

/// Fails, naming the file, when `output` cannot be written (tried with a scratch file beside
/// it, so that an existing trace is not touched before perf replaces it).
fn writable(output: &Path) -> Result<(), String> {
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let probe = dir.join(format!(".schedtrace-record.{}", std::process::id()));
    std::fs::write(&probe, b"")
        .map_err(|e| format!("{}: cannot write the trace there: {e}", output.display()))?;
    let _ = std::fs::remove_file(&probe);
    if output.is_dir() {
        return Err(format!(
            "{}: is a directory; give a file name with -o",
            output.display()
        ));
    }
    Ok(())
}

/// Free bytes on the file system that holds `output` (None when not known).
pub(crate) fn free_bytes(output: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return None;
    }
    Some(s.f_bavail as u64 * s.f_frsize as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unwritable_output_is_named() {
        let err = writable(Path::new("/proc/no-such-dir/run.perf.data")).unwrap_err();
        assert!(
            err.starts_with("/proc/no-such-dir/run.perf.data: cannot write"),
            "{err}"
        );
        let dir = std::env::temp_dir();
        assert!(writable(&dir).unwrap_err().contains("is a directory"));
        assert!(free_bytes(&dir.join("x")).is_some_and(|f| f > 0));
    }
}
