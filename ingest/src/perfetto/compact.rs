//! `compact_sched`: the structure-of-arrays encoding of `sched_switch` and
//! `sched_waking` in an `FtraceEventBundle` (formats.md §6.4), both directions.
//!
//! What it does not store is implied by the CPU's history: a switch's previous
//! task is the next task of the switch before it on the same CPU, and a waking's
//! waker (`common_pid`) is the task running on that CPU. [`Running`] is that
//! history; the reader and the writer share it so that the writer only uses the
//! compact form where the reader will infer exactly what the source said.

use super::proto::CompactSched;
use crate::event::{Comm, TaskRef};
use std::collections::HashMap;

/// A task nobody has named yet: the previous task of the first switch on a CPU.
pub(super) fn unknown_task() -> TaskRef {
    TaskRef {
        pid: -1,
        comm: Comm::default(),
        prio: -1,
    }
}

/// The task running on one CPU as far as the switches so far tell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Running(Option<TaskRef>);

impl Running {
    /// The previous task of a compact switch.
    pub(super) fn prev(&self) -> TaskRef {
        self.0.unwrap_or_else(unknown_task)
    }

    /// The `common_pid` of a compact waking (-1 when not known).
    pub(super) fn pid(&self) -> i32 {
        self.0.map_or(-1, |t| t.pid)
    }

    pub(super) fn switched_to(&mut self, next: TaskRef) {
        self.0 = Some(next);
    }

    /// After lost events the running task is no longer known.
    pub(super) fn forget(&mut self) {
        self.0 = None;
    }
}

/// Order of simultaneous events of one bundle when the three lists are merged:
/// compact switches, then compact wakings, then regular events. The writer starts a
/// new bundle rather than put events of equal timestamp in another order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Lane {
    CompactSwitch = 0,
    CompactWaking = 1,
    Regular = 2,
}

/// One compact switch, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CompactSwitch {
    pub ts: u64,
    pub prev_state: i64,
    pub next: TaskRef,
}

/// One compact waking, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CompactWaking {
    pub ts: u64,
    pub task: TaskRef,
    pub target_cpu: i32,
}

/// Checks the arrays and expands them. `Err` says which array is inconsistent.
pub(super) fn decode(c: &CompactSched) -> Result<(Vec<CompactSwitch>, Vec<CompactWaking>), String> {
    let comm = |index: u32, what: &str| -> Result<Comm, String> {
        c.intern_table
            .get(index as usize)
            .map(|s| Comm::from_bytes(s))
            .ok_or_else(|| {
                format!(
                    "compact_sched: {what} comm index {index} outside the intern table of {}",
                    c.intern_table.len()
                )
            })
    };
    let n = c.switch_timestamp.len();
    for (name, len) in [
        ("switch_prev_state", c.switch_prev_state.len()),
        ("switch_next_pid", c.switch_next_pid.len()),
        ("switch_next_prio", c.switch_next_prio.len()),
        ("switch_next_comm_index", c.switch_next_comm_index.len()),
    ] {
        if len != n {
            return Err(format!(
                "compact_sched: {name} has {len} entries but switch_timestamp has {n}"
            ));
        }
    }
    let m = c.waking_timestamp.len();
    for (name, len) in [
        ("waking_pid", c.waking_pid.len()),
        ("waking_target_cpu", c.waking_target_cpu.len()),
        ("waking_prio", c.waking_prio.len()),
        ("waking_comm_index", c.waking_comm_index.len()),
    ] {
        if len != m {
            return Err(format!(
                "compact_sched: {name} has {len} entries but waking_timestamp has {m}"
            ));
        }
    }
    let mut switches = Vec::with_capacity(n);
    let mut ts = 0u64;
    for i in 0..n {
        ts = ts
            .checked_add(c.switch_timestamp[i])
            .ok_or("compact_sched: switch timestamp overflows 64 bits")?;
        switches.push(CompactSwitch {
            ts,
            prev_state: c.switch_prev_state[i],
            next: TaskRef {
                pid: c.switch_next_pid[i],
                comm: comm(c.switch_next_comm_index[i], "switch")?,
                prio: c.switch_next_prio[i],
            },
        });
    }
    let mut wakings = Vec::with_capacity(m);
    let mut ts = 0u64;
    for i in 0..m {
        ts = ts
            .checked_add(c.waking_timestamp[i])
            .ok_or("compact_sched: waking timestamp overflows 64 bits")?;
        wakings.push(CompactWaking {
            ts,
            task: TaskRef {
                pid: c.waking_pid[i],
                comm: comm(c.waking_comm_index[i], "waking")?,
                prio: c.waking_prio[i],
            },
            target_cpu: c.waking_target_cpu[i],
        });
    }
    Ok((switches, wakings))
}

/// Builds one bundle's `CompactSched`.
#[derive(Debug, Default)]
pub(super) struct Builder {
    sched: CompactSched,
    interned: HashMap<Comm, u32>,
    last_switch_ts: u64,
    last_waking_ts: u64,
}

impl Builder {
    fn intern(&mut self, comm: Comm) -> u32 {
        let table = &mut self.sched.intern_table;
        *self.interned.entry(comm).or_insert_with(|| {
            table.push(comm.as_bytes().to_vec());
            (table.len() - 1) as u32
        })
    }

    /// `ts` must not be before the previous switch of this bundle.
    pub(super) fn switch(&mut self, ts: u64, prev_state: i64, next: TaskRef) {
        let s = &mut self.sched;
        // The first value is absolute: the previous timestamp starts at 0.
        s.switch_timestamp.push(ts - self.last_switch_ts);
        self.last_switch_ts = ts;
        s.switch_prev_state.push(prev_state);
        s.switch_next_pid.push(next.pid);
        s.switch_next_prio.push(next.prio);
        let index = self.intern(next.comm);
        self.sched.switch_next_comm_index.push(index);
    }

    /// `ts` must not be before the previous waking of this bundle.
    pub(super) fn waking(&mut self, ts: u64, task: TaskRef, target_cpu: i32) {
        let s = &mut self.sched;
        s.waking_timestamp.push(ts - self.last_waking_ts);
        self.last_waking_ts = ts;
        s.waking_pid.push(task.pid);
        s.waking_target_cpu.push(target_cpu);
        s.waking_prio.push(task.prio);
        let index = self.intern(task.comm);
        self.sched.waking_comm_index.push(index);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.sched.switch_timestamp.is_empty() && self.sched.waking_timestamp.is_empty()
    }

    /// The message so far; the builder starts over.
    pub(super) fn take(&mut self) -> Option<CompactSched> {
        let empty = self.is_empty();
        let sched = std::mem::take(&mut self.sched);
        *self = Builder::default();
        (!empty).then_some(sched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(pid: i32, comm: &str, prio: i32) -> TaskRef {
        TaskRef {
            pid,
            comm: comm.into(),
            prio,
        }
    }

    #[test]
    fn builder_and_decoder_agree() {
        let mut b = Builder::default();
        b.switch(1000, 1, task(5, "a", 120));
        b.waking(1001, task(6, "b", 100), 3);
        b.switch(1500, 0x100, task(6, "b", 100));
        b.switch(1500, 0, task(5, "a", 120));
        let c = b.take().unwrap();
        assert_eq!(c.switch_timestamp, vec![1000, 500, 0]);
        assert_eq!(c.intern_table, vec![b"a".to_vec(), b"b".to_vec()]);
        let (sw, wk) = decode(&c).unwrap();
        assert_eq!(
            sw.iter().map(|s| s.ts).collect::<Vec<_>>(),
            [1000, 1500, 1500]
        );
        assert_eq!(sw[1].next, task(6, "b", 100));
        assert_eq!(sw[1].prev_state, 0x100);
        assert_eq!(
            wk,
            vec![CompactWaking {
                ts: 1001,
                task: task(6, "b", 100),
                target_cpu: 3
            }]
        );
        assert!(b.take().is_none());
    }

    #[test]
    fn inconsistent_arrays_are_errors() {
        let mut b = Builder::default();
        b.switch(1, 1, task(5, "a", 120));
        let mut c = b.take().unwrap();
        c.switch_next_comm_index[0] = 7;
        assert!(decode(&c).unwrap_err().contains("index 7"));
        c.switch_next_pid.push(3);
        assert!(decode(&c).unwrap_err().contains("switch_next_pid has 2"));
        let c = CompactSched {
            switch_timestamp: vec![u64::MAX, 1],
            switch_prev_state: vec![0, 0],
            switch_next_pid: vec![0, 0],
            switch_next_prio: vec![0, 0],
            switch_next_comm_index: vec![0, 0],
            intern_table: vec![vec![]],
            ..Default::default()
        };
        assert!(decode(&c).unwrap_err().contains("overflows"));
    }
}
