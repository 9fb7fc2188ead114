//! Running jobs of known memory cost concurrently within a budget: at most `jobs` at once,
//! and a job starts only while the costs of the jobs in flight, its own included, stay
//! within `bytes` — or when nothing else runs (a job larger than the whole budget still
//! runs, alone). Jobs start in their given order, so the loads of `compare` keep the order
//! of its progress line and a large input is not overtaken forever by small ones.
//!
//! Hand-written (a mutex, a condition variable and scoped threads): rayon's pool has no
//! admission by weight, and blocking its workers while they wait for memory would also
//! block the rayon work inside each analysis (the text reader parses on the pool).

use std::sync::{Condvar, Mutex, MutexGuard};

/// How much may run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Jobs at once (at least 1).
    pub jobs: usize,
    /// Estimated bytes of the jobs in flight.
    pub bytes: u64,
}

impl Budget {
    /// One job per core (`RAYON_NUM_THREADS` when set, as for the rest of the program)
    /// within half of the memory available now (`MemAvailable`; no limit where it cannot be
    /// read): the other half is left for the page cache that holds the inputs and for the
    /// reports already loaded.
    pub(crate) fn of_machine() -> Budget {
        Budget {
            jobs: rayon::current_num_threads().max(1),
            bytes: mem_available().map_or(u64::MAX, |b| b / 2),
        }
    }
}

/// `MemAvailable` from /proc/meminfo, in bytes.
fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs `run(i)` for every `i` in `0..costs.len()` within `budget`, `costs[i]` being job
/// `i`'s estimated bytes; the results come back in job order.
pub(crate) fn run_within<T: Send>(
    costs: &[u64],
    budget: &Budget,
    run: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let workers = budget.jobs.clamp(1, costs.len().max(1));
    if workers == 1 {
        return (0..costs.len()).map(run).collect();
    }
    let gate = Gate {
        costs,
        limit: budget.bytes,
        state: Mutex::new(InFlight::default()),
        changed: Condvar::new(),
    };
    let results: Vec<Mutex<Option<T>>> = costs.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(ticket) = gate.enter() {
                    let out = run(ticket.job);
                    *lock(&results[ticket.job]) = Some(out);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every job ran (a panicking job ends the scope first)")
        })
        .collect()
}

#[derive(Debug, Default)]
struct InFlight {
    /// The next job to start.
    next: usize,
    running: usize,
    bytes: u64,
}

struct Gate<'a> {
    costs: &'a [u64],
    limit: u64,
    state: Mutex<InFlight>,
    changed: Condvar,
}

/// A started job; dropping it (also when the job panics) frees its share of the budget.
struct Ticket<'g, 'a> {
    gate: &'g Gate<'a>,
    job: usize,
}

impl<'a> Gate<'a> {
    /// Waits until the next job fits and starts it; `None` when every job has started.
    fn enter(&self) -> Option<Ticket<'_, 'a>> {
        let mut state = lock(&self.state);
        loop {
            let job = state.next;
            let cost = *self.costs.get(job)?;
            if state.running == 0 || state.bytes.saturating_add(cost) <= self.limit {
                state.next += 1;
                state.running += 1;
                state.bytes = state.bytes.saturating_add(cost);
                return Some(Ticket { gate: self, job });
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Ticket<'_, '_> {
    fn drop(&mut self) {
        let mut state = lock(&self.gate.state);
        state.running -= 1;
        state.bytes = state.bytes.saturating_sub(self.gate.costs[self.job]);
        drop(state);
        self.gate.changed.notify_all();
    }
}

/// A poisoned lock only means another job panicked; the scope re-raises that panic.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
