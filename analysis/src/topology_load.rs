//! `--topology`: a CPU topology from outside the trace (formats.md §7.2, §7.4) — a copy of
//! sysfs (`devices/system/cpu/cpu*/topology`, `cache/index*`, `node*/cpulist`), a small
//! JSON file (`schemas/topology.schema.json`), or this machine's own `/sys` (`host`).
//! All build the same [`Topology`] as perf.data's CPU_TOPOLOGY / CACHE sections.

use ingest::topology::{parse_cpulist, Cache, Topology};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Loads `spec` ("host", a sysfs directory or a JSON file). Returns the topology and a
/// description of its source for the report.
pub fn load(spec: &str) -> Result<(Topology, String), String> {
    if spec == "host" {
        let t = from_sysfs(Path::new("/sys/devices/system/cpu"))?;
        return Ok((t, "host".to_string()));
    }
    let path = Path::new(spec);
    let t = if path.is_dir() {
        let dir = sysfs_cpu_dir(path).ok_or_else(|| {
            format!("{spec}: no cpu0/ under it, devices/system/cpu/ or sys/devices/system/cpu/")
        })?;
        from_sysfs(&dir)?
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{spec}: {e}"))?;
        from_json(&text).map_err(|e| format!("{spec}: {e}"))?
    };
    Ok((t, format!("file {spec}")))
}

/// The `devices/system/cpu` directory inside a sysfs copy rooted anywhere above it.
fn sysfs_cpu_dir(root: &Path) -> Option<PathBuf> {
    [
        root.to_path_buf(),
        root.join("devices/system/cpu"),
        root.join("sys/devices/system/cpu"),
        root.join("cpu"),
    ]
    .into_iter()
    .find(|d| d.join("cpu0").is_dir())
}

fn read_trim(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

fn cpulist_at(path: &Path) -> Result<Option<Vec<u32>>, String> {
    match read_trim(path) {
        None => Ok(None),
        Some(text) => parse_cpulist(&text)
            .map(Some)
            .ok_or_else(|| format!("{}: not a cpulist: {text:?}", path.display())),
    }
}

fn push_unique(groups: &mut Vec<Vec<u32>>, g: Vec<u32>) {
    if !g.is_empty() && !groups.contains(&g) {
        groups.push(g);
    }
}

/// Reads `cpu_dir/cpuN/{topology,cache}` and `cpu_dir/../node/nodeN/cpulist`.
pub fn from_sysfs(cpu_dir: &Path) -> Result<Topology, String> {
    let mut cpus: Vec<u32> = std::fs::read_dir(cpu_dir)
        .map_err(|e| format!("{}: {e}", cpu_dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_prefix("cpu")?.parse::<u32>().ok()
        })
        .filter(|&n| n < ingest::topology::MAX_CPU)
        .collect();
    cpus.sort_unstable();
    if cpus.is_empty() {
        return Err(format!("{}: no cpuN directories", cpu_dir.display()));
    }
    let mut t = Topology::default();
    for &cpu in &cpus {
        let dir = cpu_dir.join(format!("cpu{cpu}"));
        let topo = dir.join("topology");
        let core = match cpulist_at(&topo.join("core_cpus_list"))? {
            Some(l) => Some(l),
            None => cpulist_at(&topo.join("thread_siblings_list"))?,
        };
        push_unique(&mut t.cores, core.unwrap_or_else(|| vec![cpu]));
        let package = match cpulist_at(&topo.join("package_cpus_list"))? {
            Some(l) => Some(l),
            None => cpulist_at(&topo.join("core_siblings_list"))?,
        };
        if let Some(p) = package {
            push_unique(&mut t.packages, p);
        }
        let id = |name: &str| read_trim(&topo.join(name)).and_then(|s| s.parse::<u32>().ok());
        let (core_id, package_id) = (id("core_id"), id("physical_package_id"));
        if t.cpus.len() <= cpu as usize {
            t.cpus.resize(cpu as usize + 1, Default::default());
        }
        t.cpus[cpu as usize].core_id = core_id;
        t.cpus[cpu as usize].package_id = package_id;
        for index in 0.. {
            let idx = dir.join(format!("cache/index{index}"));
            if !idx.is_dir() {
                break;
            }
            let (Some(level), Some(shared)) = (
                read_trim(&idx.join("level")).and_then(|s| s.parse::<u32>().ok()),
                cpulist_at(&idx.join("shared_cpu_list"))?,
            ) else {
                continue;
            };
            let cache = Cache {
                level,
                kind: read_trim(&idx.join("type")).unwrap_or_else(|| "Unified".into()),
                size: read_trim(&idx.join("size")).unwrap_or_default(),
                cpus: shared,
            };
            if !t.caches.contains(&cache) {
                t.caches.push(cache);
            }
        }
    }
    if let Some(node_dir) = cpu_dir.parent().map(|p| p.join("node")) {
        if let Ok(entries) = std::fs::read_dir(&node_dir) {
            for e in entries.filter_map(|e| e.ok()) {
                let name = e.file_name().into_string().unwrap_or_default();
                if let Some(n) = name
                    .strip_prefix("node")
                    .and_then(|n| n.parse::<u32>().ok())
                {
                    if let Some(list) = cpulist_at(&e.path().join("cpulist"))? {
                        t.nodes.push((n, list));
                    }
                }
            }
            t.nodes.sort();
        }
    }
    t.index_groups();
    Ok(t)
}

/// `schemas/topology.schema.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TopologyJson {
    #[serde(default, rename = "$schema")]
    _schema: Option<String>,
    #[serde(default, rename = "_comment")]
    _comment: Option<String>,
    #[serde(default)]
    cores: Vec<String>,
    llcs: Vec<String>,
    #[serde(default)]
    l2s: Vec<String>,
    #[serde(default)]
    packages: Vec<String>,
    #[serde(default)]
    nodes: BTreeMap<String, String>,
}

/// A topology from the small JSON format: groups of CPUs as cpulists.
pub fn from_json(text: &str) -> Result<Topology, String> {
    let j: TopologyJson = serde_json::from_str(text).map_err(|e| format!("topology JSON: {e}"))?;
    let lists = |v: &[String], what: &str| -> Result<Vec<Vec<u32>>, String> {
        v.iter()
            .map(|s| parse_cpulist(s).ok_or_else(|| format!("{what}: not a cpulist: {s:?}")))
            .collect()
    };
    let llcs = lists(&j.llcs, "llcs")?;
    if llcs.is_empty() {
        return Err("llcs: at least one group is needed".into());
    }
    let mut t = Topology::default();
    let all: Vec<u32> = llcs.iter().flatten().copied().collect();
    t.cores = lists(&j.cores, "cores")?;
    if t.cores.is_empty() {
        // No SMT described: every CPU is its own core.
        t.cores = all.iter().map(|&c| vec![c]).collect();
    }
    t.packages = lists(&j.packages, "packages")?;
    // Caches so that Topology::index_groups derives LLCs and L2s as for other sources.
    let l2s = lists(&j.l2s, "l2s")?;
    for (level, groups) in [(2, &l2s), (3, &llcs)] {
        for g in groups {
            t.caches.push(Cache {
                level,
                kind: "Unified".into(),
                size: String::new(),
                cpus: g.clone(),
            });
        }
    }
    for (node, list) in &j.nodes {
        let n = node
            .parse::<u32>()
            .map_err(|_| format!("nodes: {node:?} is not a node number"))?;
        let cpus = parse_cpulist(list).ok_or_else(|| format!("nodes: not a cpulist: {list:?}"))?;
        t.nodes.push((n, cpus));
    }
    t.index_groups();
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_groups_index_every_cpu() {
        let t = from_json(r#"{"llcs": ["0,3-5", "1-2"], "nodes": {"0": "0-5"}}"#).unwrap();
        assert_eq!(t.llcs, vec![vec![0, 3, 4, 5], vec![1, 2]]);
        let llc: Vec<Option<u32>> = t.cpus.iter().map(|p| p.llc).collect();
        assert_eq!(llc, [0, 1, 1, 0, 0, 0].map(Some));
        // No cores given: each CPU is its own core (dense group indices, in LLC order).
        assert_eq!(t.cores.len(), 6);
        assert_eq!(t.cpus[4].core, Some(2));
        assert_eq!(t.cpus[5].node, Some(0));
        assert!(from_json(r#"{"llcs": ["0-x"]}"#).is_err());
        assert!(from_json(r#"{"llcs": [], "cores": []}"#).is_err());
        assert!(from_json(r#"{"llc": ["0"]}"#).is_err(), "unknown field");
    }

    #[test]
    fn sysfs_copy() {
        let root = std::env::temp_dir().join(format!("schedtrace-sysfs-{}", std::process::id()));
        let cpu_dir = root.join("devices/system/cpu");
        for cpu in 0..4u32 {
            let d = cpu_dir.join(format!("cpu{cpu}"));
            std::fs::create_dir_all(d.join("topology")).unwrap();
            let core = format!("{}", cpu / 2 * 2) + &format!("-{}", cpu / 2 * 2 + 1);
            std::fs::write(d.join("topology/core_cpus_list"), &core).unwrap();
            std::fs::write(d.join("topology/package_cpus_list"), "0-3").unwrap();
            std::fs::write(d.join("topology/core_id"), (cpu / 2).to_string()).unwrap();
            std::fs::write(d.join("topology/physical_package_id"), "0").unwrap();
            let idx = d.join("cache/index0");
            std::fs::create_dir_all(&idx).unwrap();
            std::fs::write(idx.join("level"), "2").unwrap();
            std::fs::write(idx.join("type"), "Unified").unwrap();
            std::fs::write(idx.join("shared_cpu_list"), &core).unwrap();
            let idx = d.join("cache/index1");
            std::fs::create_dir_all(&idx).unwrap();
            std::fs::write(idx.join("level"), "3").unwrap();
            std::fs::write(idx.join("type"), "Unified").unwrap();
            std::fs::write(
                idx.join("shared_cpu_list"),
                if cpu < 2 { "0-1" } else { "2-3" },
            )
            .unwrap();
        }
        std::fs::create_dir_all(root.join("devices/system/node/node0")).unwrap();
        std::fs::write(root.join("devices/system/node/node0/cpulist"), "0-3\n").unwrap();
        let (t, source) = load(root.to_str().unwrap()).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        assert!(source.starts_with("file "));
        assert_eq!(t.cores, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(t.llcs, vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(t.cpus[3].llc, Some(1));
        assert_eq!(t.cpus[2].core_id, Some(1));
        assert_eq!(t.nodes, vec![(0, vec![0, 1, 2, 3])]);
    }
}
