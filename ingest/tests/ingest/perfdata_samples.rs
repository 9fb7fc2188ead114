//! Sample-level check: every sched_switch of the host `pipe_pinned` perf.sched.data equals
//! the line `perf script` printed for it (perf.sched.script.txt), in the same order: CPU,
//! time truncated to µs (perf truncates), current pid, prev/next pid, comm and prio, and the
//! prev_state class. Also checks the other sched events' task fields against the text.

use crate::perfdata_common::*;
use ingest::{EventKind, PrevState};

/// One `sched:sched_switch:` line of perf script.
#[derive(Debug, PartialEq)]
struct SwitchLine {
    cpu: u32,
    usecs: u64,
    current_pid: i32,
    prev_comm: String,
    prev_pid: i32,
    prev_prio: i32,
    prev_state: String,
    next_comm: String,
    next_pid: i32,
    next_prio: i32,
}

/// `value` of `key=value` in `fields`, where values may contain spaces only when followed by
/// the next known key.
fn field<'a>(fields: &'a str, key: &str, next: Option<&str>) -> &'a str {
    let start = fields
        .find(&format!("{key}="))
        .unwrap_or_else(|| panic!("{key} in {fields}"));
    let rest = &fields[start + key.len() + 1..];
    match next {
        Some(n) => {
            &rest[..rest
                .find(&format!(" {n}="))
                .unwrap_or_else(|| panic!("{n} in {fields}"))]
        }
        None => rest.trim_end(),
    }
}

fn parse_switch(line: &str) -> Option<SwitchLine> {
    let (head, fields) = line.split_once(" sched:sched_switch: ")?;
    // head: "<comm> <pid> [<cpu>] <secs>.<usecs>:"
    let (before_time, time) = head.trim_end().trim_end_matches(':').rsplit_once(' ')?;
    let (secs, usecs) = time.split_once('.')?;
    let (before_cpu, cpu) = before_time.trim_end().rsplit_once(' ')?;
    let cpu = cpu
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()?;
    let pid = before_cpu.trim_end().rsplit_once(' ')?.1.parse().ok()?;
    let (prev, next) = fields.split_once(" ==> ")?;
    Some(SwitchLine {
        cpu,
        usecs: secs.parse::<u64>().ok()? * 1_000_000 + usecs.parse::<u64>().ok()?,
        current_pid: pid,
        prev_comm: field(prev, "prev_comm", Some("prev_pid")).to_string(),
        prev_pid: field(prev, "prev_pid", Some("prev_prio")).parse().ok()?,
        prev_prio: field(prev, "prev_prio", Some("prev_state")).parse().ok()?,
        prev_state: field(prev, "prev_state", None).to_string(),
        next_comm: field(next, "next_comm", Some("next_pid")).to_string(),
        next_pid: field(next, "next_pid", Some("next_prio")).parse().ok()?,
        next_prio: field(next, "next_prio", None).parse().ok()?,
    })
}

/// The class perf's letters name (formats.md §3.3).
fn state_class(letters: &str) -> PrevState {
    match letters {
        "R" => PrevState::Runnable,
        "R+" => PrevState::Preempted,
        "S" | "I" => PrevState::Sleeping,
        "X" | "Z" | "x" => PrevState::Dead,
        _ => PrevState::Blocked,
    }
}

#[test]
fn every_pipe_pinned_switch_matches_perf_script() {
    let dir = "eevdf-6.18-host/pipe_pinned";
    let script = text(&shared(&format!("{dir}/perf.sched.script.txt.xz")));
    let expected: Vec<SwitchLine> = script.lines().filter_map(parse_switch).collect();
    assert_eq!(expected.len(), 12036, "reference parse");

    let (_, events) = read_all(&shared(&format!("{dir}/perf.sched.data.xz")));
    let got: Vec<SwitchLine> = events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Switch {
                prev,
                prev_state,
                next,
            } => Some(SwitchLine {
                cpu: e.cpu,
                usecs: e.ts / 1000,
                current_pid: e.current_pid,
                prev_comm: prev.comm.to_string(),
                prev_pid: prev.pid,
                prev_prio: prev.prio,
                prev_state: format!("{prev_state:?}"),
                next_comm: next.comm.to_string(),
                next_pid: next.pid,
                next_prio: next.prio,
            }),
            _ => None,
        })
        .collect();
    assert_eq!(got.len(), expected.len());
    for (i, (g, x)) in got.iter().zip(&expected).enumerate() {
        let x_class = format!("{:?}", state_class(&x.prev_state));
        let x_norm = SwitchLine {
            prev_state: x_class,
            ..clone_line(x)
        };
        assert_eq!(
            g, &x_norm,
            "sched_switch #{i} differs from perf script (letters {})",
            x.prev_state
        );
    }
    // The capture has every class: R 6073, R+ 80, S 5580, I 196, D 44, Z 59, X 4.
    let preempted = got.iter().filter(|g| g.prev_state == "Preempted").count();
    assert_eq!(preempted, 80);
}

fn clone_line(x: &SwitchLine) -> SwitchLine {
    SwitchLine {
        cpu: x.cpu,
        usecs: x.usecs,
        current_pid: x.current_pid,
        prev_comm: x.prev_comm.clone(),
        prev_pid: x.prev_pid,
        prev_prio: x.prev_prio,
        prev_state: x.prev_state.clone(),
        next_comm: x.next_comm.clone(),
        next_pid: x.next_pid,
        next_prio: x.next_prio,
    }
}

/// sched_waking / wakeup_new / migrate_task / fork lines: time, CPU and the task pid in the
/// same order as perf script.
#[test]
fn pipe_pinned_other_sched_events_match_perf_script() {
    let dir = "eevdf-6.18-host/pipe_pinned";
    let script = text(&shared(&format!("{dir}/perf.sched.script.txt.xz")));
    let mut expected = Vec::new();
    for line in script.lines() {
        for (tag, key) in [
            ("sched:sched_waking: ", "pid"),
            ("sched:sched_wakeup_new: ", "pid"),
            ("sched:sched_migrate_task: ", "pid"),
            ("sched:sched_process_fork: ", "child_pid"),
        ] {
            if let Some((head, fields)) = line.split_once(&format!(" {tag}")) {
                let time = head
                    .trim_end()
                    .trim_end_matches(':')
                    .rsplit_once(' ')
                    .unwrap()
                    .1;
                let (s, u) = time.split_once('.').unwrap();
                let usecs = s.parse::<u64>().unwrap() * 1_000_000 + u.parse::<u64>().unwrap();
                let value = fields
                    .split_whitespace()
                    .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
                    .unwrap();
                expected.push((
                    tag.split(':').nth(1).unwrap().to_string(),
                    usecs,
                    value.parse::<i32>().unwrap(),
                ));
            }
        }
    }
    assert_eq!(expected.len(), 5828 + 69 + 66 + 69);
    let (_, events) = read_all(&shared(&format!("{dir}/perf.sched.data.xz")));
    let got: Vec<(String, u64, i32)> = events
        .iter()
        .filter_map(|e| {
            let (name, pid) = match e.kind {
                EventKind::Waking { task, .. } => ("sched_waking", task.pid),
                EventKind::WakeupNew { task, .. } => ("sched_wakeup_new", task.pid),
                EventKind::Migrate { task, .. } => ("sched_migrate_task", task.pid),
                EventKind::Fork { child_pid, .. } => ("sched_process_fork", child_pid),
                _ => return None,
            };
            Some((name.to_string(), e.ts / 1000, pid))
        })
        .collect();
    assert_eq!(got, expected);
}
