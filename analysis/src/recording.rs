//! What `schedtrace record` keeps beside a trace: the facts the kernel's scheduler events do
//! not carry (docs/formats.md, "The recording's sidecar").
//!
//! perf.data has no place for a program's own records, so they go to a JSON file next to the
//! trace, `TRACE.schedtrace.json`, which [`find`] picks up for every command that reads the
//! trace (`analyze`, `compare`, `tui`, `export`, `replay`) and `convert` copies beside its
//! output. Its times are in the trace's clock: `record` has perf stamp the events with
//! `CLOCK_MONOTONIC` (`perf record -k mono`) and reads the same clock when it samples, so a
//! sample lines up with the events around it.
//!
//! The recorder writes this model and the analysis reads it: one set of types for both, so
//! the two cannot drift apart.

use crate::affinity::{Affinity, CpuSet};
use ingest::topology::{Cache, CpuPlace, Topology};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The sidecar's format; a reader refuses a larger one (fields are only ever added within one).
pub const FORMAT_VERSION: u32 = 1;

/// The name of a trace's sidecar: `TRACE.schedtrace.json`.
pub fn sidecar_path(trace: &Path) -> PathBuf {
    let mut name = trace.as_os_str().to_owned();
    name.push(".schedtrace.json");
    PathBuf::from(name)
}

/// The whole sidecar.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Recording {
    /// [`FORMAT_VERSION`].
    pub schedtrace_recording: u32,
    /// The trace file's name when it was recorded.
    pub trace: String,
    /// The trace's clock, which every `*_ns` here is in (`monotonic`).
    pub clock: String,
    pub recorder: Recorder,
    /// When recording started and stopped.
    pub start_ns: u64,
    pub end_ns: u64,
    pub host: Host,
    /// The CPU topology and caches, as `--topology host` reads them; null when /sys had none.
    pub topology: Option<TopologyRecord>,
    /// How often every task's attributes were sampled from /proc.
    pub sample_interval_ns: u64,
    /// Task attributes: one entry when a task is first seen and one each time any of them
    /// changed at a later sample; `why` says which.
    pub tasks: Vec<TaskSample>,
}

/// The program that recorded the events.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Recorder {
    /// `perf`.
    pub tool: String,
    /// Its `--version`.
    pub version: String,
    /// The events enabled.
    pub events: Vec<String>,
    /// Events asked for that this kernel does not have.
    #[serde(default)]
    pub missing_events: Vec<String>,
    /// The command recorded, empty for a whole-system recording of a time.
    #[serde(default)]
    pub command: Vec<String>,
}

/// The machine and its scheduler's settings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Host {
    pub kernel_release: String,
    /// The tick rate; null when neither the kernel config nor a measurement gave it.
    pub hz: Option<u32>,
    /// Where `hz` came from: `CONFIG_HZ in /proc/config.gz`, `measured: …`, or why it is null.
    pub hz_source: String,
    /// The scheduler's feature flags as debugfs lists them (`NO_` prefix: off); null when
    /// debugfs was not readable (`sched_features_source` says why).
    pub sched_features: Option<Vec<String>>,
    pub sched_features_source: String,
    /// Scheduler tunables, by the file they were read from (sysctl `kernel.sched_*`,
    /// debugfs `sched/*`).
    pub tunables: BTreeMap<String, String>,
}

/// One task's attributes at one sample.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TaskSample {
    /// When it was read (the trace's clock).
    pub ts_ns: u64,
    /// `first` (seen at the first sample or newly), `change` (an attribute changed), `last`
    /// (the last values read before it was gone, at its exit or the end of the recording).
    pub why: String,
    /// The thread id (the events' pid) and its process (tgid).
    pub pid: i32,
    pub tgid: i32,
    pub comm: String,
    /// `Cpus_allowed_list`.
    pub cpus: String,
    pub nice: i32,
    /// `SCHED_OTHER`, `SCHED_FIFO`, `SCHED_RR`, `SCHED_BATCH`, `SCHED_IDLE`, `SCHED_DEADLINE`,
    /// `SCHED_EXT`, or the number.
    pub policy: String,
    /// The real-time priority (0 for the others).
    pub rt_priority: u32,
    /// The cgroup v2 path, and its `cpu.weight` / `cpu.max` where the controller is on.
    #[serde(default)]
    pub cgroup: Option<String>,
    #[serde(default)]
    pub cpu_weight: Option<u32>,
    #[serde(default)]
    pub cpu_max: Option<String>,
}

/// [`Topology`] as JSON, every field kept (the caches with their sizes too).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct TopologyRecord {
    /// Per CPU: `[core_id, package_id, die_id]` (null where the kernel did not say).
    pub cpu_ids: Vec<[Option<u32>; 3]>,
    pub cores: Vec<String>,
    pub packages: Vec<String>,
    pub dies: Vec<String>,
    pub nodes: BTreeMap<u32, String>,
    pub caches: Vec<CacheRecord>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CacheRecord {
    pub level: u32,
    pub kind: String,
    pub size: String,
    pub cpus: String,
}

fn list(text: &str, what: &str) -> Result<Vec<u32>, String> {
    CpuSet::parse(text)
        .map(|s| s.cpus().to_vec())
        .ok_or_else(|| format!("topology.{what}: not a cpulist: {text:?}"))
}

impl TopologyRecord {
    pub fn from_topology(t: &Topology) -> TopologyRecord {
        let lists = |g: &[Vec<u32>]| g.iter().map(|c| crate::affinity::cpulist(c)).collect();
        TopologyRecord {
            cpu_ids: t
                .cpus
                .iter()
                .map(|p| [p.core_id, p.package_id, p.die_id])
                .collect(),
            cores: lists(&t.cores),
            packages: lists(&t.packages),
            dies: lists(&t.dies),
            nodes: t
                .nodes
                .iter()
                .map(|(n, c)| (*n, crate::affinity::cpulist(c)))
                .collect(),
            caches: t
                .caches
                .iter()
                .map(|c| CacheRecord {
                    level: c.level,
                    kind: c.kind.clone(),
                    size: c.size.clone(),
                    cpus: crate::affinity::cpulist(&c.cpus),
                })
                .collect(),
        }
    }

    /// The topology again; the groups indexed as every other source's are.
    pub fn to_topology(&self) -> Result<Topology, String> {
        let lists = |g: &[String], what: &str| -> Result<Vec<Vec<u32>>, String> {
            g.iter().map(|s| list(s, what)).collect()
        };
        let mut t = Topology {
            cpus: self
                .cpu_ids
                .iter()
                .map(|&[core_id, package_id, die_id]| CpuPlace {
                    core_id,
                    package_id,
                    die_id,
                    ..Default::default()
                })
                .collect(),
            cores: lists(&self.cores, "cores")?,
            packages: lists(&self.packages, "packages")?,
            dies: lists(&self.dies, "dies")?,
            ..Default::default()
        };
        for (n, cpus) in &self.nodes {
            t.nodes.push((*n, list(cpus, "nodes")?));
        }
        for c in &self.caches {
            t.caches.push(Cache {
                level: c.level,
                kind: c.kind.clone(),
                size: c.size.clone(),
                cpus: list(&c.cpus, "caches")?,
            });
        }
        t.index_groups();
        Ok(t)
    }
}

impl Recording {
    /// Parses a sidecar; errors say what is wrong (the caller names the file).
    pub fn parse(bytes: &[u8]) -> Result<Recording, String> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        match value.get("schedtrace_recording").and_then(|v| v.as_u64()) {
            Some(v) if v <= FORMAT_VERSION as u64 => {}
            Some(v) => {
                return Err(format!(
                    "sidecar format {v} is newer than this schedtrace reads ({FORMAT_VERSION})"
                ))
            }
            None => return Err("no schedtrace_recording version: not a recording sidecar".into()),
        }
        serde_json::from_value(value).map_err(|e| format!("not a recording sidecar: {e}"))
    }

    /// The recorded allowed CPUs, into `affinity`; returns how many tasks it named. Samples
    /// whose list does not parse are skipped (and counted in the second number).
    pub fn fill(&self, affinity: &mut Affinity) -> (usize, usize) {
        let mut bad = 0;
        let mut pids = std::collections::BTreeSet::new();
        for s in &self.tasks {
            match CpuSet::parse(&s.cpus) {
                Some(set) => {
                    affinity.record(s.pid, s.ts_ns, set);
                    pids.insert(s.pid);
                }
                None => bad += 1,
            }
        }
        (pids.len(), bad)
    }
}

/// Each task's recorded nice over time, for the fairness weights where the events' `prio`
/// does not say it exactly (BMQ adds an untraced boost; the BFS family's scales in general):
/// `None` at a time when the task was not in a fair class (`SCHED_FIFO`, `SCHED_RR`,
/// `SCHED_DEADLINE`, `SCHED_IDLE`), left out of fairness as real-time tasks are.
#[derive(Debug, Clone, Default)]
pub struct Niceness(rustc_hash::FxHashMap<i32, Vec<(u64, Option<i32>)>>);

impl Niceness {
    pub fn new(r: &Recording) -> Niceness {
        let mut by_pid: rustc_hash::FxHashMap<i32, Vec<(u64, Option<i32>)>> = Default::default();
        for s in &r.tasks {
            let fair = matches!(
                s.policy.as_str(),
                "SCHED_OTHER" | "SCHED_BATCH" | "SCHED_EXT"
            );
            let nice = (fair && (-20..=19).contains(&s.nice)).then_some(s.nice);
            by_pid.entry(s.pid).or_default().push((s.ts_ns, nice));
        }
        for samples in by_pid.values_mut() {
            samples.sort_by_key(|&(t, _)| t);
        }
        Niceness(by_pid)
    }

    /// The nice of `pid` at `ts` (its last sample at or before, else its first); the outer
    /// None when the recording did not see it.
    pub fn at(&self, pid: i32, ts: u64) -> Option<Option<i32>> {
        let samples = self.0.get(&pid)?;
        let at = samples.partition_point(|&(t, _)| t <= ts);
        Some(samples[at.saturating_sub(1)].1)
    }
}

/// What the report says of the recording (`source.recording`): where its sidecar is, what
/// recorded it, and the host facts the events lack.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct RecordingInfo {
    /// The sidecar's path.
    pub sidecar: String,
    /// The recorder and its version (`perf version 6.1.187`).
    pub recorder: String,
    /// The command recorded; empty for a whole-system recording of a time.
    #[serde(default)]
    pub command: Vec<String>,
    /// Events the kernel did not have (not recorded).
    #[serde(default)]
    pub missing_events: Vec<String>,
    pub hz: Option<u32>,
    pub hz_source: String,
    pub sched_features: Option<Vec<String>>,
    pub sched_features_source: String,
    #[serde(default)]
    pub tunables: BTreeMap<String, String>,
    /// How often the tasks' allowed CPUs, nice, policy and cgroup were sampled.
    pub sample_interval_ns: u64,
    /// Tasks with at least one sample.
    pub tasks_sampled: u64,
}

impl RecordingInfo {
    pub fn new(sidecar: &str, r: &Recording) -> RecordingInfo {
        let tasks: std::collections::BTreeSet<i32> = r.tasks.iter().map(|t| t.pid).collect();
        RecordingInfo {
            sidecar: sidecar.to_string(),
            recorder: r.recorder.version.clone(),
            command: r.recorder.command.clone(),
            missing_events: r.recorder.missing_events.clone(),
            hz: r.host.hz,
            hz_source: r.host.hz_source.clone(),
            sched_features: r.host.sched_features.clone(),
            sched_features_source: r.host.sched_features_source.clone(),
            tunables: r.host.tunables.clone(),
            sample_interval_ns: r.sample_interval_ns,
            tasks_sampled: tasks.len() as u64,
        }
    }
}

/// The sidecar of the trace at `trace` (also beside the name without a `.xz`/`.gz`/`.zst`
/// suffix): `Ok(None)` when there is none, an error naming the file when it is unreadable.
pub fn find(trace: &Path) -> Result<Option<(PathBuf, Recording)>, String> {
    if trace.as_os_str() == "-" {
        return Ok(None);
    }
    let mut candidates = vec![sidecar_path(trace)];
    if let Some(ext) = trace.extension().and_then(|e| e.to_str()) {
        if matches!(ext, "xz" | "gz" | "zst") {
            candidates.push(sidecar_path(&trace.with_extension("")));
        }
    }
    for path in candidates {
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(format!(
                    "{}: cannot read the recording's sidecar: {e}",
                    path.display()
                ))
            }
        };
        let rec = Recording::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(Some((path, rec)));
    }
    Ok(None)
}

/// `convert`: the sidecar of `input`, if any, written beside `output` (named after it), so
/// that the converted trace keeps what the recording kept (the times are the trace's, which
/// conversion keeps). Returns where it went.
pub fn copy_beside(input: &Path, output: &Path) -> Result<Option<PathBuf>, String> {
    if output.as_os_str() == "-" {
        return Ok(None);
    }
    let Some((_, mut rec)) = find(input)? else {
        return Ok(None);
    };
    rec.trace = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let path = sidecar_path(output);
    let json = serde_json::to_string_pretty(&rec).map_err(|e| e.to_string())?;
    std::fs::write(&path, json + "\n").map_err(|e| {
        format!(
            "{}: cannot write the recording's sidecar: {e}",
            path.display()
        )
    })?;
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topology_round_trips_through_the_sidecar() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let host = crate::topology_load::from_sysfs(Path::new("/sys/devices/system/cpu"));
        // Any machine's own topology, and a hand-made one with SMT, two LLCs and two nodes.
        let made = crate::topology_load::from_json(
            r#"{"llcs": ["0-1", "2-3"], "l2s": ["0-1", "2-3"], "cores": ["0,2", "1,3"],
                "packages": ["0-3"], "nodes": {"0": "0-1", "1": "2-3"}}"#,
        )
        .unwrap();
        for t in host.into_iter().chain([made]) {
            let record = TopologyRecord::from_topology(&t);
            let json = serde_json::to_string(&record).unwrap();
            let back: TopologyRecord = serde_json::from_str(&json).unwrap();
            assert_eq!(back.to_topology().unwrap(), t, "{}", dir.display());
        }
    }

    #[test]
    fn sidecars_are_named_and_checked() {
        assert_eq!(
            sidecar_path(Path::new("a/run.perf.data")),
            Path::new("a/run.perf.data.schedtrace.json")
        );
        assert!(Recording::parse(b"{}")
            .unwrap_err()
            .contains("not a recording sidecar"));
        assert!(Recording::parse(b"{\"schedtrace_recording\": 99}")
            .unwrap_err()
            .contains("newer"));
        let r = Recording {
            schedtrace_recording: FORMAT_VERSION,
            tasks: vec![
                TaskSample {
                    ts_ns: 10,
                    pid: 5,
                    cpus: "1".into(),
                    ..Default::default()
                },
                TaskSample {
                    ts_ns: 20,
                    pid: 6,
                    cpus: "bad".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let back = Recording::parse(serde_json::to_string(&r).unwrap().as_bytes()).unwrap();
        assert_eq!(back, r);
        let mut a = Affinity::default();
        assert_eq!(back.fill(&mut a), (1, 1));
        assert_eq!(a.allowed(5, None, 0).unwrap().0.to_string(), "1");
    }
}
