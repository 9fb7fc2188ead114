//! Topology from perf.data CPU_TOPOLOGY / CACHE / NUMA_TOPOLOGY features, compared with what
//! `perf report --header-only -I` printed for the same files (public/expected/*.header.txt):
//! sibling threads (cores), sockets, per-CPU core/socket ids, L3 maps (LLCs), node cpu lists.

mod perfdata_common;
use ingest::topology::{parse_cpulist, Topology};
use perfdata_common::*;

/// The parts of a perf header dump that describe the topology.
struct HeaderDump {
    threads: Vec<Vec<u32>>,
    sockets: Vec<Vec<u32>>,
    /// (cpu, core id, socket id)
    cpu_ids: Vec<(u32, u32, u32)>,
    /// (level, cpus) of every cache line "#  L<level> <Type> <size> [<cpus>]"
    caches: Vec<(u32, String, Vec<u32>)>,
    nodes: Vec<(u32, Vec<u32>)>,
}

fn parse_dump(text: &str) -> HeaderDump {
    let mut d = HeaderDump {
        threads: vec![],
        sockets: vec![],
        cpu_ids: vec![],
        caches: vec![],
        nodes: vec![],
    };
    for line in text.lines() {
        let line = line.trim_start_matches('#').trim();
        if let Some(l) = line.strip_prefix("sibling threads :") {
            d.threads.push(parse_cpulist(l.trim()).unwrap());
        } else if let Some(l) = line.strip_prefix("sibling sockets :") {
            d.sockets.push(parse_cpulist(l.trim()).unwrap());
        } else if let Some(rest) = line.strip_prefix("CPU ").filter(|r| r.contains("Core ID")) {
            // "0: Core ID 0, Die ID 0, Socket ID 0"
            let (cpu, ids) = rest.split_once(':').unwrap();
            let num = |key: &str| -> u32 {
                let at = ids.find(key).unwrap() + key.len();
                ids[at..].trim().split(',').next().unwrap().parse().unwrap()
            };
            d.cpu_ids
                .push((cpu.parse().unwrap(), num("Core ID"), num("Socket ID")));
        } else if line.starts_with('L') && line.ends_with(']') {
            let level = line[1..2].parse().unwrap();
            let kind = line.split_whitespace().nth(1).unwrap().to_string();
            let cpus = &line[line.rfind('[').unwrap() + 1..line.len() - 1];
            d.caches.push((level, kind, parse_cpulist(cpus).unwrap()));
        } else if let Some(rest) = line
            .strip_prefix("node")
            .filter(|r| r.contains("cpu list :"))
        {
            let (node, list) = rest.split_once(" cpu list :").unwrap();
            d.nodes
                .push((node.parse().unwrap(), parse_cpulist(list.trim()).unwrap()));
        }
    }
    d
}

fn topology_of(file: &str) -> Topology {
    let (ing, _) = read_all(&shared(file));
    ing.meta.topology.expect("topology")
}

fn check(topo: &Topology, dump: &HeaderDump) {
    assert_eq!(topo.cores, dump.threads);
    assert_eq!(topo.packages, dump.sockets);
    assert_eq!(topo.cpus.len(), dump.cpu_ids.len());
    for &(cpu, core, socket) in &dump.cpu_ids {
        let p = topo.place(cpu).unwrap();
        assert_eq!(
            (p.core_id, p.package_id),
            (Some(core), Some(socket)),
            "cpu {cpu}"
        );
        // The dense group indices agree with the group lists.
        assert!(topo.cores[p.core.unwrap() as usize].contains(&cpu));
        assert!(topo.packages[p.package.unwrap() as usize].contains(&cpu));
        assert!(topo.llcs[p.llc.unwrap() as usize].contains(&cpu));
    }
    let caches: Vec<(u32, String, Vec<u32>)> = topo
        .caches
        .iter()
        .map(|c| (c.level, c.kind.clone(), c.cpus.clone()))
        .collect();
    assert_eq!(caches, dump.caches);
    let max_level = dump.caches.iter().map(|c| c.0).max().unwrap();
    let llcs: Vec<Vec<u32>> = dump
        .caches
        .iter()
        .filter(|c| c.0 == max_level)
        .map(|c| c.2.clone())
        .collect();
    assert_eq!(topo.llcs, llcs);
    assert_eq!(topo.nodes, dump.nodes);
}

#[test]
fn hybrid_12_cpus() {
    if fixtures::public_missing() {
        return;
    }
    let topo = topology_of("public/quipper/perf.data.hybrid_topology");
    let dump = parse_dump(&text(&shared(
        "public/expected/quipper_perf.data.hybrid_topology.header.txt",
    )));
    check(&topo, &dump);
    assert_eq!(topo.cpus.len(), 12);
    assert_eq!(topo.cores.len(), 10); // 2 P-cores with SMT + 8 E-cores
    assert_eq!(topo.packages, vec![(0..12).collect::<Vec<u32>>()]);
    assert_eq!(topo.llcs, vec![(0..12).collect::<Vec<u32>>()]);
    // L2: one per P-core, one per 4-Atom cluster.
    assert_eq!(
        topo.l2s,
        vec![vec![0, 1], vec![2, 3], vec![4, 5, 6, 7], vec![8, 9, 10, 11]]
    );
    assert_eq!(topo.place(5).unwrap().l2, topo.place(6).unwrap().l2);
    assert_ne!(topo.place(3).unwrap().l2, topo.place(4).unwrap().l2);
    assert!(topo.nodes.is_empty(), "the file has no NUMA_TOPOLOGY");
    assert_eq!(topo.place(11).unwrap().die_id, Some(0));
}

#[test]
fn amd_384_cpus_24_llcs_2_nodes() {
    if fixtures::public_missing() {
        return;
    }
    let topo = topology_of("public/quipper/perf.data.branch_stack_spec.xz");
    let dump = parse_dump(&text(&shared(
        "public/expected/quipper_perf.data.branch_stack_spec.header.txt",
    )));
    check(&topo, &dump);
    assert_eq!(topo.cpus.len(), 384);
    assert_eq!(topo.cores.len(), 192);
    assert_eq!(topo.packages.len(), 2);
    assert_eq!(topo.llcs.len(), 24);
    assert!(topo.llcs.iter().all(|l| l.len() == 16));
    assert_eq!(
        topo.nodes.iter().map(|n| n.0).collect::<Vec<_>>(),
        vec![0, 1]
    );
    let (a, b) = (topo.place(0).unwrap(), topo.place(192).unwrap());
    assert_eq!((a.core, a.llc, a.node), (b.core, b.llc, b.node)); // SMT siblings
    let c = topo.place(8).unwrap();
    assert_ne!(a.llc, c.llc); // same package, other CCX
    assert_eq!((a.package, a.node), (c.package, c.node));
    assert_eq!(topo.place(96).unwrap().node, Some(1));
}

#[test]
fn host_capture_has_two_cpus() {
    let topo = topology_of("eevdf-6.18-host/pipe_pinned/perf.sched.data.xz");
    assert_eq!(topo.cpus.len(), 2);
    assert_eq!(topo.llcs, vec![vec![0, 1]]);
}

#[test]
fn cpulists() {
    assert_eq!(parse_cpulist("0-2,5,7-8"), Some(vec![0, 1, 2, 5, 7, 8]));
    assert_eq!(parse_cpulist(""), Some(vec![]));
    assert_eq!(parse_cpulist("3-1"), None);
    assert_eq!(parse_cpulist("0-4294967295"), None);
    assert_eq!(parse_cpulist("x"), None);
}
