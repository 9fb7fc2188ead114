//! A long generated schedule (a toy scheduler on 8 CPUs and 2000 tasks, driven by a
//! fixed-seed generator) fed to the analyzer: every count it reports must equal what the
//! generator did, and the time accounts must add up. Also prints the event rate.

use crate::common::*;
use ingest::{Event, EventSink, PrevState};

/// A small deterministic generator (xorshift64*), so the test needs no extra crate.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Default, Clone)]
struct Truth {
    voluntary: u64,
    involuntary: u64,
    wakeups: u64,
    runtime: u64,
    latency_sum: u64,
    preempt_sum: u64,
    migrations: u64,
    last_cpu: Option<u32>,
}

#[test]
fn generated_schedule_adds_up() {
    const CPUS: u32 = 8;
    const TASKS: i32 = 2000;
    const STEPS: usize = 400_000;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut truth = vec![Truth::default(); TASKS as usize + 1];
    // Per task: Some(since) when runnable (with the kind of wait), None otherwise.
    let mut waiting: Vec<Option<(u64, bool)>> = vec![None; TASKS as usize + 1];
    let mut running: Vec<i32> = vec![0; CPUS as usize];
    let mut run_since = vec![0u64; CPUS as usize];
    let mut events: Vec<Event> = Vec::with_capacity(STEPS * 2);
    let mut ts = 1_000_000u64;
    for c in 0..CPUS {
        events.push(switch(ts, c, 0, PrevState::Runnable, 0));
    }
    // Everyone starts runnable after a first waking.
    for pid in 1..=TASKS {
        ts += 10;
        events.push(waking(ts, 0, 0, pid, 0));
        waiting[pid as usize] = Some((ts, true));
        truth[pid as usize].wakeups += 1;
    }
    let mut sleeping: Vec<i32> = Vec::new();
    for _ in 0..STEPS {
        ts += 1 + rng.below(5000);
        let cpu = rng.below(CPUS as u64) as u32;
        if !sleeping.is_empty() && rng.below(3) == 0 {
            let i = rng.below(sleeping.len() as u64) as usize;
            let pid = sleeping.swap_remove(i);
            events.push(waking(ts, cpu, running[cpu as usize], pid, cpu as i32));
            waiting[pid as usize] = Some((ts, true));
            truth[pid as usize].wakeups += 1;
            continue;
        }
        // Switch on `cpu` to a random waiting task (or idle).
        let candidate = 1 + rng.below(TASKS as u64) as i32;
        let next = if waiting[candidate as usize].is_some() {
            candidate
        } else {
            0
        };
        let prev = running[cpu as usize];
        if prev == next {
            continue;
        }
        let block = rng.below(2) == 0;
        let state = if block {
            PrevState::Sleeping
        } else {
            PrevState::Preempted
        };
        events.push(switch(ts, cpu, prev, state, next));
        if prev > 0 {
            let t = &mut truth[prev as usize];
            t.runtime += ts - run_since[cpu as usize];
            if block {
                t.voluntary += 1;
                sleeping.push(prev);
            } else {
                t.involuntary += 1;
                waiting[prev as usize] = Some((ts, false));
            }
        }
        if next > 0 {
            let (since, woken) = waiting[next as usize].take().unwrap();
            let t = &mut truth[next as usize];
            if woken {
                t.latency_sum += ts - since;
            } else {
                t.preempt_sum += ts - since;
            }
            if t.last_cpu.is_some_and(|c| c != cpu) {
                t.migrations += 1;
            }
            t.last_cpu = Some(cpu);
        }
        running[cpu as usize] = next;
        run_since[cpu as usize] = ts;
    }
    let end = ts;
    for c in 0..CPUS as usize {
        if running[c] > 0 {
            truth[running[c] as usize].runtime += end - run_since[c];
        }
    }

    let started = std::time::Instant::now();
    let mut analyzer = analysis::Analyzer::new(Default::default());
    for e in &events {
        analyzer.event(e);
    }
    let report = analyzer.finish(&Default::default(), "generated");
    let took = started.elapsed();
    eprintln!(
        "{} events in {:?}: {:.1} M events/s",
        events.len(),
        took,
        events.len() as f64 / took.as_secs_f64() / 1e6
    );

    assert!(report.quality.context_switch_bugs.is_empty());
    assert_eq!(report.quality.unknown_ns, 0);
    let mut total_runtime = 0;
    for pid in 1..=TASKS {
        let want = &truth[pid as usize];
        let got = row(&report, pid);
        assert_eq!(
            (
                got.switches.voluntary,
                got.switches.involuntary,
                got.wakeups,
                got.migrations
            ),
            (
                want.voluntary,
                want.involuntary,
                want.wakeups,
                want.migrations
            ),
            "pid {pid}"
        );
        assert_eq!(got.runtime_ns, want.runtime, "pid {pid}");
        assert_eq!(got.wakeup_latency.sum_ns, want.latency_sum, "pid {pid}");
        assert_eq!(got.preemption_wait.sum_ns, want.preempt_sum, "pid {pid}");
        total_runtime += got.runtime_ns;
    }
    let busy: u64 = report.cpus.iter().map(|c| c.busy_ns).sum();
    assert_eq!(busy, total_runtime, "cpu busy time = task runtime");
    for c in &report.cpus {
        assert_eq!(
            c.busy_ns + c.idle_ns + c.unknown_ns,
            end - 1_000_000,
            "cpu {}",
            c.cpu
        );
        assert_eq!(c.unknown_ns, 0);
    }
}
