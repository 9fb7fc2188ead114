//! Per-event records (opt-in, `Config::records`, for `schedtrace export`): every wait that
//! ended in a switch-in — a wakeup latency, an untimed wakeup, a preemption wait — with its
//! waker and where it was placed, and every wakeup preemption with its waker, wakee and
//! victim. The report keeps only their statistics; a notebook wants the samples.
//!
//! A record is taken exactly where the report takes the sample (the same scope rule), so
//! the waits of kind `wakeup` of a task are its wakeup-latency samples, one for one.
//! Recording costs one untaken branch per switch-in when it is off. When it is on, a wait
//! takes a few dozen bytes (`size_of::<WaitRecord>()`); past the memory limit the records are dropped
//! (and the export says why) rather than run the machine out of memory.

use super::placement::{classify, CpuMap};

/// What made the task wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitKind {
    /// Woken, then switched in: a wakeup latency sample.
    Wakeup,
    /// Woken by a `sched_wakeup` whose `sched_waking` was not seen: its start is not
    /// known, so its length is no latency (the report counts it as untimed).
    WakeupUntimed,
    /// Switched out runnable, then switched in again: a preemption wait sample.
    Preemption,
}

impl WaitKind {
    pub fn name(self) -> &'static str {
        match self {
            WaitKind::Wakeup => "wakeup",
            WaitKind::WakeupUntimed => "wakeup_untimed",
            WaitKind::Preemption => "preemption",
        }
    }
}

/// Where a CPU lies from another one (docs/metrics.md §6): the placement metrics' classes.
pub use super::placement::Class as PlacementClass;

/// One wait that ended when its task was switched in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitRecord {
    pub pid: i32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Where it was switched in.
    pub cpu: u32,
    pub kind: WaitKind,
    /// Wakeups: the waking task (0: an interrupt on an idle CPU), when known.
    pub waker_pid: Option<i32>,
    /// Wakeups: the CPU where the wakeup fired.
    pub waker_cpu: Option<u32>,
    /// Wakeups: the CPU of the task's previous slice, when it had one.
    pub prev_cpu: Option<u32>,
    /// Wakeups: `cpu` seen from `prev_cpu` (none without a previous slice).
    pub placement: Option<PlacementClass>,
    /// Wakeups: `cpu` seen from `waker_cpu`.
    pub waker_placement: Option<PlacementClass>,
}

/// One wakeup preemption (§5): `wakee`, woken onto `cpu` while `victim` ran there, took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreemptionRecord {
    pub ts_ns: u64,
    pub cpu: u32,
    /// The task that woke the wakee (0: an interrupt on an idle CPU), when known.
    pub waker_pid: Option<i32>,
    pub wakee_pid: i32,
    pub victim_pid: i32,
}

/// Everything recorded in one analysis, in event order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventRecords {
    pub waits: Vec<WaitRecord>,
    pub preemptions: Vec<PreemptionRecord>,
}

/// Why there are no records.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordsError {
    #[error(
        "the per-event records (waits, preemptions) needed more than their limit of {limit_mib} MiB \
         by trace time {at_s:.6} s and were dropped; raise --timeline-mem or narrow the trace with --time"
    )]
    MemoryLimit { limit_mib: u64, at_s: f64 },
}

/// The analyzer's side: records as they come, under a memory limit.
#[derive(Debug)]
pub(crate) struct Recorder {
    records: EventRecords,
    limit_bytes: u64,
    failed: Option<RecordsError>,
}

impl Recorder {
    pub(crate) fn new(limit_bytes: u64) -> Recorder {
        Recorder {
            records: EventRecords::default(),
            limit_bytes,
            failed: None,
        }
    }

    fn bytes(&self) -> u64 {
        (self.records.waits.len() * std::mem::size_of::<WaitRecord>()
            + self.records.preemptions.len() * std::mem::size_of::<PreemptionRecord>())
            as u64
    }

    /// Past the limit, drops everything and remembers when (checked on each push: a length
    /// compare, far cheaper than the push itself).
    fn room(&mut self, now: u64) -> bool {
        if self.failed.is_some() {
            return false;
        }
        if self.bytes() < self.limit_bytes {
            return true;
        }
        self.records = EventRecords::default();
        self.failed = Some(RecordsError::MemoryLimit {
            limit_mib: self.limit_bytes >> 20,
            at_s: now as f64 / 1e9,
        });
        false
    }

    /// A wait of `kind` ended at `end_ns`; the placement is classified at the end, when the
    /// topology is final (a perf.data may describe it after the first events).
    pub(crate) fn wait(&mut self, record: WaitRecord) {
        if self.room(record.end_ns) {
            self.records.waits.push(record);
        }
    }

    pub(crate) fn preemption(&mut self, record: PreemptionRecord) {
        if self.room(record.ts_ns) {
            self.records.preemptions.push(record);
        }
    }

    /// The records, their placement classified with `map`.
    pub(crate) fn finish(mut self, map: Option<&CpuMap>) -> Result<EventRecords, RecordsError> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => Ok(self.take(map)),
        }
    }

    /// The records so far, classified with `map`, leaving none (an export drains them as
    /// it goes; the topology is final by then: a trace's own is taken before its first event).
    pub(crate) fn take(&mut self, map: Option<&CpuMap>) -> EventRecords {
        // The next drain's records start with room for as many as this one's: grown from
        // nothing, each drain's Vecs were copied at every doubling, on fresh pages.
        let room = EventRecords {
            waits: Vec::with_capacity(self.records.waits.len()),
            preemptions: Vec::with_capacity(self.records.preemptions.len()),
        };
        let mut records = std::mem::replace(&mut self.records, room);
        for w in &mut records.waits {
            w.placement = w.prev_cpu.map(|p| classify(map, p, w.cpu));
            w.waker_placement = w.waker_cpu.map(|c| classify(map, c, w.cpu));
        }
        records
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{other, switch, waking};
    use ingest::PrevState::{Runnable, Sleeping};

    fn records(events: &[ingest::Event], limit: u64) -> (crate::Report, EventRecords) {
        let report = crate::analyze_stream(
            events,
            crate::Config {
                records: Some(limit),
                ..Default::default()
            },
        );
        let records = report.records.clone().unwrap().unwrap();
        (report, *records)
    }

    /// Task 2 is woken by 1 (on CPU 1) onto CPU 0 where 1 runs, preempts it; 1 waits and
    /// runs again when 2 sleeps.
    fn stream() -> Vec<ingest::Event> {
        vec![
            switch(100, 0, 0, Runnable, 1),
            switch(110, 0, 1, Runnable, 2),
            switch(150, 0, 2, Sleeping, 1),
            waking(200, 1, 1, 2, 0),
            switch(300, 0, 1, Runnable, 2),
            switch(360, 0, 2, Sleeping, 1),
            other(400, 0, 1),
        ]
    }

    #[test]
    fn every_wait_and_preemption_as_the_report_counts_them() {
        let (report, r) = records(&stream(), 1 << 20);
        let two = WaitRecord {
            pid: 2,
            start_ns: 200,
            end_ns: 300,
            cpu: 0,
            kind: WaitKind::Wakeup,
            waker_pid: Some(1),
            waker_cpu: Some(1),
            prev_cpu: Some(0),
            placement: Some(PlacementClass::SameCpu),
            waker_placement: Some(PlacementClass::Unknown),
        };
        let preempted = |start_ns, end_ns| WaitRecord {
            pid: 1,
            start_ns,
            end_ns,
            cpu: 0,
            kind: WaitKind::Preemption,
            waker_pid: None,
            waker_cpu: None,
            prev_cpu: None,
            placement: None,
            waker_placement: None,
        };
        assert_eq!(r.waits, [preempted(110, 150), two, preempted(300, 360)]);
        assert_eq!(
            r.preemptions,
            [PreemptionRecord {
                ts_ns: 300,
                cpu: 0,
                waker_pid: Some(1),
                wakee_pid: 2,
                victim_pid: 1
            }]
        );
        let t = |pid| report.tasks.iter().find(|t| t.pid == pid).unwrap();
        assert_eq!(t(2).wakeup_latency.count, 1);
        assert_eq!(t(1).preemption_wait.sum_ns, 40 + 60);
        assert_eq!(report.system.wakeup_preemption.count, 1);
    }

    #[test]
    fn off_by_default_and_dropped_past_the_limit() {
        let off = crate::analyze_stream(&stream(), crate::Config::default());
        assert!(off.records.is_none());
        let report = crate::analyze_stream(
            &stream(),
            crate::Config {
                records: Some(50),
                ..Default::default()
            },
        );
        let err = report.records.unwrap().unwrap_err();
        assert_eq!(
            err,
            RecordsError::MemoryLimit {
                limit_mib: 0,
                at_s: 300e-9
            }
        );
    }
}
