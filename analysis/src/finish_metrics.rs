//! The §4–7 parts of the report, built once the pass is over: each task's preemption,
//! fairness and affinity rows (CPU pairs classified with the topology now known), and
//! the system and per-CPU summaries.

use crate::affinity::{Class, CpuMap, PairKind};
use crate::analyzer::Analyzer;
use crate::fairness::jain;
use crate::report::{CpuRow, Window};
use crate::report_metrics::*;
use crate::timeline::{Presence, Task};

/// Everything a task contributes to the report's §4–7 fields.
pub(crate) struct TaskMetrics {
    pub preemption: Preemption,
    pub fairness: Option<TaskFairness>,
    pub affinity: TaskAffinityRow,
    pub migrations: MigrationClasses,
}

fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

pub(crate) fn task_metrics(t: &Task, map: Option<&CpuMap>) -> TaskMetrics {
    let f = &t.fair;
    let fairness = (f.ent_ns > 0.0).then(|| TaskFairness {
        weight: f.last_weight,
        entitlement_ns: f.ent_ns,
        runtime_ns: f.run_ns,
        ratio: Some(f.run_ns as f64 / f.ent_ns),
        max_abs_lag_ns: f.max_abs_lag_ns,
        max_abs_lag_at_ns: (f.max_abs_lag_ns > 0.0).then_some(f.max_abs_lag_at),
    });
    let a = &t.affinity;
    let mut placement = Placement::default();
    let mut migrations = MigrationClasses::default();
    let (mut restarts, mut warm) = (0, 0);
    let class = |from, to| match map {
        Some(m) => m.class(from, to),
        None if from == to => Class::SameCpu,
        None => Class::Unknown,
    };
    // A CPU with itself is `SameCpu` under any topology: its counts are kept per kind only.
    let same_cpu = (0..a.same_cpu.len()).map(|k| (k as u64, a.same_cpu[k]));
    let pairs = a
        .iter_pairs()
        .map(|(kind, from, to, n)| (kind, class(from, to), n));
    for (kind, c, n) in same_cpu
        .map(|(kind, n)| (kind, Class::SameCpu, n))
        .chain(pairs)
    {
        if kind == PairKind::Slice as u64 {
            restarts += n;
            match c {
                Class::SameCpu => warm += n,
                Class::SameCore => migrations.same_core += n,
                Class::SameLlc => migrations.same_llc += n,
                Class::SameNode => migrations.same_node += n,
                Class::RemoteNode => migrations.remote_node += n,
                Class::Unknown => migrations.unknown += n,
            }
        } else if kind == PairKind::WakePrev as u64 {
            match c {
                Class::SameCpu => placement.same_cpu += n,
                Class::SameCore => placement.same_core += n,
                Class::SameLlc => placement.same_llc += n,
                Class::SameNode => placement.same_node += n,
                Class::RemoteNode => placement.remote_node += n,
                Class::Unknown => placement.unknown += n,
            }
        } else {
            match c {
                Class::SameCpu => placement.waker_cpu += n,
                Class::SameCore | Class::SameLlc => placement.waker_llc += n,
                Class::SameNode | Class::RemoteNode => placement.other += n,
                Class::Unknown => placement.waker_unknown += n,
            }
        }
    }
    let total: u64 = a.runtime_by_cpu.iter().sum();
    let top_cpu = a.runtime_by_cpu.iter().copied().max().unwrap_or(0);
    let top_llc = map.filter(|m| m.has_llcs()).map(|m| {
        let mut by_llc = vec![0u64; m.llc_count + 1];
        for (cpu, &ns) in a.runtime_by_cpu.iter().enumerate() {
            // CPUs outside the topology share one "unknown" bucket.
            let l = m.llc(cpu as u32).map_or(m.llc_count, |l| l as usize);
            if l < by_llc.len() {
                by_llc[l] += ns;
            }
        }
        by_llc.into_iter().max().unwrap_or(0)
    });
    let affinity = TaskAffinityRow {
        wakeups_local: a.wakeups_local,
        wakeups_remote: a.wakeups_remote,
        // Filled from the samples with the other statistics.
        wakeup_latency_local: Default::default(),
        wakeup_latency_remote: Default::default(),
        placement,
        restarts,
        warm_restarts: warm,
        warm_restart_share: share(warm, restarts),
        top_cpu_share: share(top_cpu, total),
        top_llc_share: top_llc.and_then(|n| share(n, total)),
    };
    TaskMetrics {
        preemption: Preemption {
            caused: t.preempt_caused,
            suffered: t.preempt_suffered,
        },
        fairness,
        affinity,
        migrations,
    }
}

impl Analyzer {
    /// Ends the §4–7 accounting at `end`: closes the last complete short-term windows,
    /// takes every task out of the runqueues and fairness clocks, closes the integrals.
    pub(crate) fn settle_metrics(&mut self, end: u64) {
        self.now = end;
        let origin = self.first_ts.unwrap_or(end).max(self.scope.start);
        self.fairness
            .tick(end, origin, &mut self.tasks, &self.scope);
        for slot in 0..self.tasks.len() {
            self.observe(slot);
            let t = &mut self.tasks[slot];
            self.fairness.change(
                slot as u32,
                &mut t.fair,
                Presence::NONE,
                0,
                end,
                &self.scope,
            );
        }
        self.runqueues.finish(end, &self.scope);
    }

    pub(crate) fn cpu_map(&self) -> Option<CpuMap> {
        self.topology.as_ref().map(|(t, _)| CpuMap::new(t))
    }

    pub(crate) fn topology_info(&self) -> Option<TopologyInfo> {
        self.topology.as_ref().map(|(t, source)| TopologyInfo {
            source: source.clone(),
            cores: t.cores.iter().map(|g| cpulist(g)).collect(),
            llcs: t.llcs.iter().map(|g| cpulist(g)).collect(),
            nodes: t.nodes.iter().map(|(_, g)| cpulist(g)).collect(),
        })
    }

    /// Per-CPU runqueue depth, wakeup preemptions and Jain's index of the tasks that
    /// competed there (their ratios on that CPU).
    pub(crate) fn fill_cpu_metrics(&self, rows: &mut [CpuRow], window: Window) {
        let len = window.len_ns();
        let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); self.cpus.len()];
        for t in &self.tasks {
            for &(cpu, run, ent) in &t.fair.per_cpu {
                if ent > 0.0 && (cpu as usize) < ratios.len() {
                    ratios[cpu as usize].push(run as f64 / ent);
                }
            }
        }
        for row in rows {
            let c = row.cpu;
            row.runqueue = Runqueue {
                mean_depth: if len > 0 {
                    self.runqueues.area(c) as f64 / len as f64
                } else {
                    0.0
                },
                max_depth: self.runqueues.max_depth(c),
            };
            row.wakeup_preemptions = self.cpus[c as usize].wakeup_preemptions;
            row.fairness_jain = jain(&ratios[c as usize]);
        }
    }

    pub(crate) fn system_preemption(&self, tasks: &[Task], len: u64) -> SystemPreemption {
        let count: u64 = self.cpus.iter().map(|c| c.wakeup_preemptions).sum();
        let busy: u64 = tasks.iter().map(|t| t.busy_target_wakeups).sum();
        let mut triples: Vec<Triple> = self
            .triples
            .iter()
            .map(|((w, e, v), &(n, first, last))| Triple {
                waker: w.to_string_lossy(),
                wakee: e.to_string_lossy(),
                victim: v.to_string_lossy(),
                count: n,
                first_ns: first,
                last_ns: last,
            })
            .collect();
        triples.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| (&a.waker, &a.wakee, &a.victim).cmp(&(&b.waker, &b.wakee, &b.victim)))
        });
        let top_triples = triples.iter().take(10).cloned().collect();
        SystemPreemption {
            count,
            per_sec: if len > 0 {
                count as f64 * 1e9 / len as f64
            } else {
                0.0
            },
            busy_target_wakeups: busy,
            ratio_busy_target: share(count, busy),
            top_triples,
            triples,
        }
    }

    pub(crate) fn system_fairness(&self, tasks: &[Task]) -> SystemFairness {
        let ratios: Vec<f64> = tasks
            .iter()
            .filter(|t| t.fair.ent_ns > 0.0)
            .map(|t| t.fair.run_ns as f64 / t.fair.ent_ns)
            .collect();
        let max_lag = tasks
            .iter()
            .map(|t| t.fair.max_abs_lag_ns)
            .fold(0.0, f64::max);
        SystemFairness {
            competing: match &self.config.fair_set {
                Some(set) => format!("--fair-set: {}", set.describe()),
                None => "every non-RT task".to_string(),
            },
            prio_scale: self.fairness.scale.name().to_string(),
            tasks: ratios.len() as u64,
            jain: jain(&ratios),
            // Only the reported lengths (a `--series` window may have added one more).
            short_term: self
                .fairness
                .short
                .iter()
                .take(crate::fairness::WINDOWS_NS.len())
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

    pub(crate) fn work_conservation(&self, window: Window, cpu_count: u32) -> WorkConservation {
        let (any, llc) = self.runqueues.loss_ns();
        let capacity = window.len_ns() as f64 * cpu_count as f64;
        let by_llc = match &self.topology {
            Some((t, _)) => t
                .llcs
                .iter()
                .zip(self.runqueues.loss_by_llc())
                .map(|(g, ns)| LlcLoss {
                    cpus: cpulist(g),
                    idle_while_runnable_ns: ns,
                })
                .collect(),
            None => Vec::new(),
        };
        WorkConservation {
            idle_while_runnable_ns: any,
            idle_while_runnable_llc_ns: llc,
            idle_while_runnable_share: if capacity > 0.0 {
                any as f64 / capacity
            } else {
                0.0
            },
            by_llc,
        }
    }
}

/// Sums the tasks' affinity rows and migration classes into the system view.
pub(crate) fn system_affinity(
    rows: &[(TaskAffinityRow, MigrationClasses)],
    topology: bool,
) -> SystemAffinity {
    let mut s = SystemAffinity {
        topology,
        ..Default::default()
    };
    let (mut restarts, mut warm) = (0, 0);
    for (a, m) in rows {
        let c = &mut s.migrations_by_class;
        c.same_core += m.same_core;
        c.same_llc += m.same_llc;
        c.same_node += m.same_node;
        c.remote_node += m.remote_node;
        c.unknown += m.unknown;
        s.wakeups_local += a.wakeups_local;
        s.wakeups_remote += a.wakeups_remote;
        restarts += a.restarts;
        warm += a.warm_restarts;
        s.placement += &a.placement;
    }
    let c = &s.migrations_by_class;
    let all = c.same_core + c.same_llc + c.same_node + c.remote_node + c.unknown;
    s.cross_llc_share = if topology {
        share(c.same_node + c.remote_node, all)
    } else {
        None
    };
    s.warm_restart_share = share(warm, restarts);
    s
}

/// The sparse waker CPU × wakee CPU and migration from × to matrices of the tasks'
/// CPU pairs (the diagonal of wakeups from the CPUs' local counts; a migration is never
/// on the diagonal).
pub(crate) fn cpu_pairs(tasks: &[Task], cpus: &[crate::cpu::Cpu]) -> (Vec<CpuPair>, Vec<CpuPair>) {
    let mut wakeups = std::collections::BTreeMap::new();
    let mut migrations = std::collections::BTreeMap::new();
    for (cpu, c) in cpus.iter().enumerate() {
        if c.local_wakeups > 0 {
            wakeups.insert((cpu as u32, cpu as u32), c.local_wakeups);
        }
    }
    for t in tasks {
        for (kind, from, to, n) in t.affinity.iter_pairs() {
            let matrix = if kind == PairKind::WakeWaker as u64 {
                &mut wakeups
            } else if kind == PairKind::Slice as u64 {
                &mut migrations
            } else {
                continue;
            };
            *matrix.entry((from, to)).or_insert(0) += n;
        }
    }
    let cells = |m: std::collections::BTreeMap<(u32, u32), u64>| {
        m.into_iter()
            .map(|((from, to), count)| CpuPair { from, to, count })
            .collect()
    };
    (cells(wakeups), cells(migrations))
}
