//! Turning the engine's final state into a [`Report`]: closing the intervals still open
//! at the end of the window, then asking each concern (`metrics/*`) for its part — the
//! ledger, the task and CPU rows, the system summary — and, when asked, the timeline
//! store's [`Timeline`] and the `--series` built from it. Those two need the analyzer's
//! state, so they are finished here, above the store and the series, which import neither
//! the analyzer nor each other's finish.

use super::analyzer::Analyzer;
use crate::interval::SwitchReason;
use crate::metrics::fairness::{self, Presence};
use crate::metrics::placement::{self, cpulist, CpuMap, TaskAffinityRow};
use crate::metrics::runqueue::{AffinityUse, LooksPinned};
use crate::metrics::{idle_states, latency, quality, wait_causes};
use crate::recording::RecordingInfo;
use crate::report::{
    CpuRow, Preemption, Report, Source, SwitchOut, Switches, System, TaskRow, TopologyInfo, Window,
    SCHEMA_VERSION,
};
use crate::series;
use crate::series_sums::IntervalSums;
use crate::timeline::Task;
use crate::timeline_store::{Timeline, TimelineError};
use ingest::Ingested;

impl Analyzer {
    /// Ends the analysis: closes every open interval at the end of the trace window and
    /// builds the report. `ingested` is what the reader returned; `source_path` is shown.
    pub fn finish(self, ingested: &Ingested, source_path: &str) -> Report {
        self.finish_with_timeline(ingested, source_path).0
    }

    /// [`Analyzer::finish`], and the timeline store when `Config::timeline` asked for it
    /// (an error when it outgrew its memory limit).
    pub fn finish_with_timeline(
        mut self,
        ingested: &Ingested,
        source_path: &str,
    ) -> (Report, Option<Result<Timeline, TimelineError>>) {
        let end = self.last_ts;
        for slot in 0..self.tasks.len() {
            self.apply_lost(slot);
            self.tasks[slot].finish(end, &self.scope);
        }
        self.settle_metrics(end);
        self.idle_states.finish(end, &self.scope);
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
        let counted = quality::Counted {
            kinds: &self.kind_counts,
            started_by: &self.started_by,
            rejected: &self.rejected,
            waking_seen: self.waking_seen,
            time_jumps: &self.time_jumps,
        };
        let quality = quality::ledger(ingested, &self.cpus, &self.scope, counted);
        let mut cpus = self.cpu_rows(window);
        self.fill_cpu_metrics(&mut cpus, window);
        let map = self.cpu_map();
        let mut all_tasks = std::mem::take(&mut self.tasks);
        // The last intervals (closed by `finish` above) join the sums made in the pass.
        self.sum_series(&mut all_tasks);
        let timeline = self.take_timeline(&mut all_tasks, window);
        let cpu_list: Vec<u32> = cpus.iter().map(|c| c.cpu).collect();
        let (series, timeline) = self.series(timeline, &all_tasks, window, &cpu_list);
        let (wakeup_pairs, migration_pairs) =
            placement::cpu_pairs(all_tasks.iter().map(|t| &t.affinity), &self.cpus);
        let busy_targets: u64 = all_tasks.iter().map(|t| t.busy_target_wakeups).sum();
        let preemptions: u64 = self.cpus.iter().map(|c| c.wakeup_preemptions).sum();
        let competing = match &self.config.fair_set {
            Some(set) => format!("--fair-set: {}", set.describe()),
            None => "every non-RT task".to_string(),
        };
        let mut fairness = self
            .fairness
            .summary(all_tasks.iter().map(|t| &t.fair), competing);
        if self.recorded_nice.is_some() && self.fairness.scale.prio_ambiguous() {
            fairness.prio_scale +=
                "; weights from the nice the recording sampled where it saw the task";
        }
        let mut affinity_rows = Vec::new();
        let mut pinned_candidates = Vec::new();
        let names: wait_causes::Names = all_tasks.iter().map(|t| (t.pid, t.comm)).collect();
        // Taken as late as this: a worker thread may still be applying the last calls.
        let waits = self.waits.finish();
        let mut waited = Vec::new();
        let mut tasks: Vec<TaskRow> = all_tasks
            .into_iter()
            .enumerate()
            .filter(|(_, t)| self.active(t))
            .map(|(slot, t)| {
                let (affinity, migrations) = placement::task_row(&t.affinity, map.as_ref());
                affinity_rows.push((affinity.clone(), migrations));
                let totals = waits.totals(slot);
                waited.extend(totals);
                let allowed = self.allowed_cpus_row(&t);
                let settled = (t.last_run_cpu, t.settled_slices, t.settled_since);
                let mut row = task_row(t, affinity);
                row.wait_causes = wait_causes::section(totals, &names);
                row.wait_causes.idle_ns_by_state = waits.idle_split.task(slot);
                match (allowed, settled) {
                    (Some(cpus), _) => row.allowed_cpus = Some(cpus),
                    (None, (Some(cpu), slices, since_ns)) => pinned_candidates.push(LooksPinned {
                        pid: row.pid,
                        comm: row.comm.clone(),
                        cpu,
                        slices,
                        since_ns,
                        sched_delay_ns: row.sched_delay.sum_ns,
                    }),
                    _ => {}
                }
                row
            })
            .collect();
        let mut system_waits = wait_causes::section(waited, &names);
        for t in &tasks {
            idle_states::merge(
                &mut system_waits.idle_ns_by_state,
                &t.wait_causes.idle_ns_by_state,
            );
        }
        tasks.sort_by(|a, b| b.runtime_ns.cmp(&a.runtime_ns).then(a.pid.cmp(&b.pid)));
        let unknown_ns = saturating_sum(tasks.iter().map(|t| t.unknown_ns));
        let meta = &ingested.meta;
        let cpu_count = self.cpu_count(meta.cpus, cpus.len());
        let mut system = summarize(&tasks, &cpus, window, cpu_count);
        system.wakeup_preemption = self
            .triples
            .summary(preemptions, busy_targets, window.len_ns());
        system.fairness = fairness;
        system.affinity = placement::system_affinity(&affinity_rows, map.is_some());
        system.affinity.wakeup_cpu_pairs = wakeup_pairs;
        system.affinity.migration_cpu_pairs = migration_pairs;
        let llcs = match &self.topology {
            Some((t, _)) => t.llcs.iter().map(|g| cpulist(g)).collect(),
            None => Vec::new(),
        };
        system.work_conservation = self
            .runqueues
            .work_conservation(window.len_ns() as f64 * cpu_count as f64, llcs);
        let known = tasks.iter().filter(|t| t.allowed_cpus.is_some()).count() as u64;
        system.work_conservation.affinity = AffinityUse::new(
            self.affinity_source(),
            known,
            pinned_candidates,
            system.work_conservation.idle_while_runnable_ns,
        );
        system.worst_wait = crate::worst_wait::worst_wait(&tasks, window);
        system.wait_causes = system_waits;
        let report = Report {
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
                recording: self
                    .config
                    .recording
                    .as_deref()
                    .map(|(path, r)| RecordingInfo::new(path, r)),
            },
            window,
            quality: crate::report::Quality {
                unknown_ns,
                ..quality
            },
            tasks,
            cpus,
            system,
            series,
            trace_span: self.first_ts.map(|first| (first, self.last_ts)),
            records: self
                .records
                .take()
                .map(|r| r.finish(map.as_ref()).map(Box::new)),
        };
        (report, timeline)
    }

    /// Ends the §4–7 accounting at `end`: closes the last complete short-term windows,
    /// takes every task out of the runqueues and fairness clocks, closes the integrals.
    fn settle_metrics(&mut self, end: u64) {
        self.now = end;
        let origin = self.first_ts.unwrap_or(end).max(self.scope.start);
        self.fairness
            .tick(end, origin, self.tasks.as_mut_slice(), &self.scope);
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

    /// Task `t`'s allowed CPUs for its report row (`tasks[].allowed_cpus`), when known.
    fn allowed_cpus_row(&self, t: &Task) -> Option<String> {
        let a = self.affinity.as_ref()?;
        let rule = a.rule_for(&t.comm.to_string_lossy());
        a.last(t.pid, rule).map(|set| set.to_string())
    }

    /// Where the allowed CPUs came from (`work_conservation.affinity.source`).
    fn affinity_source(&self) -> &'static str {
        match self
            .affinity
            .as_ref()
            .map(|a| (a.has_recording(), a.has_rules()))
        {
            Some((true, true)) => "recorded, --affinity",
            Some((true, false)) => "recorded",
            Some((false, true)) => "--affinity",
            _ => "unknown",
        }
    }

    pub(crate) fn cpu_map(&self) -> Option<CpuMap> {
        self.topology.as_ref().map(|(t, _)| CpuMap::new(t))
    }

    fn topology_info(&self) -> Option<TopologyInfo> {
        self.topology.as_ref().map(|(t, source)| TopologyInfo {
            source: source.clone(),
            cores: t.cores.iter().map(|g| cpulist(g)).collect(),
            llcs: t.llcs.iter().map(|g| cpulist(g)).collect(),
            nodes: t.nodes.iter().map(|(_, g)| cpulist(g)).collect(),
        })
    }

    /// Per-CPU runqueue depth, wakeup preemptions and Jain's index of the tasks that
    /// competed there.
    fn fill_cpu_metrics(&self, rows: &mut [CpuRow], window: Window) {
        let jain = fairness::jain_per_cpu(self.tasks.iter().map(|t| &t.fair), self.cpus.len());
        for row in rows {
            let c = row.cpu;
            row.runqueue = self.runqueues.row(c, window.len_ns());
            row.wakeup_preemptions = self.cpus[c as usize].wakeup_preemptions;
            row.fairness_jain = jain[c as usize];
            row.idle_states = self.idle_states.rows(c, &self.scope);
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
            || !t.samples.is_empty();
        on_cpus
            || (!self.scope.filters_cpus() && (t.sleep_ns > 0 || t.unknown_ns > 0 || t.wakeups > 0))
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
                idle_states: Vec::new(),
            })
            .collect()
    }
}

/// A finished task's row, with its samples kept for grouping.
fn task_row(t: Task, affinity: TaskAffinityRow) -> TaskRow {
    let reason = |r: SwitchReason| t.reasons[r.index()];
    let mut samples = t.samples;
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
        preemption: Preemption {
            caused: t.preempt_caused,
            suffered: t.preempt_suffered,
        },
        fairness: fairness::task_row(&t.fair),
        affinity,
        // The statistics are filled from the samples below; no group.
        ..TaskRow::empty()
    };
    row.fill_waits(&mut samples);
    row.samples = Some(samples);
    row
}

/// Builds the system summary from the finished task and CPU rows. `cpu_count` is the
/// number of CPUs the window covers.
pub(crate) fn summarize(
    tasks: &[TaskRow],
    cpus: &[CpuRow],
    window: Window,
    cpu_count: u32,
) -> System {
    let waits = latency::system(tasks.iter().filter_map(|t| t.samples.as_ref()));
    let len = window.len_ns();
    let per_sec = |n: u64| {
        if len > 0 {
            n as f64 * 1e9 / len as f64
        } else {
            0.0
        }
    };
    let busy = saturating_sum(cpus.iter().map(|c| c.busy_ns));
    let context_switches = cpus.iter().map(|c| c.switches).sum();
    let migrations = tasks.iter().map(|t| t.migrations).sum();
    let capacity = len as f64 * cpu_count as f64;
    System {
        wakeup_latency: waits.wakeup_latency,
        preemption_wait: waits.preemption_wait,
        sched_delay: waits.sched_delay,
        switches: tasks.iter().fold(Switches::default(), |mut sum, t| {
            sum += &t.switches;
            sum
        }),
        context_switches,
        context_switches_per_sec: per_sec(context_switches),
        migrations,
        migrations_per_sec: per_sec(migrations),
        utilization: if capacity > 0.0 {
            busy as f64 / capacity
        } else {
            0.0
        },
        cpus: cpu_count,
        wakeups: tasks.iter().map(|t| t.wakeups).sum(),
        ..System::default()
    }
}

/// A sum of durations that stops at u64::MAX: every task's (or CPU's) time lies within the
/// window, but after a corrupt timestamp far ahead (named in the ledger's time jumps) the
/// sum over many of them can pass u64 ns, which must not wrap (or panic in a debug build).
fn saturating_sum(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(0, u64::saturating_add)
}

impl Analyzer {
    /// The finished timeline (after every task's last interval was closed), taking the
    /// logs out of `tasks`. None when the store was not asked for.
    fn take_timeline(
        &mut self,
        tasks: &mut [Task],
        window: Window,
    ) -> Option<Result<Timeline, TimelineError>> {
        if self.draining() {
            // Every interval goes to the drain: no store to give back.
            self.store = None;
            self.drain_now(tasks, true);
            return None;
        }
        Some(self.store.take()?.finish(tasks, self.now, window))
    }

    /// The `--series` of the report, built from the store (which is then given back only
    /// when `Config::timeline` asked for it) and the fairness windows it recorded.
    fn series(
        &mut self,
        timeline: Option<Result<Timeline, TimelineError>>,
        tasks: &[Task],
        window: Window,
        cpus: &[u32],
    ) -> (
        Option<series::Series>,
        Option<Result<Timeline, TimelineError>>,
    ) {
        let Some(counts) = self.series.take() else {
            return (None, timeline);
        };
        let asked = self.config.timeline.is_some();
        let sums = match (&timeline, self.drain.take()) {
            (_, Some(drained)) => drained
                .sums
                .unwrap_or_else(|| IntervalSums::new(window.start_ns, counts.window_ns)),
            (Some(Ok(store)), None) => match self.series_sums.take() {
                Some(sums) => sums,
                None => IntervalSums::of_timeline(store, window, counts.window_ns, &self.scope),
            },
            // Past its memory limit the series cannot be built: say why (as for --timeline).
            _ => return (None, timeline),
        };
        let records = self
            .fairness
            .short
            .iter()
            .find(|st| st.len_ns == counts.window_ns)
            .and_then(|st| st.record.as_deref())
            .unwrap_or(&[]);
        let fair_set = self.config.fair_set.as_ref().map(|_| {
            (0..tasks.len())
                .filter(|&s| tasks[s].fair_member == 1 && tasks[s].fair.ent_ns > 0.0)
                .collect()
        });
        let inputs = series::Inputs {
            counts: &counts,
            records,
            tasks,
            fair_set,
            window,
            cpus,
        };
        let series = series::build(inputs, sums);
        (Some(series), if asked { timeline } else { None })
    }
}
