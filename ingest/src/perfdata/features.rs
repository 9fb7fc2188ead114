//! Feature sections (formats.md §4.3): the file-mode table after the data section, and the
//! same payloads carried by pipe-mode HEADER_FEATURE records. Collects what schedtrace
//! reports (host, kernel, perf version, CPUs, command line, clock, compression, event
//! names) and the CPU topology (§7.1) into [`Features`].

use super::attr;
use super::bytes::{Cursor, Endian, PerfStrings};
use super::header::{Header, Section};
use crate::topology::{parse_cpulist, Cache, Topology};
use crate::{Error, Result};

pub(super) const TRACING_DATA: u32 = 1;
pub(super) const HOSTNAME: u32 = 3;
pub(super) const OSRELEASE: u32 = 4;
pub(super) const VERSION: u32 = 5;
pub(super) const ARCH: u32 = 6;
pub(super) const NRCPUS: u32 = 7;
pub(super) const CPUDESC: u32 = 8;
pub(super) const CPUID: u32 = 9;
pub(super) const TOTAL_MEM: u32 = 10;
pub(super) const CMDLINE: u32 = 11;
pub(super) const EVENT_DESC: u32 = 12;
pub(super) const CPU_TOPOLOGY: u32 = 13;
pub(super) const NUMA_TOPOLOGY: u32 = 14;
pub(super) const CACHE: u32 = 20;
pub(super) const SAMPLE_TIME: u32 = 21;
pub(super) const CLOCKID: u32 = 23;
pub(super) const COMPRESSED: u32 = 27;
pub(super) const CLOCK_DATA: u32 = 29;
pub(super) const HYBRID_TOPOLOGY: u32 = 30;

/// One EVENT_DESC entry: an attr, its name ("sched:sched_switch") and its sample ids.
#[derive(Debug, Clone)]
pub(crate) struct EventDesc {
    pub name: String,
    pub ids: Vec<u64>,
}

/// What the feature sections said. `tracing_data` is (input offset, bytes) of the
/// TRACING_DATA payload, parsed by the caller with `ftrace::parse_tracing_data`.
#[derive(Debug, Default)]
pub(crate) struct Features {
    pub hostname: Option<String>,
    pub osrelease: Option<String>,
    pub perf_version: Option<String>,
    pub arch: Option<String>,
    pub cpus_available: Option<u32>,
    pub cpus_online: Option<u32>,
    pub cpu_desc: Option<String>,
    pub cpuid: Option<String>,
    pub total_mem_kb: Option<u64>,
    pub cmdline: Option<String>,
    pub events: Vec<EventDesc>,
    pub clock_resolution_ns: Option<u64>,
    pub clockid: Option<i32>,
    pub compression: Option<(u32, u32)>,
    pub sample_time: Option<(u64, u64)>,
    pub hybrid: Vec<(String, String)>,
    pub tracing_data: Option<(u64, Vec<u8>)>,
    topology_raw: Option<(u64, Vec<u8>)>,
    numa_raw: Option<(u64, Vec<u8>)>,
    cache_raw: Option<(u64, Vec<u8>)>,
}

/// Reads the file-mode feature table (right after the data section) and every section.
pub(super) fn read_file_features(bytes: &[u8], header: &Header) -> Result<Features> {
    let mut features = Features::default();
    let table = header
        .data
        .offset
        .checked_add(header.data.size)
        .ok_or_else(|| Error::at(40, "data section offset + size overflows"))?;
    let wanted: Vec<u32> = header
        .features
        .iter()
        .copied()
        .filter(|&b| b >= 1)
        .collect();
    for (i, &bit) in wanted.iter().enumerate() {
        let entry = table + 16 * i as u64;
        let raw = Section {
            offset: entry,
            size: 16,
        }
        .slice(bytes, "feature table", entry)?;
        let mut c = Cursor::new(raw, entry, header.endian);
        let section = Section {
            offset: c.u64("feature offset")?,
            size: c.u64("feature size")?,
        };
        let payload = section.slice(
            bytes,
            &format!("feature {} ({})", bit, feature_name(bit)),
            entry,
        )?;
        features.add(bit, payload, section.offset, header.endian)?;
    }
    Ok(features)
}

pub(super) fn feature_name(bit: u32) -> &'static str {
    const NAMES: [&str; 32] = [
        "RESERVED",
        "TRACING_DATA",
        "BUILD_ID",
        "HOSTNAME",
        "OSRELEASE",
        "VERSION",
        "ARCH",
        "NRCPUS",
        "CPUDESC",
        "CPUID",
        "TOTAL_MEM",
        "CMDLINE",
        "EVENT_DESC",
        "CPU_TOPOLOGY",
        "NUMA_TOPOLOGY",
        "BRANCH_STACK",
        "PMU_MAPPINGS",
        "GROUP_DESC",
        "AUXTRACE",
        "STAT",
        "CACHE",
        "SAMPLE_TIME",
        "MEM_TOPOLOGY",
        "CLOCKID",
        "DIR_FORMAT",
        "BPF_PROG_INFO",
        "BPF_BTF",
        "COMPRESSED",
        "CPU_PMU_CAPS",
        "CLOCK_DATA",
        "HYBRID_TOPOLOGY",
        "PMU_CAPS",
    ];
    NAMES.get(bit as usize).copied().unwrap_or("unknown")
}

fn text(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).into_owned()
}

impl Features {
    /// Takes one feature payload found at input offset `at`.
    pub(crate) fn add(&mut self, bit: u32, payload: &[u8], at: u64, endian: Endian) -> Result<()> {
        let what = feature_name(bit);
        let mut c = Cursor::new(payload, at, endian);
        match bit {
            TRACING_DATA => self.tracing_data = Some((at, payload.to_vec())),
            HOSTNAME => self.hostname = Some(text(c.perf_string(what)?)),
            OSRELEASE => self.osrelease = Some(text(c.perf_string(what)?)),
            VERSION => self.perf_version = Some(text(c.perf_string(what)?)),
            ARCH => self.arch = Some(text(c.perf_string(what)?)),
            CPUDESC => self.cpu_desc = Some(text(c.perf_string(what)?)),
            CPUID => self.cpuid = Some(text(c.perf_string(what)?)),
            NRCPUS => {
                self.cpus_available = Some(c.u32(what)?);
                self.cpus_online = Some(c.u32(what)?);
            }
            TOTAL_MEM => self.total_mem_kb = Some(c.u64(what)?),
            CMDLINE => self.cmdline = Some(c.perf_string_list(what)?.join(" ")),
            EVENT_DESC => self.events = parse_event_desc(&mut c)?,
            CPU_TOPOLOGY => self.topology_raw = Some((at, payload.to_vec())),
            NUMA_TOPOLOGY => self.numa_raw = Some((at, payload.to_vec())),
            CACHE => self.cache_raw = Some((at, payload.to_vec())),
            SAMPLE_TIME => self.sample_time = Some((c.u64(what)?, c.u64(what)?)),
            CLOCKID => self.clock_resolution_ns = Some(c.u64(what)?),
            COMPRESSED => {
                let _version = c.u32(what)?;
                self.compression = Some((c.u32(what)?, c.u32(what)?));
            }
            CLOCK_DATA => {
                let _version = c.u32(what)?;
                self.clockid = Some(c.u32(what)? as i32);
            }
            HYBRID_TOPOLOGY => {
                let nr = c.u32(what)?;
                for _ in 0..nr.min(1024) {
                    let pmu = text(c.perf_string(what)?);
                    let cpus = text(c.perf_string(what)?);
                    self.hybrid.push((pmu, cpus));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Builds the topology from CPU_TOPOLOGY, CACHE and NUMA_TOPOLOGY (NRCPUS first).
    pub(crate) fn topology(&self, endian: Endian) -> Result<Option<Topology>> {
        if self.topology_raw.is_none() && self.cache_raw.is_none() && self.numa_raw.is_none() {
            return Ok(None);
        }
        let mut topo = Topology::default();
        if let Some(n) = self.cpus_available {
            topo.cpus
                .resize(n.min(crate::topology::MAX_CPU) as usize, Default::default());
        }
        if let Some((at, raw)) = &self.topology_raw {
            self.parse_cpu_topology(&mut topo, Cursor::new(raw, *at, endian))?;
        }
        if let Some((at, raw)) = &self.cache_raw {
            parse_cache(&mut topo, Cursor::new(raw, *at, endian))?;
        }
        if let Some((at, raw)) = &self.numa_raw {
            parse_numa(&mut topo, Cursor::new(raw, *at, endian))?;
        }
        topo.index_groups();
        Ok(Some(topo))
    }

    fn parse_cpu_topology(&self, topo: &mut Topology, mut c: Cursor) -> Result<()> {
        const WHAT: &str = "CPU_TOPOLOGY";
        topo.packages = cpulists(&c.clone(), c.perf_string_list(WHAT)?)?;
        topo.cores = cpulists(&c.clone(), c.perf_string_list(WHAT)?)?;
        // Revision 2: per-CPU core and socket ids, for nr_cpus_available CPUs.
        let Some(nr) = self.cpus_available else {
            return Ok(());
        };
        if c.remaining() < nr as usize * 8 {
            return Ok(());
        }
        for cpu in 0..nr {
            let core = c.u32(WHAT)? as i32;
            let socket = c.u32(WHAT)? as i32;
            topo.set_ids(
                cpu,
                (core >= 0).then_some(core as u32),
                (socket >= 0).then_some(socket as u32),
            );
        }
        // Revision 3: die lists and per-CPU die ids.
        if c.remaining() < 4 {
            return Ok(());
        }
        topo.dies = cpulists(&c.clone(), c.perf_string_list(WHAT)?)?;
        if c.remaining() < nr as usize * 4 {
            return Ok(());
        }
        for cpu in 0..nr {
            let die = c.u32(WHAT)? as i32;
            topo.set_die(cpu, (die >= 0).then_some(die as u32));
        }
        Ok(())
    }
}

fn cpulists(at: &Cursor, lists: Vec<String>) -> Result<Vec<Vec<u32>>> {
    lists
        .iter()
        .map(|l| {
            parse_cpulist(l).ok_or_else(|| Error::at(at.offset(), format!("bad cpu list {l:?}")))
        })
        .collect()
}

fn parse_cache(topo: &mut Topology, mut c: Cursor) -> Result<()> {
    const WHAT: &str = "CACHE";
    let _version = c.u32(WHAT)?;
    let at = c.offset();
    let nr = c.u32(WHAT)? as usize;
    // An entry is at least 4 u32 + 3 string lengths.
    if nr > c.remaining() / 28 {
        return Err(Error::at(
            at,
            format!("CACHE: {nr} entries cannot fit in the section"),
        ));
    }
    for _ in 0..nr {
        let level = c.u32(WHAT)?;
        c.skip(12, WHAT)?; // line_size, sets, ways
        let kind = text(c.perf_string(WHAT)?);
        let size = text(c.perf_string(WHAT)?);
        let map_at = c.offset();
        let map = text(c.perf_string(WHAT)?);
        let cpus = parse_cpulist(&map)
            .ok_or_else(|| Error::at(map_at, format!("CACHE: bad cpu list {map:?}")))?;
        topo.caches.push(Cache {
            level,
            kind,
            size,
            cpus,
        });
    }
    Ok(())
}

fn parse_numa(topo: &mut Topology, mut c: Cursor) -> Result<()> {
    const WHAT: &str = "NUMA_TOPOLOGY";
    let at = c.offset();
    let nr = c.u32(WHAT)? as usize;
    if nr > c.remaining() / 24 {
        return Err(Error::at(
            at,
            format!("NUMA_TOPOLOGY: {nr} nodes cannot fit in the section"),
        ));
    }
    for _ in 0..nr {
        let node = c.u32(WHAT)?;
        c.skip(16, WHAT)?; // mem_total, mem_free
        let list_at = c.offset();
        let list = text(c.perf_string(WHAT)?);
        let cpus = parse_cpulist(&list)
            .ok_or_else(|| Error::at(list_at, format!("NUMA_TOPOLOGY: bad cpu list {list:?}")))?;
        topo.nodes.push((node, cpus));
    }
    Ok(())
}

fn parse_event_desc(c: &mut Cursor) -> Result<Vec<EventDesc>> {
    const WHAT: &str = "EVENT_DESC";
    let at = c.offset();
    let nr = c.u32(WHAT)? as usize;
    let attr_size = c.u32(WHAT)? as usize;
    if attr_size < attr::ATTR_SIZE_VER0 as usize || nr > c.remaining() / attr_size.max(1) {
        return Err(Error::at(
            at,
            format!("EVENT_DESC: {nr} attrs of {attr_size} bytes do not fit"),
        ));
    }
    let mut out = Vec::with_capacity(nr);
    for _ in 0..nr {
        let attr_at = c.offset();
        let raw = c.bytes(attr_size, WHAT)?;
        // Checked, though the attrs section's copy is the one used.
        attr::parse(endian_of(c), raw, attr_size, attr_at)?;
        let nr_ids = c.u32(WHAT)? as usize;
        let name = text(c.perf_string(WHAT)?);
        if nr_ids > c.remaining() / 8 {
            return Err(Error::at(
                c.offset(),
                format!("EVENT_DESC: {nr_ids} ids do not fit"),
            ));
        }
        let mut ids = Vec::with_capacity(nr_ids);
        for _ in 0..nr_ids {
            ids.push(c.u64(WHAT)?);
        }
        out.push(EventDesc { name, ids });
    }
    Ok(out)
}

fn endian_of(c: &Cursor) -> Endian {
    c.endian()
}
