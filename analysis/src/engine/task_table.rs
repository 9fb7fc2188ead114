//! The task table: which task an event's pid names (a flat table for ordinary pids, a
//! hash beside it for the rest), a new task at first sight or pid reuse, and a task brought
//! up to date with what changed since its last event (name, prio, `--fair-set`
//! membership, events its CPU lost).
//!
//! Looked up two or three times per event, so its common path is a few reads, inline.

use super::analyzer::Analyzer;
use crate::timeline::Task;
use ingest::TaskRef;

/// pids below this are found through a flat table (the kernel's PID_MAX_LIMIT is 2^22).
const DENSE_PIDS: usize = 1 << 22;
/// A pid without a task.
const NO_SLOT: u32 = u32::MAX;

impl Analyzer {
    /// The slot of `pid`'s current task, if it has one.
    #[inline]
    pub(crate) fn find(&self, pid: i32) -> Option<usize> {
        let slot = if (pid as usize) < DENSE_PIDS {
            *self.dense_slots.get(pid as usize)?
        } else {
            *self.sparse_slots.get(&pid)?
        };
        (slot != NO_SLOT).then_some(slot as usize)
    }

    /// Makes `pid` name a new task (first sight, or pid reuse after fork).
    pub(super) fn new_task(&mut self, pid: i32) -> usize {
        let slot = self.tasks.len();
        let mut task = Task::new(pid);
        task.log = self.new_log();
        self.tasks.push(task);
        if (pid as usize) < DENSE_PIDS {
            let idx = pid as usize;
            if idx >= self.dense_slots.len() {
                // Grows to the largest pid seen: at most 16 MiB, amortized.
                self.dense_slots
                    .resize((idx + 1).next_power_of_two(), NO_SLOT);
            }
            self.dense_slots[idx] = slot as u32;
        } else {
            self.sparse_slots.insert(pid, slot as u32);
        }
        slot
    }

    /// The task named by an event, brought up to date with lost events.
    ///
    /// Two or three times per event: inline, and what nearly every call finds (the same
    /// name and prio, nothing lost, nothing to decide) is told by reads alone; anything
    /// else goes to [`Analyzer::task_changed`].
    #[inline(always)]
    pub(super) fn task(&mut self, task: &TaskRef) -> usize {
        let slot = self
            .find(task.pid)
            .unwrap_or_else(|| self.new_task(task.pid));
        let t = &self.tasks[slot];
        let renamed = task.comm != t.comm && !task.comm.is_empty();
        let reprioritized = task.prio >= 0 && task.prio != t.prio;
        let undecided = t.fair_member == 0 && self.config.fair_set.is_some();
        let lost = self
            .cpus
            .get(t.trans_cpu as usize)
            .is_some_and(|c| (t.trans_epoch as usize) < c.lost.len());
        if renamed || reprioritized || undecided || lost || self.weights_unsettled {
            self.task_changed(slot, task);
        }
        slot
    }

    /// [`Analyzer::task`] when the event renames or reprioritizes the task, its
    /// `--fair-set` membership is undecided, the weights are unsettled, or its CPU lost
    /// events since its last transition.
    #[inline(never)]
    fn task_changed(&mut self, slot: usize, task: &TaskRef) {
        let t = &mut self.tasks[slot];
        let renamed = t.note_comm(task.comm);
        let reprioritized = task.prio >= 0 && task.prio != t.prio;
        if reprioritized {
            t.prio = task.prio;
        }
        // Every state change is observed where it is made, so the task's presence and
        // weight are in step here unless this call changed what they derive from: its
        // prio, its name (`--fair-set` by name; also pending after a fork's rename), or its
        // state (lost events). Skipping the no-op `observe` then changes nothing.
        let undecided = t.fair_member == 0 && self.config.fair_set.is_some();
        let lost = self.apply_lost(slot);
        if renamed || reprioritized || undecided || lost || self.weights_unsettled {
            self.observe(slot);
        }
    }

    /// If the CPU of the task's last transition lost events since, the task is unknown
    /// from the first such loss on (metrics.md §2).
    /// Returns whether it did anything.
    pub(crate) fn apply_lost(&mut self, slot: usize) -> bool {
        let t = &mut self.tasks[slot];
        let Some(cpu) = self.cpus.get(t.trans_cpu as usize) else {
            return false;
        };
        if let Some(lost) = cpu.lost.get(t.trans_epoch as usize) {
            t.lose_track(lost.from, t.trans_cpu, cpu.epoch(), &self.scope);
            return true;
        }
        false
    }

    /// A task's name (and process) as an event that is not a switch or wakeup gives it.
    pub(super) fn note_task_name(&mut self, pid: i32, tgid: i32, comm: ingest::Comm) {
        if pid > 0 {
            let slot = self.find(pid).unwrap_or_else(|| self.new_task(pid));
            let t = &mut self.tasks[slot];
            t.note_comm(comm);
            if tgid > 0 {
                t.tgid = tgid;
            }
            self.observe(slot);
        }
    }
}
