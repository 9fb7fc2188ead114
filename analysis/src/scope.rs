//! What part of a trace the numbers cover: the `--time` window (intervals are clipped
//! to it, counts are taken when their event falls in it) and the `-C` CPU selection.

/// A half-open time range `[start, end)` in ns plus the CPUs that count.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// `None` = every CPU; otherwise `selected[cpu]` tells whether a CPU counts.
    selected: Option<Vec<bool>>,
}

impl Scope {
    pub(crate) fn new(window: Option<(u64, u64)>, cpus: Option<&[u32]>) -> Scope {
        let (start, end) = window.unwrap_or((0, u64::MAX));
        let selected = cpus.map(|list| {
            let len = list.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
            let mut mask = vec![false; len];
            for &c in list {
                mask[c as usize] = true;
            }
            mask
        });
        Scope {
            start,
            end,
            selected,
        }
    }

    /// Length of `[a, b)` inside the window.
    #[inline]
    pub(crate) fn clip(&self, a: u64, b: u64) -> u64 {
        b.min(self.end).saturating_sub(a.max(self.start))
    }

    /// Whether an event at `t` is counted.
    #[inline]
    pub(crate) fn contains(&self, t: u64) -> bool {
        t >= self.start && t < self.end
    }

    #[inline]
    pub(crate) fn cpu(&self, cpu: u32) -> bool {
        match &self.selected {
            None => true,
            Some(mask) => mask.get(cpu as usize).copied().unwrap_or(false),
        }
    }

    /// Whether an event at `t` on `cpu` is counted.
    #[inline]
    pub(crate) fn counts(&self, t: u64, cpu: u32) -> bool {
        self.contains(t) && self.cpu(cpu)
    }

    pub(crate) fn filters_cpus(&self) -> bool {
        self.selected.is_some()
    }
}

impl crate::Config {
    /// The scope of this configuration for a trace whose first event is at `first` (which
    /// only matters for a relative `--time`).
    pub(crate) fn scope_from(&self, first: u64) -> Scope {
        let base = if self.time_relative { first } else { 0 };
        let window = self
            .time_window
            .map(|(s, e)| (base.saturating_add(s), base.saturating_add(e)));
        Scope::new(window, self.cpus.as_deref())
    }
}
