//! Every task's scheduling attributes, sampled from `/proc` while recording: its allowed CPUs
//! (`Cpus_allowed_list`), nice, policy, real-time priority, and its cgroup with `cpu.weight`
//! and `cpu.max`. `sched_setaffinity`, `setpriority` and a cgroup move leave no scheduler
//! event, so a sampler is the only way to have them with the trace.
//!
//! A sample keeps a task's attributes only when it is first seen and when any of them
//! changed since the last sample (`why` = `first` / `change`); a task gone since the last
//! scan gets its last values again as `last`, as does every task still there at the end. A
//! task that lives and dies between two scans is never seen: the analysis then treats its
//! affinity as unknown (documented in docs/guide.md, "How to record"). Between the scans,
//! [`watch_new_tasks`] reads each task as it forks and execs (the kernel's process events),
//! so that a short-lived process is seen too.

use analysis::recording::TaskSample;
use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc::{Receiver, Sender};

/// Reads every task that forks or execs, as it does (a thread blocked on the kernel's
/// process events; `now` stamps each read in the trace's clock); None where the kernel
/// offers no process events. The thread ends when the receiver is dropped.
pub(crate) fn watch_new_tasks(now: fn() -> u64) -> Option<Receiver<(u64, i32, Attrs)>> {
    let mut events = crate::proc_events::ProcEvents::open()?;
    let (tx, rx): (Sender<(u64, i32, Attrs)>, _) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut cgroups = HashMap::new();
        let mut open = true;
        while open {
            let mut read = Vec::new();
            if !events.next(|tid| read.push(tid)) {
                return;
            }
            for tid in read {
                let path = Path::new("/proc").join(tid.to_string());
                if let Some(a) = read_task(&path, tid, &mut cgroups) {
                    open &= tx.send((now(), tid, a)).is_ok();
                }
            }
        }
    });
    Some(rx)
}

/// What one scan read of one task (the parts compared between scans).
#[derive(Clone, PartialEq)]
pub(crate) struct Attrs {
    tgid: i32,
    comm: String,
    cpus: String,
    nice: i32,
    policy: String,
    rt_priority: u32,
    cgroup: Option<String>,
    cpu_weight: Option<u32>,
    cpu_max: Option<String>,
}

/// The sampler: the last attributes of every live task, and every sample kept.
#[derive(Default)]
pub(crate) struct Sampler {
    live: HashMap<i32, (u64, Attrs)>,
    pub(crate) samples: Vec<TaskSample>,
}

fn sample(ts_ns: u64, why: &str, pid: i32, a: &Attrs) -> TaskSample {
    TaskSample {
        ts_ns,
        why: why.to_string(),
        pid,
        tgid: a.tgid,
        comm: a.comm.clone(),
        cpus: a.cpus.clone(),
        nice: a.nice,
        policy: a.policy.clone(),
        rt_priority: a.rt_priority,
        cgroup: a.cgroup.clone(),
        cpu_weight: a.cpu_weight,
        cpu_max: a.cpu_max.clone(),
    }
}

impl Sampler {
    /// Reads every task at `ts_ns` (the trace's clock) and keeps what is new or changed.
    pub(crate) fn scan(&mut self, ts_ns: u64) {
        let mut seen = HashMap::with_capacity(self.live.len() + 16);
        let mut cgroups = HashMap::new();
        for (pid, path) in numbered(Path::new("/proc")) {
            for (tid, task) in numbered(&path.join("task")) {
                if let Some(a) = read_task(&task, pid, &mut cgroups) {
                    seen.insert(tid, a);
                }
            }
        }
        for (&tid, a) in &seen {
            match self.live.get(&tid) {
                None => self.samples.push(sample(ts_ns, "first", tid, a)),
                Some((_, old)) if old != a => self.samples.push(sample(ts_ns, "change", tid, a)),
                Some(_) => {}
            }
        }
        let mut gone: Vec<i32> = self
            .live
            .keys()
            .filter(|t| !seen.contains_key(t))
            .copied()
            .collect();
        gone.sort_unstable();
        for tid in gone {
            if let Some((at, a)) = self.live.remove(&tid) {
                self.samples.push(sample(at, "last", tid, &a));
            }
        }
        for (tid, a) in seen {
            self.live.insert(tid, (ts_ns, a));
        }
    }

    /// A task read by the process-event thread ([`watch_new_tasks`]) at `ts_ns`.
    pub(crate) fn seen(&mut self, ts_ns: u64, tid: i32, a: Attrs) {
        if self.live.get(&tid).is_none_or(|(_, old)| *old != a) {
            let why = if self.live.contains_key(&tid) {
                "change"
            } else {
                "first"
            };
            self.samples.push(sample(ts_ns, why, tid, &a));
        }
        self.live.insert(tid, (ts_ns, a));
    }

    /// Reads task `tid` now, even when a scan would miss it (the recorded command between
    /// its exit and its reaping).
    pub(crate) fn scan_one(&mut self, ts_ns: u64, tid: i32) {
        let path = Path::new("/proc").join(tid.to_string());
        if let Some(a) = read_task(&path, tid, &mut HashMap::new()) {
            self.seen(ts_ns, tid, a);
        }
    }

    /// The end of the recording: every task still alive gets its `last` sample.
    pub(crate) fn finish(&mut self, ts_ns: u64) {
        let mut live: Vec<(i32, Attrs)> = self.live.drain().map(|(t, (_, a))| (t, a)).collect();
        live.sort_by_key(|&(t, _)| t);
        for (tid, a) in live {
            self.samples.push(sample(ts_ns, "last", tid, &a));
        }
    }

    /// Tasks seen so far.
    pub(crate) fn live(&self) -> usize {
        self.live.len()
    }
}

/// The numbered entries of a /proc directory (pids, tids).
fn numbered(dir: &Path) -> Vec<(i32, std::path::PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_str()?.parse::<i32>().ok()?;
            Some((n, e.path()))
        })
        .collect()
}

/// `/proc/PID/task/TID` (or `/proc/TID`) read into attributes; None when it went away.
fn read_task(
    dir: &Path,
    pid: i32,
    cgroups: &mut HashMap<String, (Option<u32>, Option<String>)>,
) -> Option<Attrs> {
    let status = std::fs::read_to_string(dir.join("status")).ok()?;
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    let (nice, rt_priority, policy) = parse_stat(&stat)?;
    let cgroup = std::fs::read_to_string(dir.join("cgroup"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("0::").map(str::to_string))
        });
    let (cpu_weight, cpu_max) = match &cgroup {
        Some(path) => cgroups
            .entry(path.clone())
            .or_insert_with(|| {
                let dir = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
                let read = |f: &str| {
                    std::fs::read_to_string(dir.join(f))
                        .ok()
                        .map(|s| s.trim().to_string())
                };
                (
                    read("cpu.weight").and_then(|w| w.parse().ok()),
                    read("cpu.max"),
                )
            })
            .clone(),
        None => (None, None),
    };
    Some(Attrs {
        tgid: field("Tgid:").and_then(|v| v.parse().ok()).unwrap_or(pid),
        comm: field("Name:").unwrap_or_default(),
        cpus: field("Cpus_allowed_list:")?,
        nice,
        policy: policy_name(policy),
        rt_priority,
        cgroup,
        cpu_weight,
        cpu_max,
    })
}

/// nice (field 19), rt_priority (40) and policy (41) of a `/proc/*/stat` line, counted after
/// the `(comm)`, which may hold spaces and parentheses itself.
fn parse_stat(stat: &str) -> Option<(i32, u32, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state).
    let at = |n: usize| fields.get(n - 3).copied();
    Some((
        at(19)?.parse().ok()?,
        at(40)?.parse().ok()?,
        at(41)?.parse().ok()?,
    ))
}

fn policy_name(policy: u32) -> String {
    match policy {
        0 => "SCHED_OTHER".into(),
        1 => "SCHED_FIFO".into(),
        2 => "SCHED_RR".into(),
        3 => "SCHED_BATCH".into(),
        5 => "SCHED_IDLE".into(),
        6 => "SCHED_DEADLINE".into(),
        7 => "SCHED_EXT".into(),
        n => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_name() {
        // Fields 3..=52 numbered by their position, then nice (19) 5, rt_priority (40) 0,
        // policy (41) 3 (BATCH); the name holds a space and a parenthesis.
        let mut fields: Vec<String> = (3..=52).map(|n| n.to_string()).collect();
        for (n, v) in [(19, "5"), (40, "0"), (41, "3")] {
            fields[n - 3] = v.to_string();
        }
        let line = format!("123 (a b) c) {}", fields.join(" "));
        assert_eq!(parse_stat(&line), Some((5, 0, 3)));
        assert_eq!(policy_name(3), "SCHED_BATCH");
    }

    /// This process, read from /proc, matches what the kernel says of it through other calls.
    #[test]
    fn this_process_is_read_as_the_kernel_sees_it() {
        let mut s = Sampler::default();
        let me = std::process::id() as i32;
        s.scan_one(1, me);
        let mine = s.samples.iter().find(|t| t.pid == me).expect("own sample");
        let nice = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        assert_eq!(mine.nice, nice);
        assert_eq!(mine.policy, "SCHED_OTHER");
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
        assert_eq!(ok, 0);
        let allowed: Vec<u32> = (0..1024u32)
            .filter(|&c| unsafe { libc::CPU_ISSET(c as usize, &set) })
            .collect();
        assert_eq!(analysis::affinity::cpulist(&allowed), mine.cpus);
        // A second read of the same task adds nothing; the end gives it its `last`.
        s.scan_one(2, me);
        assert_eq!(s.samples.len(), 1);
        s.finish(3);
        assert_eq!(s.samples.last().map(|t| t.why.as_str()), Some("last"));
    }
}
