//! CPU topology of the traced machine: where each CPU sits (SMT core, package, die, L2,
//! last-level cache, NUMA node) and the groups of CPUs that share each level.
//!
//! Filled from perf.data's CPU_TOPOLOGY, CACHE and NUMA_TOPOLOGY features (formats.md §7.1);
//! other sources (sysfs sidecars) can build one the same way. The cache-affinity metrics use
//! it to classify a migration or wakeup placement as SMT sibling / shared L2 / shared LLC /
//! same node / remote (formats.md §7.5). Group indices are dense (0..groups.len()); the
//! kernel's own ids (core_id, physical_package_id, die_id, node number) are kept beside them.

/// Where one CPU sits. `None` = the source did not say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuPlace {
    /// Kernel `core_id` (unique only within a package).
    pub core_id: Option<u32>,
    /// Kernel `physical_package_id` (socket).
    pub package_id: Option<u32>,
    /// Kernel `die_id`.
    pub die_id: Option<u32>,
    /// Index into [`Topology::cores`] (SMT siblings).
    pub core: Option<u32>,
    /// Index into [`Topology::packages`].
    pub package: Option<u32>,
    /// Index into [`Topology::l2s`].
    pub l2: Option<u32>,
    /// Index into [`Topology::llcs`].
    pub llc: Option<u32>,
    /// NUMA node number (index into [`Topology::nodes`] by `node` id).
    pub node: Option<u32>,
}

/// One cache as the kernel describes it, deduplicated across the CPUs that share it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    pub level: u32,
    /// "Data", "Instruction" or "Unified".
    pub kind: String,
    /// Size as the kernel prints it ("32K", "32768K").
    pub size: String,
    pub cpus: Vec<u32>,
}

/// The CPU topology of a trace. `cpus[n]` describes CPU n.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Topology {
    pub cpus: Vec<CpuPlace>,
    /// SMT sibling groups (`core_cpus_list`).
    pub cores: Vec<Vec<u32>>,
    /// Package groups (`package_cpus_list`).
    pub packages: Vec<Vec<u32>>,
    /// Die groups (`die_cpus_list`); empty when the source has none.
    pub dies: Vec<Vec<u32>>,
    /// CPU groups sharing a level-2 data/unified cache.
    pub l2s: Vec<Vec<u32>>,
    /// CPU groups sharing the last-level (highest-level data/unified) cache.
    pub llcs: Vec<Vec<u32>>,
    /// NUMA nodes: (node number, CPUs).
    pub nodes: Vec<(u32, Vec<u32>)>,
    /// Every cache entry as recorded (for reports).
    pub caches: Vec<Cache>,
}

/// Highest CPU number accepted from a cpulist: protects against absurd allocations from a
/// corrupt list (Linux NR_CPUS is at most 8192).
pub const MAX_CPU: u32 = 1 << 16;

/// Parses a kernel cpulist (`0-7,192-199`, `3`, empty). Returns `None` when malformed or
/// naming a CPU above [`MAX_CPU`].
pub fn parse_cpulist(text: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for item in text.trim().split(',').filter(|s| !s.is_empty()) {
        let (lo, hi) = match item.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let v = item.trim().parse::<u32>().ok()?;
                (v, v)
            }
        };
        if lo > hi || hi > MAX_CPU {
            return None;
        }
        out.extend(lo..=hi);
    }
    Some(out)
}

impl Topology {
    /// Number of CPUs described.
    pub fn cpu_count(&self) -> usize {
        self.cpus.len()
    }

    pub fn place(&self, cpu: u32) -> Option<&CpuPlace> {
        self.cpus.get(cpu as usize)
    }

    /// Grows `cpus` to cover CPU `cpu`.
    fn slot(&mut self, cpu: u32) -> &mut CpuPlace {
        let i = cpu as usize;
        if self.cpus.len() <= i {
            self.cpus.resize(i + 1, CpuPlace::default());
        }
        &mut self.cpus[i]
    }

    /// Sets the core, package and LLC/L2 indices of every CPU from the group lists
    /// (call after filling `cores`, `packages`, `caches`, `nodes`).
    pub fn index_groups(&mut self) {
        let max_level = self
            .caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .map(|c| c.level)
            .max();
        self.l2s = self.cache_groups(2);
        self.llcs = match max_level {
            Some(level) => self.cache_groups(level),
            None => Vec::new(),
        };
        let cores = self.cores.clone();
        for (i, group) in cores.iter().enumerate() {
            for &cpu in group {
                self.slot(cpu).core = Some(i as u32);
            }
        }
        let packages = self.packages.clone();
        for (i, group) in packages.iter().enumerate() {
            for &cpu in group {
                self.slot(cpu).package = Some(i as u32);
            }
        }
        let l2s = self.l2s.clone();
        for (i, group) in l2s.iter().enumerate() {
            for &cpu in group {
                self.slot(cpu).l2 = Some(i as u32);
            }
        }
        let llcs = self.llcs.clone();
        for (i, group) in llcs.iter().enumerate() {
            for &cpu in group {
                self.slot(cpu).llc = Some(i as u32);
            }
        }
        let nodes = self.nodes.clone();
        for (node, group) in &nodes {
            for &cpu in group {
                self.slot(cpu).node = Some(*node);
            }
        }
    }

    /// Distinct CPU sets of the data/unified caches of one level, in first-seen order.
    fn cache_groups(&self, level: u32) -> Vec<Vec<u32>> {
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for c in &self.caches {
            if c.level == level && c.kind != "Instruction" && !groups.contains(&c.cpus) {
                groups.push(c.cpus.clone());
            }
        }
        groups
    }

    /// Records the kernel ids of CPU `cpu` (perf CPU_TOPOLOGY rev 2/3).
    pub fn set_ids(&mut self, cpu: u32, core_id: Option<u32>, package_id: Option<u32>) {
        let slot = self.slot(cpu);
        slot.core_id = core_id;
        slot.package_id = package_id;
    }

    pub fn set_die(&mut self, cpu: u32, die_id: Option<u32>) {
        self.slot(cpu).die_id = die_id;
    }
}
