//! The data-quality ledger (`docs/metrics.md` §9): events per kind, lost events per CPU
//! and when, events out of order, records rejected by the reader or the analysis, context
//! switch bugs per CPU, and which event timed the wakeup latencies.
//!
//! The counts are gathered by the engine as it goes (they are side effects of reading and
//! of checking each switch); this module turns them into the report's [`Quality`].

use crate::cpu::Cpu;
use crate::report::{CpuCount, LostRow, Quality};
use crate::scope::Scope;
use crate::stats::PERCENTILE_METHOD;
use ingest::{EventKind, Ingested};
use std::collections::BTreeMap;

/// What the engine counted for the ledger besides the CPUs' own records.
pub(crate) struct Counted<'a> {
    /// Events per kind, used when the reader gives no counts.
    pub kinds: &'a [u64],
    /// Waits started by waking / wakeup / wakeup_new, and wakeups that could not be timed.
    pub started_by: &'a [u64; 4],
    pub rejected: &'a BTreeMap<&'static str, u64>,
    pub waking_seen: bool,
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
