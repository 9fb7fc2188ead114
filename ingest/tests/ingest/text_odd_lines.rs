//! Honest text that is not sched events (issue #11 items 8 and 9): the syscall tracer's
//! lines and `perf script` samples of non-tracepoint events with their callchains are events
//! of their own names, never rejected lines.

use ingest::{Event, EventKind};

fn read(text: &str) -> (ingest::Ingested, Vec<Event>) {
    let mut events = Vec::new();
    let got = ingest::text::read(text.as_bytes(), &mut |e: &Event| events.push(*e)).unwrap();
    (got, events)
}

#[test]
fn syscall_tracer_lines_are_named_by_their_syscall() {
    let (got, events) = read(concat!(
        "            Xorg-1043  [002] ..... 27361.493582: sys_ioctl(fd: 3, cmd: c01c64a3, arg: 7ffd6a9e0c40)\n",
        "            Xorg-1043  [002] ..... 27361.493601: sys_ioctl -> 0x0\n",
        "            Xorg-1043  [002] d..2. 27361.493610: sched_switch: prev_comm=Xorg prev_pid=1043 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120\n",
    ));
    assert!(got.stats.rejected.is_empty(), "{:?}", got.stats.rejected);
    assert_eq!(
        got.stats.events.get("sys_ioctl"),
        Some(&2),
        "{:?}",
        got.stats.events
    );
    assert_eq!(got.stats.events.get("sched_switch"), Some(&1));
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Switch { .. }))
            .count(),
        1
    );
}

#[test]
fn perf_script_samples_and_callchains_are_not_rejected() {
    let (got, _) = read(concat!(
        "            perf  7496/7496  [003] 264874.155353:    1001001 cpu-clock: \n",
        "\t    ffffffff8a0a6f0e native_safe_halt+0xe ([kernel.kallsyms])\n",
        "\t    7f3c1a2b3c4d [unknown] (/usr/lib/x86_64-linux-gnu/libc.so.6)\n",
        "\n",
        "            perf  7496/7496  [003] 264874.156354:    1001001 cpu-clock:ppp: \n",
        "\t    ffffffff8a0a6f0e native_safe_halt+0xe ([kernel.kallsyms])\n",
    ));
    assert!(got.stats.rejected.is_empty(), "{:?}", got.stats.rejected);
    // The modifier letters are not the event's name.
    assert_eq!(
        got.stats.events.get("cpu-clock"),
        Some(&2),
        "{:?}",
        got.stats.events
    );
}
