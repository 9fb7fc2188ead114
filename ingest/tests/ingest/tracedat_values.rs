//! Decoded values against `trace-cmd report` text, for EVERY event line of one VM
//! trace (6.1, char[16] comms) and of the 6.18 host trace (`__data_loc` comms):
//! same order, CPU, timestamp (µs), running pid, and the sched fields of each line.

use crate::tracedat_common::{check_against_report, load, report_lines, ReportLine};
use ingest::{Event, EventKind, Marks, PrevState};

/// Values of `key=` fields in a body like `comm=opt cgu.0 pid=17910 prio=120` (values may contain spaces).
fn kv<'a>(body: &'a str, keys: &[&str]) -> Vec<&'a str> {
    let mut starts: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    for key in keys {
        let pat = format!("{key}=");
        let at = body[from..]
            .match_indices(&pat)
            .map(|(i, _)| i + from)
            .find(|&i| i == 0 || body.as_bytes()[i - 1] == b' ')
            .unwrap_or_else(|| panic!("no {key}= in {body:?}"));
        starts.push((at, at + pat.len()));
        from = at + pat.len();
    }
    (0..keys.len())
        .map(|i| {
            let end = starts.get(i + 1).map_or(body.len(), |s| s.0 - 1);
            &body[starts[i].1..end]
        })
        .collect()
}

/// `comm:pid [prio]` → (comm, pid, prio).
fn task(text: &str) -> (String, i32, i32) {
    let (who, prio) = text.trim().rsplit_once(' ').unwrap();
    let (comm, pid) = who.rsplit_once(':').unwrap();
    (
        comm.to_string(),
        pid.parse().unwrap(),
        prio.trim_matches(['[', ']']).parse().unwrap(),
    )
}

fn state_class(letter: &str) -> PrevState {
    match letter {
        // The sched_switch plugin never prints "+": R covers R and R+.
        "R" => PrevState::Runnable,
        "S" | "I" | "W" => PrevState::Sleeping,
        "X" | "Z" | "x" => PrevState::Dead,
        _ => PrevState::Blocked,
    }
}

fn check_line(line: &ReportLine, e: &Event, marks: &Marks, at: usize) {
    let ctx = || format!("report line #{at}: {line:?} vs {e:?}");
    assert_eq!(
        (e.cpu, (e.ts + 500) / 1000, e.current_pid),
        (line.cpu, line.us, line.task_pid),
        "{}",
        ctx()
    );
    match e.kind {
        EventKind::Switch {
            prev,
            prev_state,
            next,
        } => {
            assert_eq!(line.name, "sched_switch", "{}", ctx());
            let (left, right) = line.body.split_once(" ==> ").unwrap();
            let (prev_text, letter) = left.rsplit_once(' ').unwrap();
            assert_eq!(
                task(prev_text),
                (prev.comm.to_string(), prev.pid, prev.prio),
                "{}",
                ctx()
            );
            assert_eq!(
                task(right),
                (next.comm.to_string(), next.pid, next.prio),
                "{}",
                ctx()
            );
            let mine = if prev_state == PrevState::Preempted {
                PrevState::Runnable
            } else {
                prev_state
            };
            assert_eq!(state_class(letter), mine, "{}", ctx());
        }
        EventKind::Waking { task, target_cpu } => {
            assert_eq!(line.name, "sched_waking", "{}", ctx());
            let v = kv(line.body, &["comm", "pid", "prio", "target_cpu"]);
            assert_eq!(
                (
                    v[0],
                    v[1].parse().unwrap(),
                    v[2].parse().unwrap(),
                    v[3].parse().unwrap()
                ),
                (
                    task.comm.to_string().as_str(),
                    task.pid,
                    task.prio,
                    target_cpu
                ),
                "{}",
                ctx()
            );
        }
        EventKind::Wakeup {
            task: t,
            target_cpu,
        }
        | EventKind::WakeupNew {
            task: t,
            target_cpu,
        } => {
            assert!(line.name.starts_with("sched_wakeup"), "{}", ctx());
            // Plugin form: `comm:pid [prio] CPU:ddd`.
            let (who, cpu) = line.body.rsplit_once(" CPU:").unwrap();
            assert_eq!(task(who), (t.comm.to_string(), t.pid, t.prio), "{}", ctx());
            assert_eq!(cpu.parse::<i32>().unwrap(), target_cpu, "{}", ctx());
        }
        EventKind::Migrate {
            task,
            orig_cpu,
            dest_cpu,
        } => {
            assert_eq!(line.name, "sched_migrate_task", "{}", ctx());
            let v = kv(line.body, &["comm", "pid", "prio", "orig_cpu", "dest_cpu"]);
            assert_eq!(
                (
                    v[0],
                    v[1].parse().unwrap(),
                    v[2].parse().unwrap(),
                    v[3].parse().unwrap(),
                    v[4].parse().unwrap()
                ),
                (
                    task.comm.to_string().as_str(),
                    task.pid,
                    task.prio,
                    orig_cpu,
                    dest_cpu
                ),
                "{}",
                ctx()
            );
        }
        EventKind::Fork {
            parent_pid,
            child_pid,
            child_comm,
        } => {
            assert_eq!(line.name, "sched_process_fork", "{}", ctx());
            let v = kv(line.body, &["comm", "pid", "child_comm", "child_pid"]);
            assert_eq!(
                (v[1].parse().unwrap(), v[2], v[3].parse().unwrap()),
                (parent_pid, child_comm.to_string().as_str(), child_pid),
                "{}",
                ctx()
            );
        }
        EventKind::Exit { pid } | EventKind::Free { pid } => {
            assert!(
                line.name == "sched_process_exit" || line.name == "sched_process_free",
                "{}",
                ctx()
            );
            assert_eq!(
                kv(line.body, &["comm", "pid"])[1]
                    .split(' ')
                    .next()
                    .unwrap()
                    .parse::<i32>()
                    .unwrap(),
                pid,
                "{}",
                ctx()
            );
        }
        EventKind::CpuIdle { state, cpu_id } => {
            assert_eq!(line.name, "cpu_idle", "{}", ctx());
            let v = kv(line.body, &["state", "cpu_id"]);
            assert_eq!(
                (
                    v[0].trim().parse::<u32>().unwrap(),
                    v[1].trim().parse::<u32>().unwrap()
                ),
                (state, cpu_id),
                "{}",
                ctx()
            );
        }
        EventKind::Other => assert!(
            !line.name.starts_with("sched_") && line.name != "cpu_idle",
            "{}",
            ctx()
        ),
        EventKind::Print { text } => {
            // trace-cmd prints the marker's ip as a symbol, then its text.
            assert_eq!(line.name, "print", "{}", ctx());
            let (_, want) = line.body.split_once(": ").unwrap();
            assert_eq!(marks.text_lossy(text), want.trim_end(), "{}", ctx());
        }
        EventKind::TaskName { .. } | EventKind::Lost { .. } => unreachable!(),
    }
}

fn check_all_lines(trace: &str, report: &str) -> usize {
    let (ingested, events) = check_against_report(trace, report);
    let text = String::from_utf8(load(report)).unwrap();
    let lines = report_lines(&text);
    let real: Vec<&Event> = events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::TaskName { .. } | EventKind::Lost { .. }))
        .collect();
    assert_eq!(real.len(), lines.len());
    for (i, (line, e)) in lines.iter().zip(&real).enumerate() {
        check_line(line, e, &ingested.marks, i);
    }
    lines.iter().filter(|l| l.name == "sched_switch").count()
}

#[test]
fn every_line_of_pds_6_1_pp2() {
    let switches = check_all_lines(
        "pds-6.1-vm/pp2/trace-v6.dat.xz",
        "pds-6.1-vm/pp2/report.txt.xz",
    );
    assert_eq!(switches, 39718);
}

#[test]
fn every_line_of_eevdf_6_18_host_pipe_pinned() {
    let switches = check_all_lines(
        "eevdf-6.18-host/pipe_pinned/trace.dat",
        "eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz",
    );
    assert_eq!(switches, 11418);
}

/// A third-party trace with `power:cpu_idle` (trappy's `trace_idle.dat`): each event's state
/// and CPU as `trace-cmd report` prints them.
#[test]
fn every_line_of_trappy_trace_idle() {
    if fixtures::public_missing() {
        return;
    }
    check_all_lines(
        "public/trappy/trace_idle.dat.xz",
        "public/expected/trappy_trace_idle.dat.report.txt",
    );
}

#[test]
fn saved_cmdlines_come_first_at_the_first_event_time() {
    let (_, events) = check_against_report(
        "cfs-6.1-vm/pp1/trace-v6.dat.xz",
        "cfs-6.1-vm/pp1/report.txt.xz",
    );
    let names = events
        .iter()
        .take_while(|e| matches!(e.kind, EventKind::TaskName { .. }))
        .count();
    assert!(names > 10, "only {names} saved cmdlines");
    let first_real = &events[names];
    assert!(events[..names].iter().all(|e| e.ts == first_real.ts));
    assert!(events[names..]
        .iter()
        .all(|e| !matches!(e.kind, EventKind::TaskName { .. })));
}
