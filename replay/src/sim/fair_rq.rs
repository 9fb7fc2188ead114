//! The runqueue of the two fair-class models (CFS 6.1 and EEVDF 6.12 keep the same
//! `struct cfs_rq` skeleton): the waiting tasks, the running one, and `min_vruntime`, the
//! base every vruntime on the CPU is measured against; and the runqueue's clock, which the
//! core's clock-skip rule makes both charge alike. What each model adds (CFS's load,
//! EEVDF's pending resched) stays in the model.

/// One CPU's fair runqueue.
#[derive(Debug, Clone, Default)]
pub(super) struct FairRq {
    /// Runnable, not running (EEVDF: delayed ones included).
    pub(super) queue: Vec<usize>,
    pub(super) curr: Option<usize>,
    pub(super) min_vruntime: i64,
    /// The runqueue's clock: the time of the last event on it (`update_rq_clock`).
    clock: u64,
    /// A wakeup asked for a reschedule, so the next `__schedule` skips its clock update
    /// (`rq_clock_skip_update`, in 6.1's `check_preempt_curr` and 6.12's
    /// `wakeup_preempt`): it puts the running task away and starts the next one at the
    /// clock of that wakeup (or of a later event), and the time the task ran from there to
    /// the switch is charged to the next one.
    pub(super) skip_clock: bool,
}

impl FairRq {
    /// An event at `now` updates the clock (`update_rq_clock`).
    pub(super) fn event_clock(&mut self, now: u64) -> u64 {
        self.clock = now;
        now
    }

    /// The clock a `__schedule` at `now` reads: its own update, unless a wakeup asked for
    /// the reschedule (then the clock of the last event).
    pub(super) fn schedule_clock(&mut self, now: u64) -> u64 {
        if self.skip_clock {
            self.clock
        } else {
            self.event_clock(now)
        }
    }

    /// The tasks on the runqueue: queued ones and the running one.
    pub(super) fn on_rq(&self) -> impl Iterator<Item = usize> + '_ {
        self.queue.iter().copied().chain(self.curr)
    }

    pub(super) fn nr_running(&self) -> u64 {
        self.queue.len() as u64 + u64::from(self.curr.is_some())
    }

    /// Takes `task` off the runqueue, running or queued.
    pub(super) fn remove(&mut self, task: usize) {
        if self.curr == Some(task) {
            self.curr = None;
        } else {
            self.queue.retain(|&t| t != task);
        }
    }

    /// `min_vruntime` follows the smallest vruntime on the runqueue and never goes back.
    pub(super) fn update_min_vruntime(&mut self, vruntime: impl Fn(usize) -> i64) {
        if let Some(v) = self.on_rq().map(vruntime).min() {
            self.min_vruntime = self.min_vruntime.max(v);
        }
    }

    /// The running task goes back among the waiting ones (`put_prev_entity`).
    pub(super) fn put_prev(&mut self, task: usize) {
        self.curr = None;
        self.queue.push(task);
    }

    /// `task`, queued, becomes the running one (`set_next_entity`).
    pub(super) fn set_next(&mut self, task: usize) {
        self.queue.retain(|&t| t != task);
        self.curr = Some(task);
    }
}
