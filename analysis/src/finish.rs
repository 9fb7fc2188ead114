//! Turning the analyzer's final state into a [`Report`]: closing the intervals still open
//! at the end of the window, the data-quality ledger, and the per-task and per-CPU rows.

use crate::analyzer::Analyzer;
use crate::finish_metrics::{system_affinity, task_metrics, TaskMetrics};
use crate::report::{
    CpuCount, CpuRow, LostRow, Quality, Report, Source, SwitchOut, Switches, TaskRow, TaskSamples,
    Window, SCHEMA_VERSION,
};
use crate::stats::PERCENTILE_METHOD;
use crate::timeline::{SwitchReason, Task};
use ingest::{EventKind, Ingested};

impl Analyzer {
    /// Ends the analysis: closes every open interval at the end of the trace window and
    /// builds the report. `ingested` is what the reader returned; `source_path` is shown.
    pub fn finish(mut self, ingested: &Ingested, source_path: &str) -> Report {
        let end = self.last_ts;
        for slot in 0..self.tasks.len() {
            self.apply_lost(slot);
            self.tasks[slot].finish(end, &self.scope);
        }
        self.settle_metrics(end);
        for cpu in &mut self.cpus {
            cpu.finish(end, &self.scope);
        }
        let window = match self.first_ts {
            Some(first) => {
                let start = first.max(self.scope.start);
                let end = end.min(self.scope.end).max(start);
                Window {
                    start_ns: start,
                    end_ns: end,
                }
            }
            None => Window::default(),
        };
        let quality = self.quality(ingested);
        let mut cpus = self.cpu_rows(window);
        self.fill_cpu_metrics(&mut cpus, window);
        let map = self.cpu_map();
        let all_tasks = std::mem::take(&mut self.tasks);
        let preemption = self.system_preemption(&all_tasks, window.len_ns());
        let fairness = self.system_fairness(&all_tasks);
        let mut affinity_rows = Vec::new();
        let mut tasks: Vec<TaskRow> = all_tasks
            .into_iter()
            .filter(|t| self.active(t))
            .map(|t| {
                let m = task_metrics(&t, map.as_ref());
                affinity_rows.push((m.affinity.clone(), m.migrations));
                task_row(t, m)
            })
            .collect();
        tasks.sort_by(|a, b| b.runtime_ns.cmp(&a.runtime_ns).then(a.pid.cmp(&b.pid)));
        let unknown_ns = tasks.iter().map(|t| t.unknown_ns).sum();
        let meta = &ingested.meta;
        let cpu_count = self.cpu_count(meta.cpus, cpus.len());
        let mut system = crate::system::summarize(&tasks, &cpus, window, cpu_count);
        system.wakeup_preemption = preemption;
        system.fairness = fairness;
        system.affinity = system_affinity(&affinity_rows, map.is_some());
        system.work_conservation = self.work_conservation(window, cpu_count);
        system.worst_wait = crate::system::worst_wait(&tasks, window);
        Report {
            schema_version: SCHEMA_VERSION,
            source: Source {
                path: source_path.to_string(),
                format: meta.format.map(|f| f.name().to_string()),
                format_version: meta.format_version.clone(),
                kernel_release: meta.kernel_release.clone(),
                cpus: meta.cpus,
                clock: meta.clock.clone(),
                scheduler: meta
                    .kernel_release
                    .as_deref()
                    .map_or(crate::SchedulerFamily::Unknown, crate::scheduler_family)
                    .name()
                    .to_string(),
                scheduler_name: meta
                    .kernel_release
                    .as_deref()
                    .map_or_else(|| "unknown".to_string(), crate::scheduler_name),
                extra: meta.extra.clone(),
                topology: self.topology_info(),
            },
            window,
            quality: Quality {
                unknown_ns,
                ..quality
            },
            tasks,
            cpus,
            system,
        }
    }

    /// CPUs the window covers: the `-C` selection, else the trace's CPU count (CPUs
    /// without events were idle or offline), at least the CPUs seen.
    fn cpu_count(&self, trace_cpus: Option<u32>, rows: usize) -> u32 {
        match &self.config.cpus {
            Some(list) => list.len() as u32,
            None => trace_cpus.unwrap_or(0).max(rows as u32),
        }
    }

    /// Whether a task has anything to show in the scope.
    fn active(&self, t: &Task) -> bool {
        let on_cpus = t.runtime_ns > 0
            || t.reasons.iter().any(|&n| n > 0)
            || t.migrations > 0
            || !t.slices.is_empty()
            || !t.affinity.wakeup_latency_is_empty()
            || !t.preemption_wait.is_empty();
        on_cpus
            || (!self.scope.filters_cpus() && (t.sleep_ns > 0 || t.unknown_ns > 0 || t.wakeups > 0))
    }

    fn quality(&self, ingested: &Ingested) -> Quality {
        let stats = &ingested.stats;
        let mut events = stats.events.clone();
        if events.is_empty() {
            for (name, &n) in EventKind::NAMES.iter().zip(&self.kind_counts) {
                if n > 0 {
                    events.insert(name.to_string(), n);
                }
            }
        }
        let mut rejected = stats.rejected.clone();
        for (reason, &n) in &self.rejected {
            *rejected.entry(format!("analysis: {reason}")).or_insert(0) += n;
        }
        let mut lost_events = Vec::new();
        let mut context_switch_bugs = Vec::new();
        for (i, c) in self.cpus.iter().enumerate() {
            let cpu = i as u32;
            if !self.scope.cpu(cpu) {
                continue;
            }
            for l in c.lost.iter().filter(|l| self.scope.contains(l.ts)) {
                lost_events.push(LostRow {
                    cpu,
                    ts_ns: l.ts,
                    count: l.count,
                });
            }
            if c.bugs > 0 {
                context_switch_bugs.push(CpuCount { cpu, count: c.bugs });
            }
        }
        lost_events.sort_by_key(|l| (l.ts_ns, l.cpu));
        let names = [
            "sched_waking",
            "sched_wakeup",
            "sched_wakeup_new",
            "untimed",
        ];
        let wakeup_latency_started_by = names
            .iter()
            .zip(&self.started_by)
            .map(|(n, &c)| (n.to_string(), c))
            .collect();
        Quality {
            events,
            lost_events,
            out_of_order: stats.out_of_order,
            unknown_ns: 0,
            wakeup_event: if self.waking_seen {
                "sched_waking"
            } else {
                "sched_wakeup"
            }
            .to_string(),
            rejected,
            reject_examples: stats.reject_examples.clone(),
            context_switch_bugs,
            wakeup_latency_started_by,
            percentile_method: PERCENTILE_METHOD.to_string(),
        }
    }

    fn cpu_rows(&self, window: Window) -> Vec<CpuRow> {
        let len = window.len_ns();
        let per_len = |x: f64| if len > 0 { x / len as f64 } else { 0.0 };
        self.cpus
            .iter()
            .enumerate()
            .filter(|(i, c)| c.last_event.is_some() && self.scope.cpu(*i as u32))
            .map(|(i, c)| CpuRow {
                cpu: i as u32,
                busy_ns: c.busy_ns,
                idle_ns: c.idle_ns,
                unknown_ns: c.unknown_ns,
                utilization: per_len(c.busy_ns as f64),
                switches: c.switches,
                switches_per_sec: per_len(c.switches as f64 * 1e9),
                context_switch_bugs: c.bugs,
                lost_events: c.lost.iter().filter(|l| self.scope.contains(l.ts)).count() as u64,
                runqueue: Default::default(),
                wakeup_preemptions: 0,
                fairness_jain: None,
            })
            .collect()
    }
}

/// A finished task's row, with its samples kept for grouping.
fn task_row(t: Task, m: TaskMetrics) -> TaskRow {
    let reason = |r: SwitchReason| t.reasons[r.index()];
    let mut samples = TaskSamples {
        slices: t.slices,
        preemption_wait: t.preemption_wait,
        latency_local: t.affinity.latency_local,
        latency_remote: t.affinity.latency_remote,
    };
    let mut row = TaskRow {
        pid: t.pid,
        tgid: (t.tgid >= 0).then_some(t.tgid),
        comm: t.comm.to_string_lossy(),
        comms: t.comms.iter().map(|c| c.to_string_lossy()).collect(),
        runtime_ns: t.runtime_ns,
        unknown_ns: t.unknown_ns,
        sleep_ns: t.sleep_ns,
        migrations: t.migrations,
        runqueue_moves: t.runqueue_moves,
        wakeups: t.wakeups,
        switches: Switches {
            voluntary: reason(SwitchReason::Block),
            involuntary: reason(SwitchReason::WakeupPreempt) + reason(SwitchReason::Preempt),
        },
        switch_out: SwitchOut {
            block: reason(SwitchReason::Block),
            wakeup_preempt: reason(SwitchReason::WakeupPreempt),
            preempt: reason(SwitchReason::Preempt),
            exit: reason(SwitchReason::Exit),
        },
        slices: Default::default(),
        wakeup_latency: Default::default(),
        preemption_wait: Default::default(),
        sched_delay: Default::default(),
        preemption: m.preemption,
        fairness: m.fairness,
        affinity: m.affinity,
        group: None,
        members: Vec::new(),
        percentiles_exact: true,
        samples: None,
    };
    samples.fill(&mut row);
    row.samples = Some(samples);
    row
}
