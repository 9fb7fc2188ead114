//! The `topology/` folder of a schedviz capture: sysfs's `nodeN/cpuM/topology/` of every CPU
//! (`core_id`, `physical_package_id`, `thread_siblings_list`, `core_siblings_list`, `die_id`).
//! Caches are not saved there, so the topology has no L2 or LLC groups.

use crate::source::InputBytes;
use crate::topology::{parse_cpulist, Topology, MAX_CPU};
use std::collections::BTreeMap;

/// The topology the files (`topology/...` path -> text) describe; `None` when they describe no CPU.
pub(super) fn from_sysfs(files: &BTreeMap<String, InputBytes>) -> Option<Topology> {
    let mut t = Topology::default();
    let mut nodes: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    // (cpu) -> field -> text.
    let mut cpus: BTreeMap<u32, BTreeMap<&str, String>> = BTreeMap::new();
    for (path, text) in files {
        let parts: Vec<&str> = path.split('/').collect();
        let ["topology", node, cpu, "topology", field] = parts.as_slice() else {
            continue;
        };
        let (Some(node), Some(cpu)) = (number(node, "node"), number(cpu, "cpu")) else {
            continue;
        };
        let group = nodes.entry(node).or_default();
        if !group.contains(&cpu) {
            group.push(cpu);
        }
        let text = String::from_utf8_lossy(text).trim().to_string();
        cpus.entry(cpu).or_default().insert(field, text);
    }
    if cpus.is_empty() {
        return None;
    }
    for (&cpu, fields) in &cpus {
        let id = |name: &str| fields.get(name).and_then(|v| v.parse::<u32>().ok());
        t.set_ids(cpu, id("core_id"), id("physical_package_id"));
        t.set_die(cpu, id("die_id"));
        let list = |names: [&str; 2]| {
            names
                .iter()
                .find_map(|n| fields.get(n).and_then(|v| parse_cpulist(v)))
                .unwrap_or_else(|| vec![cpu])
        };
        let core = list(["core_cpus_list", "thread_siblings_list"]);
        if !t.cores.contains(&core) {
            t.cores.push(core);
        }
        let package = list(["package_cpus_list", "core_siblings_list"]);
        if !t.packages.contains(&package) {
            t.packages.push(package);
        }
    }
    t.nodes = nodes
        .into_iter()
        .map(|(node, mut cpus)| {
            cpus.sort_unstable();
            (node, cpus)
        })
        .collect();
    t.index_groups();
    Some(t)
}

/// `N` of `{prefix}N`, within the CPU limit.
fn number(name: &str, prefix: &str) -> Option<u32> {
    name.strip_prefix(prefix)?
        .parse()
        .ok()
        .filter(|&n| n <= MAX_CPU)
}
