//! The data-quality ledger (`docs/metrics.md` §9): events per kind, lost events per CPU
//! and when, events out of order, records rejected by the reader or the analysis, context
//! switch bugs per CPU, which event timed the wakeup latencies, suspect time jumps, and the
//! damaged input the reader stepped over.
//!
//! The counts are gathered by the engine as it goes (they are side effects of reading and
//! of checking each switch); this module turns them into the report's [`Quality`], whose
//! types live here (the report model re-exports them, as for the other concerns).

use crate::cpu::Cpu;
use crate::scope::Scope;
use crate::stats::PERCENTILE_METHOD;
use ingest::{EventKind, Ingested};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The data-quality ledger (metrics.md §9).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Quality {
    /// Events read, by event name.
    pub events: BTreeMap<String, u64>,
    pub lost_events: Vec<LostRow>,
    pub out_of_order: u64,
    /// Task time whose state is not known (sum of the tasks' `unknown_ns`).
    pub unknown_ns: u64,
    /// `sched_waking` when the trace has it (it then times wakeup latency), else `sched_wakeup`.
    pub wakeup_event: String,
    /// Records not used, by reason (from the reader and from the analysis).
    #[serde(default)]
    pub rejected: BTreeMap<String, u64>,
    #[serde(default)]
    pub reject_examples: Vec<String>,
    /// Switches inconsistent with what the CPU was believed to run (metrics.md §9).
    #[serde(default)]
    pub context_switch_bugs: Vec<CpuCount>,
    /// Which event started the wait of each timed wakeup latency, and how many wakeups
    /// could not be timed (a `sched_wakeup` without its `sched_waking`).
    #[serde(default)]
    pub wakeup_latency_started_by: BTreeMap<String, u64>,
    #[serde(default)]
    pub percentile_method: String,
    /// Gaps between consecutive events (in time order) too long to be believed: a corrupt
    /// timestamp rather than a quiet system. At most [`TIME_JUMPS_KEPT`] are listed.
    /// Left out of the JSON when there are none (most traces).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub time_jumps: Vec<TimeJump>,
    /// Damaged input stepped over (a corrupt page, a perf.data sample that failed its checks):
    /// the CPU's tasks are unknown from there, as after lost events. Left out when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedRow>,
}

/// One damaged stretch of the input that the reader stepped over.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SkippedRow {
    /// null when the damage cannot be tied to a CPU.
    pub cpu: Option<u32>,
    pub offset: u64,
    pub bytes: u64,
    pub reason: String,
}

/// How many suspect time jumps the ledger lists (a trace of random timestamps has one per event).
pub const TIME_JUMPS_KEPT: usize = 16;

/// A gap of at least `TIME_JUMP_NS` between an event and the one before it in time order.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct TimeJump {
    /// The CPU of the later event.
    pub cpu: u32,
    pub from_ns: u64,
    pub to_ns: u64,
}

impl Quality {
    pub fn context_switch_bugs_total(&self) -> u64 {
        self.context_switch_bugs.iter().map(|c| c.count).sum()
    }

    pub fn lost_events_total(&self) -> (u64, usize) {
        let known = self.lost_events.iter().filter_map(|l| l.count).sum();
        let unknown = self
            .lost_events
            .iter()
            .filter(|l| l.count.is_none())
            .count();
        (known, unknown)
    }
}

/// One place where a CPU's recorder dropped events; `count` null when unknown.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct LostRow {
    pub cpu: u32,
    pub ts_ns: u64,
    pub count: Option<u64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct CpuCount {
    pub cpu: u32,
    pub count: u64,
}

/// What the engine counted for the ledger besides the CPUs' own records.
pub(crate) struct Counted<'a> {
    /// Events per kind, used when the reader gives no counts.
    pub(crate) kinds: &'a [u64],
    /// Waits started by waking / wakeup / wakeup_new, and wakeups that could not be timed.
    pub(crate) started_by: &'a [u64; 4],
    pub(crate) rejected: &'a BTreeMap<&'static str, u64>,
    pub(crate) waking_seen: bool,
    /// Suspect gaps between consecutive events, as the engine saw them.
    pub(crate) time_jumps: &'a [TimeJump],
}

/// The ledger of a finished pass (its `unknown_ns` is filled from the task rows).
pub(crate) fn ledger(
    ingested: &Ingested,
    cpus: &[Cpu],
    scope: &Scope,
    counted: Counted,
) -> Quality {
    let stats = &ingested.stats;
    let mut events = stats.events.clone();
    if events.is_empty() {
        for (name, &n) in EventKind::NAMES.iter().zip(counted.kinds) {
            if n > 0 {
                events.insert(name.to_string(), n);
            }
        }
    }
    let mut rejected = stats.rejected.clone();
    for (reason, &n) in counted.rejected {
        *rejected.entry(format!("analysis: {reason}")).or_insert(0) += n;
    }
    let mut lost_events = Vec::new();
    let mut context_switch_bugs = Vec::new();
    for (i, c) in cpus.iter().enumerate() {
        let cpu = i as u32;
        if !scope.cpu(cpu) {
            continue;
        }
        for l in c.lost.iter().filter(|l| scope.contains(l.ts)) {
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
        .zip(counted.started_by)
        .map(|(n, &c)| (n.to_string(), c))
        .collect();
    Quality {
        events,
        lost_events,
        out_of_order: stats.out_of_order,
        unknown_ns: 0,
        wakeup_event: if counted.waking_seen {
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
        time_jumps: counted.time_jumps.to_vec(),
        skipped: stats
            .skipped
            .iter()
            .map(|d| SkippedRow {
                cpu: d.cpu,
                offset: d.offset,
                bytes: d.bytes,
                reason: d.reason.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use crate::stream::{ev, lost, other, switch, wakeup, waking};
    use ingest::{EventKind, PrevState::Runnable};

    #[test]
    fn losses_bugs_and_rejects_are_counted_where_they_happened() {
        let r = crate::analyze_stream(
            &[
                switch(100, 1, 0, Runnable, 5),
                lost(200, 1, Some(7)),
                // CPU 1 was believed to run 5: a switch from 6 is a context-switch bug.
                switch(300, 0, 0, Runnable, 6),
                switch(400, 0, 6, Runnable, 0),
                switch(500, 0, 7, Runnable, 0),
                ev(600, 1 << 20, 0, EventKind::Other),
                other(700, 1, 5),
            ],
            crate::Config::default(),
        );
        let q = &r.quality;
        assert_eq!(q.lost_events.len(), 1);
        assert_eq!((q.lost_events[0].cpu, q.lost_events[0].count), (1, Some(7)));
        assert_eq!(q.context_switch_bugs_total(), 1);
        assert_eq!(q.context_switch_bugs[0].cpu, 0);
        assert_eq!(q.rejected["analysis: cpu number out of range"], 1);
        assert_eq!(q.wakeup_event, "sched_wakeup");
    }

    #[test]
    fn the_wakeup_event_that_timed_latencies_is_named() {
        let r = crate::analyze_stream(
            &[waking(100, 0, 0, 2, 0), wakeup(110, 0, 0, 3, 0)],
            crate::Config::default(),
        );
        let by = &r.quality.wakeup_latency_started_by;
        assert_eq!((by["sched_waking"], by["untimed"]), (1, 1));
        assert_eq!(r.quality.wakeup_event, "sched_waking");
    }
}
