//! Sample id -> attr index (and CPU) lookup. perf ids are small consecutive numbers per
//! session, so a dense table over [min, max] is used when the range is compact, a hash map
//! otherwise; the lookup is on the per-record hot path.

use std::collections::HashMap;

/// Largest dense table (entries) before falling back to the hash map.
const DENSE_LIMIT: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IdInfo {
    pub attr: u16,
    /// CPU the id was opened on (ID_INDEX), `None` when per-thread or unknown.
    pub cpu: Option<u32>,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct IdMap {
    entries: HashMap<u64, IdInfo>,
    dense_base: u64,
    dense: Vec<Option<IdInfo>>,
}

impl IdMap {
    pub(crate) fn insert(&mut self, id: u64, attr: u16, cpu: Option<u32>) {
        let e = self.entries.entry(id).or_insert(IdInfo { attr, cpu });
        e.attr = attr;
        if cpu.is_some() {
            e.cpu = cpu;
        }
        self.dense.clear();
    }

    /// Records the CPU an already known id was opened on (ID_INDEX).
    pub(crate) fn set_cpu(&mut self, id: u64, cpu: u32) {
        if let Some(e) = self.entries.get_mut(&id) {
            e.cpu = Some(cpu);
            self.dense.clear();
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Builds the dense table (call once ids stop changing; insert() drops it again).
    pub(crate) fn freeze(&mut self) {
        let (Some(&min), Some(&max)) = (self.entries.keys().min(), self.entries.keys().max())
        else {
            return;
        };
        if max - min >= DENSE_LIMIT {
            return;
        }
        self.dense_base = min;
        self.dense = vec![None; (max - min + 1) as usize];
        for (&id, &info) in &self.entries {
            self.dense[(id - min) as usize] = Some(info);
        }
    }

    #[inline]
    pub(crate) fn get(&self, id: u64) -> Option<IdInfo> {
        if !self.dense.is_empty() {
            return self
                .dense
                .get(id.wrapping_sub(self.dense_base) as usize)
                .copied()
                .flatten();
        }
        self.entries.get(&id).copied()
    }
}
