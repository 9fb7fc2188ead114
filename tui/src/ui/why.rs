//! The task detail's "why it waited" section: the task's sched delay split by what its
//! CPU ran (enqueue, idle, behind other tasks, unknown: ms and % of the delay), the tasks
//! it waited behind (the selected one marked; `o` steps, `O` goes to the timeline), and
//! how its waits ended.

use super::fmt;
use super::style;
use crate::state::App;
use analysis::TaskRow;
use ratatui::text::Line;

/// Occupants listed (the report keeps up to eight and an "others" row).
const SHOWN: usize = 4;

pub(super) fn lines(app: &App, t: &TaskRow) -> Vec<Line<'static>> {
    let w = &t.wait_causes;
    let total = w.total_ns();
    let mut out = vec![Line::styled(
        format!(
            "why it waited: {} ms (o: next task, O: timeline)",
            fmt::ms(total)
        ),
        style::header(),
    )];
    if total == 0 {
        out.push(Line::styled(
            "  no wait (or a report written before schema 3)",
            style::dim(),
        ));
        return out;
    }
    let pct = |ns: u64| ns as f64 * 100.0 / total as f64;
    let kind = |name: &str, ns: u64| format!("{name} {} ms {:.1} %", fmt::ms(ns), pct(ns));
    for pair in [
        [("behind", w.behind_ns), ("idle", w.idle_ns)],
        [("enqueue", w.enqueue_ns), ("unknown", w.unknown_ns)],
    ] {
        out.push(Line::raw(format!(
            "  {}  {}",
            kind(pair[0].0, pair[0].1),
            kind(pair[1].0, pair[1].1)
        )));
    }
    let selected = app.selected_occupant().map(|(pid, _)| pid);
    for b in w.behind.iter().take(SHOWN) {
        let mark = if b.pid.is_some() && b.pid == selected {
            ">"
        } else {
            " "
        };
        let who = match b.pid {
            Some(pid) => format!("{} ({pid})", b.comm),
            None => b.comm.clone(),
        };
        out.push(Line::raw(format!(
            " {mark} {who:<28} {:>10} ms {:>5.1} % {:>6}x",
            fmt::ms(b.ns),
            pct(b.ns),
            b.count
        )));
    }
    if w.behind.len() > SHOWN {
        let rest: u64 = w.behind[SHOWN..].iter().map(|b| b.ns).sum();
        out.push(Line::styled(
            format!("   {} more: {} ms", w.behind.len() - SHOWN, fmt::ms(rest)),
            style::dim(),
        ));
    }
    let e = &w.ended_by;
    out.push(Line::raw(format!(
        "  ended: preempting {}  blocked {}  preempted {}  exited {}",
        e.wakeup_preemption, e.occupant_blocked, e.occupant_preempted, e.occupant_exited
    )));
    out.push(Line::raw(format!(
        "         idle {}  pulled {}  unknown {}",
        e.idle, e.pulled, e.unknown
    )));
    out
}
