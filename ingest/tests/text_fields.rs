//! Field spot checks: for one file of each text rendering, specific lines decoded into
//! exactly the values printed on them (pid, comm with spaces, prio, CPUs, state, ns).

mod text_common;
use ingest::{Comm, Event, EventKind, PrevState, TaskRef};
use text_common::*;

/// The single event at `ts` on `cpu` for which `pick` holds.
fn at(events: &[Event], ts: u64, cpu: u32, pick: impl Fn(&EventKind) -> bool) -> Event {
    let found: Vec<&Event> = events
        .iter()
        .filter(|e| e.ts == ts && e.cpu == cpu && pick(&e.kind))
        .collect();
    assert_eq!(found.len(), 1, "events at {ts} on CPU {cpu}: {found:?}");
    *found[0]
}

fn is_switch(k: &EventKind) -> bool {
    matches!(k, EventKind::Switch { .. })
}

fn t(pid: i32, comm: &str, prio: i32) -> TaskRef {
    TaskRef {
        pid,
        comm: Comm::from(comm),
        prio,
    }
}

fn switch(prev: TaskRef, prev_state: PrevState, next: TaskRef) -> EventKind {
    EventKind::Switch {
        prev,
        prev_state,
        next,
    }
}

#[test]
fn trace_cmd_plugin_rendering() {
    let (_, ev) = read_text(&load(&shared("cfs-6.1-vm/pp1/report.txt.xz")));
    // trace-cmd-190   [003]    19.069687: sched_switch:         trace-cmd:190 [120] S ==> swapper/3:0 [120]
    let e = at(&ev, 19_069_687_000, 3, is_switch);
    assert_eq!(e.current_pid, 190);
    assert_eq!(
        e.kind,
        switch(
            t(190, "trace-cmd", 120),
            PrevState::Sleeping,
            t(0, "swapper/3", 120)
        )
    );
    // <idle>-0 [001] 19.071991: sched_wakeup: rcu_preempt:15 [120] CPU:001
    let e = at(&ev, 19_071_991_000, 1, |k| {
        matches!(k, EventKind::Wakeup { .. })
    });
    assert_eq!(
        (e.current_pid, e.kind),
        (
            0,
            EventKind::Wakeup {
                task: t(15, "rcu_preempt", 120),
                target_cpu: 1
            }
        )
    );
    // rcu_preempt-15 [001] 19.072207: ... rcu_preempt:15 [120] W ==> swapper/1:0 [120]  (W = bit 7 = TASK_IDLE)
    let e = at(&ev, 19_072_207_000, 1, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(15, "rcu_preempt", 120),
            PrevState::Sleeping,
            t(0, "swapper/1", 120)
        )
    );
    // schedwl-193 [000] 19.081305: sched_migrate_task: comm=kcompactd0 pid=45 prio=120 orig_cpu=0 dest_cpu=3
    let e = at(&ev, 19_081_305_000, 0, |k| {
        matches!(k, EventKind::Migrate { .. })
    });
    assert_eq!(
        e.kind,
        EventKind::Migrate {
            task: t(45, "kcompactd0", 120),
            orig_cpu: 0,
            dest_cpu: 3
        }
    );
    // schedwl-193 [000] 19.122325: sched_wakeup_new: schedwl:194 [120] CPU:002
    let e = at(&ev, 19_122_325_000, 0, |k| {
        matches!(k, EventKind::WakeupNew { .. })
    });
    assert_eq!(
        e.kind,
        EventKind::WakeupNew {
            task: t(194, "schedwl", 120),
            target_cpu: 2
        }
    );
}

#[test]
fn trace_cmd_host_report_comm_with_space_and_exits() {
    let (got, ev) = read_text(&load(&shared(
        "eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz",
    )));
    assert_eq!(
        got.meta.extra["prev_state encoding"],
        "B (kernel >= 4.14, report bits, preempted = 256)"
    );
    // trace-cmd-18135 [001] 1138.500859: sched_switch: trace-cmd:18135 [120] S ==> opt cgu.0:17910 [120]
    let e = at(&ev, 1_138_500_859_000, 1, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(18135, "trace-cmd", 120),
            PrevState::Sleeping,
            t(17910, "opt cgu.0", 120)
        )
    );
    // cat-18136 [000] 1138.508436: sched_switch: cat:18136 [120] X ==> capture.sh:18044 [120]
    let e = at(&ev, 1_138_508_436_000, 0, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(18136, "cat", 120),
            PrevState::Dead,
            t(18044, "capture.sh", 120)
        )
    );
    // capture.sh-18044 [000] 1138.508818: sched_process_fork: comm=capture.sh pid=18044 child_comm=capture.sh child_pid=18138
    let e = at(&ev, 1_138_508_818_000, 0, |k| {
        matches!(k, EventKind::Fork { .. })
    });
    assert_eq!(
        e.kind,
        EventKind::Fork {
            parent_pid: 18044,
            child_pid: 18138,
            child_comm: Comm::from("capture.sh")
        }
    );
    // cat-18136 [000] 1138.508175: sched_process_exit: comm=cat pid=18136 prio=120 group_dead=true
    let e = at(&ev, 1_138_508_175_000, 0, |k| {
        matches!(k, EventKind::Exit { .. })
    });
    assert_eq!(
        (e.current_pid, e.kind),
        (18136, EventKind::Exit { pid: 18136 })
    );
    // cc1-18112 [000] 1138.515954: sched_process_free: comm=cat pid=18134 prio=120
    let e = at(&ev, 1_138_515_954_000, 0, |k| {
        matches!(k, EventKind::Free { .. })
    });
    assert_eq!(
        (e.current_pid, e.kind),
        (18112, EventKind::Free { pid: 18134 })
    );
}

#[test]
fn trace_cmd_raw_rendering_encoding_a() {
    if fixtures::public_missing() {
        return;
    }
    let (got, ev) = read_text(&load(&shared("public/lisa/trace_txt.trace.txt.xz")));
    assert_eq!(
        got.meta.extra["prev_state encoding"],
        "A (kernel <= 4.13, raw p->state, preempted = 4096)"
    );
    // <...>-1701 [001] 76.211513: sched_switch: prev_comm=trace-cmd prev_pid=1701 prev_prio=120 prev_state=64 next_comm=swapper/1 ...
    let e = at(&ev, 76_211_513_000, 1, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(1701, "trace-cmd", 120),
            PrevState::Dead,
            t(0, "swapper/1", 120)
        )
    );
    // <idle>-0 [002] 76.211513: sched_wakeup: comm=sh pid=1642 prio=120 success=1 target_cpu=2
    let e = at(&ev, 76_211_513_000, 2, |k| {
        matches!(k, EventKind::Wakeup { .. })
    });
    assert_eq!(
        e.kind,
        EventKind::Wakeup {
            task: t(1642, "sh", 120),
            target_cpu: 2
        }
    );
    // sh-1642 [002] 76.211701: ... prev_state=4096 next_comm=kworker/u12:1 next_pid=46
    let e = at(&ev, 76_211_701_000, 2, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(1642, "sh", 120),
            PrevState::Preempted,
            t(46, "kworker/u12:1", 120)
        )
    );
    // kworker/u12:1-46 [002] 76.211715: ... prev_state=1 (S)
    let e = at(&ev, 76_211_715_000, 2, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(46, "kworker/u12:1", 120),
            PrevState::Sleeping,
            t(1642, "sh", 120)
        )
    );
    // sshd-1707 [002] 81.235397: ... prev_state=130 (D|K: killable wait)
    let e = at(&ev, 81_235_397_000, 2, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(1707, "sshd", 120),
            PrevState::Blocked,
            t(0, "swapper/2", 120)
        )
    );
}

/// `rel` or, when only that exists, `rel.xz`.
fn load_either(rel: &str) -> Vec<u8> {
    let plain = shared(rel);
    if plain.exists() {
        load(&plain)
    } else {
        load(&shared(&format!("{rel}.xz")))
    }
}

/// The same trace.dat rendered with the plugin and with -R decodes to the same tasks and
/// states, except that the plugin cannot show a preemption (encoding A: R+ is a bit
/// outside its table, it prints R).
#[test]
fn plugin_and_raw_renderings_agree() {
    if fixtures::public_missing() {
        return;
    }
    // (file, preempted, dead) as counted in the -R text: prev_state=4096 / 1024 and =64.
    for (base, want_preempted, want_dead) in [
        ("lisa_sched_load.trace.dat", 79, 4),
        ("trappy_trace_idle.dat", 2, 3),
    ] {
        let (_, plugin) = read_text(&load_either(&format!("public/expected/{base}.report.txt")));
        let (_, raw) = read_text(&load_either(&format!(
            "public/expected/{base}.report-raw.txt"
        )));
        assert_eq!(plugin.len(), raw.len());
        let (mut preempted, mut dead) = (0, 0);
        for (p, r) in plugin.iter().zip(&raw) {
            assert_eq!((p.ts, p.cpu, p.current_pid), (r.ts, r.cpu, r.current_pid));
            match (p.kind, r.kind) {
                (
                    EventKind::Switch {
                        prev_state: ps,
                        prev: pp,
                        next: pn,
                    },
                    EventKind::Switch {
                        prev_state: rs,
                        prev: rp,
                        next: rn,
                    },
                ) => {
                    assert_eq!((pp, pn), (rp, rn), "{base} at {}", p.ts);
                    preempted += u64::from(rs == PrevState::Preempted);
                    dead += u64::from(rs == PrevState::Dead);
                    let plugin_view = if rs == PrevState::Preempted {
                        PrevState::Runnable
                    } else {
                        rs
                    };
                    assert_eq!(ps, plugin_view, "{base} at {}", p.ts);
                }
                (EventKind::Other, EventKind::Other) => {}
                (a, b) => assert_eq!(a, b, "{base} at {}", p.ts),
            }
        }
        assert_eq!((preempted, dead), (want_preempted, want_dead), "{base}");
    }
}

#[test]
fn perf_script_print_fmt_rendering() {
    let (got, ev) = read_text(&load(&shared(
        "eevdf-6.18-host/pipe_pinned/perf.sched.script.txt.xz",
    )));
    assert_eq!(got.meta.format_version, "perf script");
    assert!(
        !got.meta.extra.contains_key("prev_state encoding"),
        "kernel letters need no encoding"
    );
    // perf 18087 [000] 1137.897399: sched:sched_switch: prev_comm=perf prev_pid=18087 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0
    let e = at(&ev, 1_137_897_399_000, 0, is_switch);
    assert_eq!(e.current_pid, 18087);
    assert_eq!(
        e.kind,
        switch(
            t(18087, "perf", 120),
            PrevState::Blocked,
            t(18, "migration/0", 0)
        )
    );
    // rcu_preempt 15 [000] 1137.903375: ... prev_state=I ==> next_comm=kworker/0:0 next_pid=9
    let e = at(&ev, 1_137_903_375_000, 0, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(15, "rcu_preempt", 120),
            PrevState::Sleeping,
            t(9, "kworker/0:0", 120)
        )
    );
    // :-1 -1 [001] 1139.617897: ... prev_comm=opt cgu.0 prev_pid=17910 prev_prio=120 prev_state=R+ ==> next_comm=tsmon next_pid=18080
    let e = at(&ev, 1_139_617_897_000, 1, is_switch);
    assert_eq!(e.current_pid, -1);
    assert_eq!(
        e.kind,
        switch(
            t(17910, "opt cgu.0", 120),
            PrevState::Preempted,
            t(18080, "tsmon", 120)
        )
    );
    // :-1 -1 [000] 1138.065229: ... prev_comm=memfd:sealed-91 prev_pid=18107 ... prev_state=X ==> next_comm=cc1 next_pid=18112
    let e = at(&ev, 1_138_065_229_000, 0, is_switch);
    assert_eq!(
        e.kind,
        switch(
            t(18107, "memfd:sealed-91", 120),
            PrevState::Dead,
            t(18112, "cc1", 120)
        )
    );
    // capture.sh 18044 [000] 1137.903821: sched:sched_process_fork: comm=capture.sh pid=18044 child_comm=capture.sh child_pid=18102
    let e = at(&ev, 1_137_903_821_000, 0, |k| {
        matches!(k, EventKind::Fork { .. })
    });
    assert_eq!(
        e.kind,
        EventKind::Fork {
            parent_pid: 18044,
            child_pid: 18102,
            child_comm: Comm::from("capture.sh")
        }
    );
    // capture.sh 18044 [000] 1137.903832: sched:sched_wakeup_new: comm=capture.sh pid=18102 prio=120 target_cpu=001
    let e = at(&ev, 1_137_903_832_000, 0, |k| {
        matches!(k, EventKind::WakeupNew { .. })
    });
    assert_eq!(
        e.kind,
        EventKind::WakeupNew {
            task: t(18102, "capture.sh", 120),
            target_cpu: 1
        }
    );
    // migration/0 18 [000] 1137.897409: sched:sched_migrate_task: comm=perf pid=18087 prio=120 orig_cpu=0 dest_cpu=1
    let e = at(&ev, 1_137_897_409_000, 0, |k| {
        matches!(k, EventKind::Migrate { .. })
    });
    assert_eq!(
        (e.current_pid, e.kind),
        (
            18,
            EventKind::Migrate {
                task: t(18087, "perf", 120),
                orig_cpu: 0,
                dest_cpu: 1
            }
        )
    );
    // perf 18087 [000] 1137.897384: sched:sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=000
    let e = at(&ev, 1_137_897_384_000, 0, |k| {
        matches!(k, EventKind::Waking { .. })
    });
    assert_eq!(
        e.kind,
        EventKind::Waking {
            task: t(18, "migration/0", 0),
            target_cpu: 0
        }
    );
}

/// perf script with libtraceevent plugins loaded (lines from formats.md §5.3; no such
/// file is in ../shared), `--ns` timestamps and `-F pid,tid`.
#[test]
fn perf_script_plugin_rendering() {
    let text = b"\
            perf   19593 [000] 42668.450193:       sched:sched_switch: perf:19593 [120] R ==> migration/0:19 [0]
     migration/0      19 [000] 42668.450195: sched:sched_migrate_task: comm=perf pid=19593 prio=120 orig_cpu=0 dest_cpu=1
            perf   19593 [001] 42668.450311:       sched:sched_wakeup: kworker/1:1:24 [120] success=1 CPU:001
     opt cgu.0  7/19 [001] 42668.450311123:       sched:sched_switch: opt cgu.0:19 [120] S ==> swapper/1:0 [120]
";
    let (got, ev) = read_text(text);
    assert_eq!(got.meta.format_version, "perf script");
    assert_eq!(got.stats.events["sched_switch"], 2);
    assert_eq!(
        ev[0].kind,
        switch(
            t(19593, "perf", 120),
            PrevState::Runnable,
            t(19, "migration/0", 0)
        )
    );
    assert_eq!(
        ev[2].kind,
        EventKind::Wakeup {
            task: t(24, "kworker/1:1", 120),
            target_cpu: 1
        }
    );
    assert_eq!((ev[3].ts, ev[3].current_pid), (42_668_450_311_123, 19));
    assert_eq!(
        ev[3].kind,
        switch(
            t(19, "opt cgu.0", 120),
            PrevState::Sleeping,
            t(0, "swapper/1", 120)
        )
    );
}

#[test]
fn systrace_html_tgid_column() {
    if fixtures::public_missing() {
        return;
    }
    let (got, ev) = read_text(&load(&shared("public/trappy/trace_systrace.html")));
    assert_eq!(got.meta.cpus, Some(6), "#P:6 of the embedded header");
    // com.android.systemui-611 (611) [001] d..3 514769.086139: sched_switch: prev_comm=ndroid.systemui prev_pid=611 ... prev_state=S ==> next_comm=Binder_5 next_pid=679
    let e = at(&ev, 514_769_086_139_000, 1, is_switch);
    assert_eq!(e.current_pid, 611);
    assert_eq!(
        e.kind,
        switch(
            t(611, "ndroid.systemui", 120),
            PrevState::Sleeping,
            t(679, "Binder_5", 120)
        )
    );
    // Binder_4-280 (184) [000] d..4 514769.086473: sched_wakeup: comm=EventThread pid=238 prio=111 success=1 target_cpu=003 state=W
    let e = at(&ev, 514_769_086_473_000, 0, |k| {
        matches!(k, EventKind::Wakeup { .. })
    });
    assert_eq!(
        (e.current_pid, e.kind),
        (
            280,
            EventKind::Wakeup {
                task: t(238, "EventThread", 111),
                target_cpu: 3
            }
        )
    );
    // <idle>-0 (-----) [002] d..3 514769.086339: sched_switch: prev_comm=swapper/2 prev_pid=0 ... prev_state=R ==> next_comm=Binder_5 next_pid=1158
    let e = at(&ev, 514_769_086_339_000, 2, is_switch);
    assert_eq!(
        (e.current_pid, e.kind),
        (
            0,
            switch(
                t(0, "swapper/2", 120),
                PrevState::Runnable,
                t(1158, "Binder_5", 120)
            )
        )
    );
}

#[test]
fn trace_cmd_raw_with_empty_cpus() {
    if fixtures::public_missing() {
        return;
    }
    let (got, ev) = read_text(&load(&shared("public/trappy/raw_trace.txt")));
    assert_eq!(
        (
            got.meta.cpus,
            got.meta.extra["trace-cmd file version"].as_str()
        ),
        (Some(6), "6")
    );
    // ls-4734 [002] 106439.675591: sched_switch: prev_comm=trace-cmd prev_pid=4734 prev_prio=120 prev_state=1024 next_comm=migration/2 next_pid=18 next_prio=0
    assert_eq!(
        (ev[0].ts, ev[0].cpu, ev[0].current_pid),
        (106_439_675_591_000, 2, 4734)
    );
    assert_eq!(
        ev[0].kind,
        switch(
            t(4734, "trace-cmd", 120),
            PrevState::Preempted,
            t(18, "migration/2", 0)
        )
    );
    assert_eq!(
        ev[1].kind,
        switch(
            t(18, "migration/2", 0),
            PrevState::Sleeping,
            t(4732, "trace-cmd", 120)
        )
    );
}

/// Shapes not present in ../shared (from formats.md §5 and the kernel's trace_output.c):
/// a 3.x kernel's 4-char irq-info and 5-wide pid, trace-cmd >= 3.3 with its flags column,
/// kernel and trace-cmd lost markers, annotate lines, a non-ns (counter) clock.
#[test]
fn older_and_rarer_shapes() {
    let text = b"\
# tracer: nop
##### CPU 1 buffer started ####
     kworker/0:1-22    [000] d..3   123.456789: sched_switch: prev_comm=kworker/0:1 prev_pid=22 prev_prio=120 prev_state=D|K ==> next_comm=swapper/0 next_pid=0 next_prio=120
[LOST 3 EVENTS]
          <idle>-0     [001] dN.2.  124.000001: sched_switch:         swapper/1:0 [120] R ==> rs:main Q:Reg:2041 [120]
CPU:1 [12 EVENTS DROPPED]
     rs:main Q:Reg-2041  [001] ....   124.000002: sched_wakeup: comm=sshd pid=9 prio=120 success=1 target_cpu=000
            bash-77    [000] d..2 124000003000: sched_process_exit: comm=bash pid=77 prio=120
";
    let (got, ev) = read_text(text);
    assert!(
        got.stats.rejected.is_empty(),
        "{:?}",
        got.stats.reject_examples
    );
    assert_eq!(got.meta.cpus, Some(2));
    assert_eq!(ev.len(), 6);
    assert_eq!(
        ev[0].kind,
        switch(
            t(22, "kworker/0:1", 120),
            PrevState::Blocked,
            t(0, "swapper/0", 120)
        )
    );
    assert_eq!(
        (ev[1].ts, ev[1].cpu, ev[1].kind),
        (124_000_001_000, 1, EventKind::Lost { count: Some(3) })
    );
    assert_eq!(
        ev[2].kind,
        switch(
            t(0, "swapper/1", 120),
            PrevState::Runnable,
            t(2041, "rs:main Q:Reg", 120)
        )
    );
    assert_eq!(
        (ev[3].ts, ev[3].cpu, ev[3].kind),
        (124_000_002_000, 1, EventKind::Lost { count: Some(12) })
    );
    assert_eq!(
        (ev[4].current_pid, ev[4].kind),
        (
            2041,
            EventKind::Wakeup {
                task: t(9, "sshd", 120),
                target_cpu: 0
            }
        )
    );
    assert_eq!(
        (ev[5].ts, ev[5].kind),
        (124_000_003_000, EventKind::Exit { pid: 77 })
    );
}

/// The crate's entry point finds the text format by content, `.xz` undone by the loader.
#[test]
fn read_path_dispatches_text() {
    let mut n = 0u64;
    let got = ingest::read_path(
        &shared("cfs-6.1-vm/nice/report.txt.xz"),
        &mut |_: &Event| n += 1,
    )
    .unwrap();
    assert_eq!(got.meta.format, Some(ingest::Format::Text));
    assert_eq!(got.meta.format_version, "trace-cmd report");
    assert_eq!(n, got.stats.events.values().sum::<u64>());
}
