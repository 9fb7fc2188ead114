//! Task detail: log2 histograms of wakeup latency, preemption wait and slices with the
//! percentiles marked, switch-out reasons, local vs remote latency, placement, and the
//! preemption triples the task is in, why it waited (`why`). `J` shows the timeline at its
//! longest wait, `O` at its piece behind the selected occupant.

use super::fmt;
use super::style::{self, Glyphs};
use crate::state::App;
use analysis::{Stats, TaskRow};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Borders, Paragraph};
use ratatui::Frame;

pub(crate) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let Some(t) = app.current_task() else {
        frame.render_widget(
            Paragraph::new("no task selected (choose one in the tasks view, 2)"),
            area,
        );
        return;
    };
    let lanes = state_lanes(app, t, area.width, glyphs);
    let [area, bottom] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(lanes.len() as u16)]).areas(area);
    frame.render_widget(Paragraph::new(lanes), bottom);
    let [left, right] =
        Layout::horizontal([Constraint::Length(62), Constraint::Fill(1)]).areas(area);
    frame.render_widget(Paragraph::new(facts(app, t)), left);
    let Some(samples) = &t.samples else {
        frame.render_widget(
            Paragraph::new("histograms need the exact samples: open the trace, not a JSON report")
                .style(style::dim()),
            right,
        );
        return;
    };
    let parts = Layout::vertical([Constraint::Fill(1); 3]).split(right);
    let latency: Vec<u64> = samples
        .latency_local
        .values()
        .chain(samples.latency_remote.values())
        .collect();
    let histograms = [
        ("wakeup latency", latency, &t.wakeup_latency),
        (
            "preemption wait",
            samples.preemption_wait.values().collect(),
            &t.preemption_wait,
        ),
        ("slices", samples.slices.values().collect(), &t.slices),
    ];
    for ((title, values, stats), rect) in histograms.into_iter().zip(parts.iter()) {
        let block = glyphs.block(Borders::TOP).title(format!(
            "{title}: {} samples, p50 {} p99 {} max {} us",
            stats.count,
            fmt::us(stats.p50_ns),
            fmt::us(stats.p99_ns),
            fmt::us(stats.max_ns)
        ));
        let inner = block.inner(*rect);
        frame.render_widget(block, *rect);
        let lines = histogram(
            &values,
            stats,
            inner.width as usize,
            inner.height as usize,
            glyphs,
        );
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

fn facts(app: &App, t: &TaskRow) -> Vec<Line<'static>> {
    let o = &t.switch_out;
    let a = &t.affinity;
    let p = &a.placement;
    let mut lines = vec![
        Line::styled(crate::columns::task_label(t), style::header()),
        Line::raw(format!(
            "runtime {} ms  sleep {} ms  unknown {} ms",
            fmt::ms(t.runtime_ns),
            fmt::ms(t.sleep_ns),
            fmt::ms(t.unknown_ns)
        )),
        Line::raw(format!(
            "wakeups {}  migrations {}  runqueue moves {}",
            t.wakeups, t.migrations, t.runqueue_moves
        )),
        Line::raw(format!(
            "longest wait {} us, ended at {} s (J: timeline)",
            fmt::us(t.sched_delay.max_ns),
            fmt::secs(t.sched_delay.max_at_ns)
        )),
        Line::raw(""),
    ];
    // Why it waited, right under its longest wait.
    lines.extend(super::why::lines(app, t));
    lines.extend([
        Line::styled("switch-out reasons", style::header()),
        Line::raw(format!(
            "  block {}  wakeup-preempt {}  preempt {}  exit {}",
            o.block, o.wakeup_preempt, o.preempt, o.exit
        )),
        Line::raw(format!(
            "  wakeup preemptions caused {}  suffered {}",
            t.preemption.caused, t.preemption.suffered
        )),
        Line::styled("local vs remote wakeups", style::header()),
        stats_line("  local ", a.wakeups_local, &a.wakeup_latency_local),
        stats_line("  remote", a.wakeups_remote, &a.wakeup_latency_remote),
        Line::styled("placement", style::header()),
        Line::raw(format!(
            "  same CPU {}  core {}  LLC {}  node {}  remote {}  ? {}",
            p.same_cpu, p.same_core, p.same_llc, p.same_node, p.remote_node, p.unknown
        )),
        Line::raw(format!(
            "  waker CPU {}  waker LLC {}  other {}; warm {} %",
            p.waker_cpu,
            p.waker_llc,
            p.other,
            fmt::pct(a.warm_restart_share)
        )),
    ]);
    if let Some(f) = t.fairness {
        lines.push(Line::raw(format!(
            "fairness: weight {} ratio {} max lag {} ms",
            f.weight,
            f.ratio.map_or("-".into(), |r| format!("{r:.3}")),
            fmt::ms_f(f.max_abs_lag_ns)
        )));
    }
    lines.push(Line::styled(
        "preemption triples with this task",
        style::header(),
    ));
    let name = analysis::select::fold_name(&t.comm).to_string();
    let same = |n: &str| n == t.comm || analysis::select::fold_name(n) == name;
    if let Some(input) = app.input() {
        let triples = input.report.system.wakeup_preemption.top_triples.iter();
        for tr in triples
            .filter(|tr| same(&tr.waker) || same(&tr.wakee) || same(&tr.victim))
            .take(6)
        {
            lines.push(Line::raw(format!(
                "  {:>5} {} -> {} preempts {}",
                tr.count, tr.waker, tr.wakee, tr.victim
            )));
        }
    }
    lines
}

/// Title of the lane around the longest wait (the tests find the lane under it).
pub(crate) const WAIT_LANE: &str = "around the longest wait";

/// The task's state over the window, and around its longest wait, from the timeline
/// store (running, runnable after a wakeup, preempted, unknown; blank: sleeping).
fn state_lanes(app: &App, t: &TaskRow, width: u16, glyphs: Glyphs) -> Vec<Line<'static>> {
    let Some(input) = app.input() else {
        return Vec::new();
    };
    let mut lines = vec![Line::styled(
        format!(
            "state lane: {} running  w runnable after wakeup  p preempted  ? unknown",
            glyphs.bar()
        ),
        style::header(),
    )];
    let timeline = match &input.timeline {
        Some(Ok(timeline)) => timeline,
        Some(Err(e)) => return vec![Line::styled(format!("no state lane: {e}"), style::dim())],
        None => {
            return vec![Line::styled(
                "no state lane: it needs the trace (this run is a JSON report)",
                style::dim(),
            )]
        }
    };
    let pids = if t.members.is_empty() {
        vec![t.pid]
    } else {
        t.members.clone()
    };
    // A pid's lifetimes are separate tasks of the store; a group shows its first members.
    let tasks: Vec<usize> = timeline
        .tasks()
        .iter()
        .enumerate()
        .filter(|(_, task)| pids.contains(&task.pid))
        .map(|(i, _)| i)
        .take(3)
        .collect();
    let columns = width.saturating_sub(super::timeline::LABEL) as usize;
    let (start, end) = app.timeline.window;
    for &i in &tasks {
        lines.push(super::timeline::task_lane(
            timeline, i, start, end, columns, glyphs,
        ));
    }
    let d = &t.sched_delay;
    if d.count > 0 && t.members.is_empty() {
        let view = app.timeline.around_wait(d.max_at_ns, d.max_ns);
        lines.push(Line::styled(
            format!(
                "{WAIT_LANE} ({} us, ended at {} s): {} s .. {} s",
                fmt::us(d.max_ns),
                fmt::secs(d.max_at_ns),
                fmt::secs(view.start),
                fmt::secs(view.end)
            ),
            style::dim(),
        ));
        for &i in &tasks {
            lines.push(super::timeline::task_lane(
                timeline, i, view.start, view.end, columns, glyphs,
            ));
        }
    }
    lines
}

fn stats_line(label: &str, n: u64, s: &Stats) -> Line<'static> {
    Line::raw(format!(
        "{label} {n:>6} wakeups  mean {} us  p99 {} us",
        fmt::us(s.mean_ns),
        fmt::us(s.p99_ns)
    ))
}

/// One line per log2 bucket from the smallest to the largest sample: lower bound, count,
/// bar, and which of p50 / p90 / p99 / max fall in it.
fn histogram(
    values: &[u64],
    s: &Stats,
    width: usize,
    height: usize,
    glyphs: Glyphs,
) -> Vec<Line<'static>> {
    if values.is_empty() {
        return vec![Line::styled("no samples", style::dim())];
    }
    let bucket = |v: u64| 64 - v.max(1).leading_zeros() as usize - 1;
    let mut counts = [0u64; 64];
    for &v in values {
        counts[bucket(v)] += 1;
    }
    let first = counts.iter().position(|&c| c > 0).unwrap_or(0);
    let last = counts.iter().rposition(|&c| c > 0).unwrap_or(0);
    // Merge the smallest buckets when there are more than lines.
    let first = first.max(last.saturating_sub(height.saturating_sub(1)));
    let lowest: u64 = counts[..first].iter().sum();
    let most = counts[first..=last]
        .iter()
        .max()
        .copied()
        .unwrap_or(1)
        .max(1);
    // Room for the bound, the count and the percentile names.
    let bar_room = width.saturating_sub(36);
    (first..=last)
        .map(|b| {
            let n = counts[b] + if b == first { lowest } else { 0 };
            let marks: Vec<&str> = [
                ("p50", s.p50_ns),
                ("p90", s.p90_ns),
                ("p99", s.p99_ns),
                ("max", s.max_ns),
            ]
            .iter()
            .filter(|(_, v)| bucket(*v) == b || (b == first && bucket(*v) < first))
            .map(|(name, _)| *name)
            .collect();
            let bar = glyphs.bar().repeat(
                (n as usize * bar_room)
                    .div_ceil(most as usize)
                    .min(bar_room),
            );
            Line::raw(format!(
                "{}{:>7} {:>7} {bar} {}",
                match (b == first && lowest > 0, glyphs.ascii) {
                    (true, false) => "≤",
                    (true, true) => "<=",
                    (false, false) => "≥",
                    (false, true) => ">=",
                },
                fmt::duration_short(1u64 << b),
                n,
                marks.join(" ")
            ))
        })
        .collect()
}
