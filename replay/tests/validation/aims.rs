//! The aims as the test's bounds, and the cells that miss them: each with the
//! bound it was measured at and why it misses. A listed cell that meets its aim fails the
//! test too (the list must not outlive the miss).

use super::errors::{cells, CellError};
use super::measure::{Pair, METRICS};
use std::fmt::Write;

/// An aim on one metric of some pairs.
struct Aim {
    what: &'static str,
    metric: &'static str,
    bound: f64,
    applies: fn(&Pair) -> bool,
}

const AIMS: [Aim; 3] = [
    Aim {
        what: "identity replays: share within ±2 points",
        metric: "runtime-share",
        bound: 2.0,
        applies: |p| p.from.dir == p.to.dir,
    },
    Aim {
        what: "identity replays: involuntary switches/s within 10 %",
        metric: "involuntary",
        bound: 10.0,
        applies: |p| p.from.dir == p.to.dir,
    },
    Aim {
        what: "`nice`: shares within ±3 points on every pair",
        metric: "runtime-share",
        bound: 3.0,
        applies: |p| p.workload == "nice",
    },
];

/// The cross predictions must beat the null prediction on this share of their cells (the
/// issue's aim is 0.8).
pub const BEAT_AIM: f64 = 0.8;

/// Indices into [`AIMS`].
const IDENTITY_SWITCHES: usize = 1;
const NICE_SHARES: usize = 2;

/// A cell that misses an aim: (aim, workload, A, B, measured bound, why).
pub struct Miss {
    aim: usize,
    workload: &'static str,
    from: &'static str,
    to: &'static str,
    bound: f64,
    why: &'static str,
}

const fn miss(
    aim: usize,
    workload: &'static str,
    from: &'static str,
    to: &'static str,
    bound: f64,
    why: &'static str,
) -> Miss {
    Miss {
        aim,
        workload,
        from,
        to,
        bound,
        why,
    }
}

const TICK_LATE: &str = "the VM's tick preemptions are off the tick grid and late: in \
    `trace-cmd report` of the CFS capture nice 0's slices run 15-44 ms in the first second, \
    16 in the model (medians 19.9 and 16.0; EEVDF 22.1 and 12.0): QEMU TCG delivers \
    the guest's timer interrupts when it gets to them, the model's tick is exact";
const TIMERS: &str = "the workers wake from 1 ms timers: the model has no IRQ or softirq \
    time, and its idle pull stands in for the kernel's balancing, so which task a timer \
    wakeup preempts differs";
const MI_EEVDF: &str = "the workers are replayed by their wall-clock budget (replay.md, \
    the demand): a burst is a run to a slice's end, a wait in which the budget runs out, and a \
    tail (2.09 runs a burst predicted, 2.11 traced: `export` slices). The model's first runs \
    end at the first exact tick past the 2.1 ms slice (median 4.0 ms), the capture's at \
    5.59 (4.06-7.75 between the quartiles: the VM's late ticks, as on `nice`), so the \
    model's workers cycle faster, 526 bursts against 315 traced, each with its preemption \
    (56.7-65.2 involuntary switches/s a worker, 36.8-38.8 real), and each of their wakeups \
    can take the spinner's CPU: 112 of its switches a second against 65.5, the cell's worst \
    role; before the budget, each burst was the capture's CPU (20 % off)";
const PINGPONG_CFS: &str = "the model's pong, woken by ping, preempts at 0.13 of its \
    wakeups, the kernel's at 0.20, so ping is switched out involuntarily 209 times a second \
    predicted, 363 real (ping's own wakeups preempt at 0.19 / 0.14; pong 325 / 224 per s): \
    the decision is the pair's vruntime gap against the 3 ms wakeup granularity. The \
    core's clock-skip rule (6.1's check_preempt_curr makes the switch after a preempting \
    wakeup skip its clock update, so the time to the switch is the wakee's) took this miss \
    from 313 % (pong preempting at 0.37) to 49 %, the check at the traced wakeup clock \
    (`waking_wakeup_ns`, 24 µs after sched_waking here) to 45 %. By the traced times the \
    rule moves 30.7 ms from pong to ping in this capture (pong preempted ping 363 times, 18.1 ms from \
    sched_wakeup to the switch, ping pong 223 times, 48.8 ms, stalls of the VM's vCPU among \
    them); the kernel's runtimes (ground_truth.json) give ping 7.7 ms more and pong 7.5 ms \
    less than the trace: the same direction, a smaller amount. Before the rule the model's \
    gap was 5.5-9 ms, set at the start: the tasks' first bursts (13.2 and 4.6 ms) ran on \
    CPUs 2 and 3 before the tasks pinned themselves, the model runs them one after the \
    other on CPU 1 (observed affinity). The kernel starts them level: the migration \
    stopper moved each to CPU 1 runnable (`move_queued_task`; a dequeue without \
    DEQUEUE_SLEEP keeps its vruntime's distance to the min_vruntime of CPU 2 or 3, 0 for a \
    task alone there, and the enqueue adds CPU 1's). Measured with a patched build that \
    places each of the pair at CPU 1's min_vruntime at its first wakeup (the model's own \
    start leaves them 1.5 and 2.1 ms behind it), then one of them 2, 4 or 8 ms ahead of or \
    behind the other: ping's involuntary switches/s 209.4 level, 209.4-210.4 over the \
    sweep (pong preempting at 0.129-0.130), pong's 337-345 (325 unpatched): the start \
    makes under 1 % of the miss (the gap does not last). The stalls make the model's \
    preemptions: a build clipping the pair's bursts to 0.3, \
    0.5, 1, 2 or 4 ms (its 37 bursts over 1 ms hold 378 ms of its 809, the vCPU's stalls \
    and the two first bursts) takes pong's preempting share to 0.055, 0.075, 0.062, 0.035, \
    0.014 and ping's involuntary switches/s to 68, 92, 76, 44, 18. So the rest of the miss \
    is how the kernel charged the stalls (the replay charges each whole to the burst it \
    fell in, as traced; the kernel's own runtimes above differ from the trace's by 7.7 \
    ms), which the trace does not show: not separated further";
const PINGPONG_EEVDF: &str =
    "the pair's wakeups preempt at 0.93-0.96 in the kernel, at 0.55-0.70 in the \
    model (ping 1 244 / pong 805 involuntary switches/s traced, 819 / 455 \
    predicted; the other round trips end with the waker blocking). Measured, two \
    causes outside the rules. (1) Where a preempting wakeup splits the time: as the \
    kernel (rq_clock_skip_update), the model charges the wakee from the wakeup's \
    clock, read the traced median 18 µs after sched_waking (`waking_wakeup_ns`; with \
    the clock at sched_waking, 0.29-0.47 and 628 / 302): a run of preempting round \
    trips, which lasts while the wakee's lag outweighs what it is charged beyond its \
    waker, lasts 9.8 preempting wakeups in the model (124 runs, 1 211 of its 1 896 \
    wakeups; 4.4 with the clock at sched_waking) where the kernel's last 18.3 (107 \
    runs, 1 956 of its 2 062 wakeups; `schedtrace export` waits and preemptions of \
    both): each wakeup's lag is not the median. The kernel's runtimes \
    (ground_truth.json) give ping 20.87 ms less and pong 20.89 ms more than the \
    trace, the skip's direction (24.8 ms with the clock at sched_wakeup, 49.0 at \
    sched_waking); without the skip the model preempted at 0.69-0.79 (830 / 493). \
    (2) The VM's stalls: 119 of the pair's 4 048 slices run 1.2-11.9 ms (the vCPU \
    stalled, the host at load 9 on 2 CPUs), 414 ms of the pair's 776. 6.12's rules \
    (Debian's 6.12 fair.c and core.c) driven by this trace's own switch and wakeup \
    times on CPU 1 give the kernel's decision at only 1 414 of the 2 062 wakeups of \
    one of the pair by the other with the skip, 1 532 without, at most 1 654 with \
    every switch's clock 5-30 µs before its event: most misses are a delayed wakee \
    milliseconds of vruntime ahead of its waker by the traced times (2.75 ms median \
    without the skip), where the kernel preempted, its pair within a burst (~70 µs) \
    of each other. Who the kernel charged a stall depends on where in its path the \
    stall fell (a clock read at the top of __schedule charges the next task what the \
    trace gives the previous one), which a switch trace does not hold";
const PINGPONG_PDS: &str = "PDS preempts on a wakeup only when the wakee's deadline \
    level (2^22 ns units) is below the running task's: the pair's wakeups preempt at \
    0.42 in the kernel (2 943-2 947 of 7 072-7 078), the model's at 0.40-0.42 (involuntary \
    switches 1 096 / 1 021 per s against 1 174 / 1 170), its other round trips ending with \
    the waker blocking. \
    Which of two nice-0 tasks is a level ahead is the phase of their 4 ms slice renewals, \
    which the model counts from each task's first run in the window: the kernel's phase \
    comes from their slices before it, which a switch trace does not give";
const DEFERRED: &str = "the VM's tick preemptions are off the tick grid and late: in \
    `trace-cmd report` of this capture nice 0's slices run 15-44 ms in the first second, 16 \
    in the model (medians 19.9 and 16.0): QEMU TCG delivers the guest's timer interrupts \
    when it gets to them, the model's tick is exact. Kernel threads make none of the \
    difference: in the capture they took the CPU from the spinners 1 + 5 times in 3.1 s \
    (migration, kworker, the parent), in the model 2 + 4; the spinners preempted each other \
    93 + 90 times traced, 134 + 133 predicted (43.9 / 44.2 switches per s, 30.3 / 30.7 \
    real), every one at a tick (`schedtrace export` slices: the task each preempted slice \
    gave way to)";
const BMQ_START: &str = "in the EEVDF capture the parent released nice 5 from its barrier \
    2.5 ms before nice 0: BMQ's model runs it for those 2.5 ms, so its spin (timed from \
    its first run) has started, then starves it until nice 0 exits, when its time is up: 1 % \
    of the pair; on the BMQ kernel nice 5 first ran when nice 0 exited, then spun alone \
    (50 / 50). From the CFS and PDS captures nice 0 starts first and the model gets it right";

/// The measured misses.
pub const MISSES: &[Miss] = &[
    miss(IDENTITY_SWITCHES, "nice", "cfs", "cfs", 45.0, DEFERRED),
    miss(IDENTITY_SWITCHES, "nice", "eevdf", "eevdf", 73.0, TICK_LATE),
    miss(IDENTITY_SWITCHES, "mi", "cfs", "cfs", 16.0, TIMERS),
    miss(IDENTITY_SWITCHES, "mi", "eevdf", "eevdf", 72.0, MI_EEVDF),
    miss(IDENTITY_SWITCHES, "pp1", "cfs", "cfs", 45.0, PINGPONG_CFS),
    miss(
        IDENTITY_SWITCHES,
        "pp1",
        "eevdf",
        "eevdf",
        44.0,
        PINGPONG_EEVDF,
    ),
    miss(IDENTITY_SWITCHES, "pp1", "pds", "pds", 26.0, PINGPONG_PDS),
    miss(NICE_SHARES, "nice", "eevdf", "bmq", 50.0, BMQ_START),
];

/// The measured floor of the cross predictions' share of cells beating the null, below the
/// aim: most of what is off is listed above (the tick, the ping-pong preemptions), and on
/// rates and durations the null prediction of a kernel of the same family is often
/// closer than a model without the VM's timing. (The answer rule holding only a task that
/// was not woken by its peer, as the kernel's pipe read does, cost 5 cells of 132.)
pub const BEAT_FLOOR: f64 = 0.48;

fn error_of(p: &Pair, key: &str) -> Option<CellError> {
    let i = METRICS.iter().position(|m| m.key == key).unwrap();
    cells(p)[i]
}

fn listed(p: &Pair, aim: usize) -> Option<&'static Miss> {
    MISSES.iter().find(|m| {
        m.aim == aim
            && m.workload == p.workload
            && m.from == p.from.model.as_str()
            && m.to == p.to.model.as_str()
    })
}

/// Every aim checked on `pairs`; the problems found, empty when all hold.
pub fn check(pairs: &[Pair]) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, aim) in AIMS.iter().enumerate() {
        for p in pairs.iter().filter(|p| (aim.applies)(p)) {
            let Some(e) = error_of(p, aim.metric) else {
                continue;
            };
            let name = format!(
                "{} {} → {} {}",
                p.workload,
                p.from.model.as_str(),
                p.to.model.as_str(),
                aim.metric
            );
            match listed(p, i) {
                None if e.predicted > aim.bound => problems.push(format!(
                    "{name}: error {:.2} misses the aim ({}) and is not a listed miss",
                    e.predicted, aim.what
                )),
                Some(_) if e.predicted <= aim.bound => problems.push(format!(
                    "{name}: error {:.2} meets the aim ({}): remove it from MISSES",
                    e.predicted, aim.what
                )),
                Some(m) if e.predicted > m.bound => problems.push(format!(
                    "{name}: error {:.2} is past its measured bound {}",
                    e.predicted, m.bound
                )),
                _ => {}
            }
        }
    }
    // A listed miss whose cell is no longer measured (too few events) is stale too.
    for m in MISSES {
        let aim = &AIMS[m.aim];
        let measured = pairs.iter().any(|p| {
            (aim.applies)(p)
                && listed(p, m.aim).is_some_and(|l| std::ptr::eq(l, m))
                && error_of(p, aim.metric).is_some()
        });
        if !measured {
            problems.push(format!(
                "{} {} → {} {}: listed as a miss but not measured: remove it from MISSES",
                m.workload, m.from, m.to, aim.metric
            ));
        }
    }
    let beaten = super::table::beaten_share(pairs);
    if beaten < BEAT_FLOOR {
        problems.push(format!(
            "cross predictions beat the null in {:.1} % of cells, below the measured floor {:.0} %",
            beaten * 100.0,
            BEAT_FLOOR * 100.0
        ));
    }
    if beaten >= BEAT_AIM {
        problems.push("the cross predictions meet the 80 % aim: drop BEAT_FLOOR".into());
    }
    problems
}

/// The misses as the docs list them.
pub fn markdown() -> String {
    let mut s = String::from("| cell | aim | measured bound | why |\n|---|---|---|---|\n");
    for m in MISSES {
        let aim = &AIMS[m.aim];
        let _ = writeln!(
            s,
            "| {} {} → {} | {} | {} | {} |",
            m.workload, m.from, m.to, aim.what, m.bound, m.why
        );
    }
    let _ = writeln!(
        s,
        "\nCross predictions beating the null prediction: aim {:.0} %, measured floor {:.0} %.",
        BEAT_AIM * 100.0,
        BEAT_FLOOR * 100.0
    );
    s
}
