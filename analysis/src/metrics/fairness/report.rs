//! The report's fairness fields (metrics.md §7), built from each task's [`FairTask`] once
//! the pass is over, the system summary, and the merge rule for grouped rows.

use super::{jain, FairTask, Fairness, WINDOWS_NS};
use serde::{Deserialize, Serialize};

/// Per task fairness (§7); absent for tasks that never competed (RT, outside `--fair-set`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct TaskFairness {
    /// Weight from the nice-to-weight table (the last one it competed with).
    pub weight: u32,
    /// Fluid-share service it was entitled to.
    pub entitlement_ns: f64,
    /// Running time while competing.
    pub runtime_ns: u64,
    /// runtime / entitlement (1.0 = fair); null when the entitlement is 0.
    pub ratio: Option<f64>,
    pub max_abs_lag_ns: f64,
    /// When the largest lag was reached; null when the lag never left 0.
    #[serde(default)]
    pub max_abs_lag_at_ns: Option<u64>,
}

/// Short-term Jain's index over consecutive windows of `window_ns`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct ShortTermFairness {
    pub window_ns: u64,
    /// Complete windows with at least two competing tasks.
    pub windows: u64,
    pub mean: Option<f64>,
    pub min: Option<f64>,
}

/// System-wide fairness (§7).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SystemFairness {
    /// Which tasks compete: every non-RT task, or the `--fair-set`.
    pub competing: String,
    /// How prio maps to nice for this kernel.
    pub prio_scale: String,
    /// Tasks with an entitlement.
    pub tasks: u64,
    /// Jain's index of the fairness ratios of all competing tasks.
    pub jain: Option<f64>,
    pub short_term: Vec<ShortTermFairness>,
    pub max_abs_lag_ns: f64,
}

/// A task's fairness row; `None` when it never competed (RT, outside `--fair-set`).
pub(crate) fn task_row(f: &FairTask) -> Option<TaskFairness> {
    (f.ent_ns > 0.0).then(|| TaskFairness {
        weight: f.last_weight,
        entitlement_ns: f.ent_ns,
        runtime_ns: f.run_ns,
        ratio: Some(f.run_ns as f64 / f.ent_ns),
        max_abs_lag_ns: f.max_abs_lag_ns,
        max_abs_lag_at_ns: (f.max_abs_lag_ns > 0.0).then_some(f.max_abs_lag_at),
    })
}

/// Adds member `m` to a grouped row's fairness: total runtime over total entitlement, the
/// largest lag; the weight is the first member's.
pub(crate) fn merge(group: &mut Option<TaskFairness>, m: &TaskFairness) {
    let g = group.get_or_insert(TaskFairness {
        weight: m.weight,
        ..Default::default()
    });
    g.entitlement_ns += m.entitlement_ns;
    g.runtime_ns = g.runtime_ns.saturating_add(m.runtime_ns);
    g.ratio = (g.entitlement_ns > 0.0).then(|| g.runtime_ns as f64 / g.entitlement_ns);
    if m.max_abs_lag_ns > g.max_abs_lag_ns {
        g.max_abs_lag_ns = m.max_abs_lag_ns;
        g.max_abs_lag_at_ns = m.max_abs_lag_at_ns;
    }
}

impl Fairness {
    /// The system-wide fairness of the competing tasks `fair`; `competing` says who competes.
    pub(crate) fn summary<'a>(
        &self,
        fair: impl Iterator<Item = &'a FairTask> + Clone,
        competing: String,
    ) -> SystemFairness {
        let ratios: Vec<f64> = fair
            .clone()
            .filter(|f| f.ent_ns > 0.0)
            .map(|f| f.run_ns as f64 / f.ent_ns)
            .collect();
        let max_lag = fair.map(|f| f.max_abs_lag_ns).fold(0.0, f64::max);
        SystemFairness {
            competing,
            prio_scale: self.scale.name().to_string(),
            tasks: ratios.len() as u64,
            jain: jain(&ratios),
            // Only the reported lengths (a `--series` window may have added one more).
            short_term: self
                .short
                .iter()
                .take(WINDOWS_NS.len())
                .map(|st| ShortTermFairness {
                    window_ns: st.len_ns,
                    windows: st.count,
                    mean: (st.count > 0).then(|| st.sum / st.count as f64),
                    min: (st.count > 0).then_some(st.min),
                })
                .collect(),
            max_abs_lag_ns: max_lag,
        }
    }
}

/// Per CPU, Jain's index of the ratios of the tasks that competed there (their ratios on
/// that CPU); `cpus` entries.
pub(crate) fn jain_per_cpu<'a>(
    fair: impl Iterator<Item = &'a FairTask>,
    cpus: usize,
) -> Vec<Option<f64>> {
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); cpus];
    for f in fair {
        for &(cpu, run, ent) in &f.per_cpu {
            if ent > 0.0 && (cpu as usize) < ratios.len() {
                ratios[cpu as usize].push(run as f64 / ent);
            }
        }
    }
    ratios.iter().map(|r| jain(r)).collect()
}
