//! The Overview: the system table (the JSON `system` block), the tasks that waited most,
//! the most frequent wakeup preemption triples, and activity over time.

use super::fmt;
use super::style::{self, Glyphs};
use super::table;
use crate::state::App;
use analysis::Report;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Borders, Paragraph, Row};
use ratatui::Frame;

/// Tasks and triples shown (the Tasks and Preemptions views have all of them).
const TOP: usize = 8;

pub(super) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let Some(input) = app.input() else { return };
    let r = &input.report;
    let [top, bottom] = Layout::vertical([Constraint::Fill(1), Constraint::Length(5)]).areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Length(46), Constraint::Fill(1)]).areas(top);
    let system: Vec<Line> = system_rows(r)
        .into_iter()
        .map(|(k, v)| Line::raw(format!("{k:<24}{v:>20}")))
        .collect();
    frame.render_widget(
        Paragraph::new(system).block(glyphs.block(Borders::RIGHT).title("system")),
        left,
    );
    let [waits, triples] =
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(right);
    top_waits(frame, r, &app.derived.top_waits, waits);
    top_triples(frame, r, triples);
    frame.render_widget(
        Paragraph::new(activity(r, bottom.width as usize, glyphs)),
        bottom,
    );
}

/// Busy CPUs, runnable tasks and wakeup preemptions per second over time, from the series.
fn activity(r: &Report, width: usize, glyphs: Glyphs) -> Vec<Line<'static>> {
    let Some(s) = &r.series else {
        return vec![Line::styled(
            "activity over time: needs the trace (a JSON report without series)",
            style::dim(),
        )];
    };
    let windows = s.windows as usize;
    let per_window = |f: &dyn Fn(&analysis::series::CpuSeries, usize) -> f64| -> Vec<f64> {
        (0..windows)
            .map(|w| s.cpus.iter().map(|c| f(c, w)).sum())
            .collect()
    };
    let window_s = s.window_ns as f64 / 1e9;
    let busy =
        per_window(&|c, w| c.busy_ns.get(w).copied().unwrap_or(0) as f64 / s.window_ns as f64);
    let preemptions =
        per_window(&|c, w| c.wakeup_preemptions.get(w).copied().unwrap_or(0) as f64 / window_s);
    vec![
        Line::styled(
            format!(
                "activity over time ({} ms windows)",
                s.window_ns / 1_000_000
            ),
            style::dim(),
        ),
        super::sparkline::line("busy CPUs       ", &busy, width, glyphs),
        super::sparkline::line("runnable tasks  ", &s.runnable_tasks_mean, width, glyphs),
        super::sparkline::line("wakeup preempt/s", &preemptions, width, glyphs),
    ]
}

/// (name, value) lines of the system table.
pub(super) fn system_rows(r: &Report) -> Vec<(String, String)> {
    let s = &r.system;
    let mut rows = vec![
        ("CPUs".into(), s.cpus.to_string()),
        ("utilization %".into(), fmt::pct(Some(s.utilization))),
        (
            "context switches".into(),
            format!(
                "{} ({:.1}/s)",
                s.context_switches, s.context_switches_per_sec
            ),
        ),
        (
            "voluntary / invol".into(),
            format!("{} / {}", s.switches.voluntary, s.switches.involuntary),
        ),
        ("wakeups".into(), s.wakeups.to_string()),
        (
            "migrations".into(),
            format!("{} ({:.1}/s)", s.migrations, s.migrations_per_sec),
        ),
        ("wakeup lat p50 us".into(), fmt::us(s.wakeup_latency.p50_ns)),
        ("wakeup lat p99 us".into(), fmt::us(s.wakeup_latency.p99_ns)),
        ("wakeup lat max us".into(), fmt::us(s.wakeup_latency.max_ns)),
        (
            "preempt wait p99 us".into(),
            fmt::us(s.preemption_wait.p99_ns),
        ),
        ("sched delay max us".into(), fmt::us(s.sched_delay.max_ns)),
        (
            "wakeup preemptions".into(),
            format!(
                "{} ({:.1}/s)",
                s.wakeup_preemption.count, s.wakeup_preemption.per_sec
            ),
        ),
        ("Jain's index".into(), fmt::opt4(s.fairness.jain)),
    ];
    for st in &s.fairness.short_term {
        rows.push((
            format!("Jain {} ms mean", st.window_ns / 1_000_000),
            fmt::opt4(st.mean),
        ));
    }
    rows.push(("max |lag| ms".into(), fmt::ms_f(s.fairness.max_abs_lag_ns)));
    rows.push((
        "idle while runnable %".into(),
        fmt::pct(Some(s.work_conservation.idle_while_runnable_share)),
    ));
    rows.push((
        "warm restarts %".into(),
        fmt::pct(s.affinity.warm_restart_share),
    ));
    rows
}

fn top_waits(frame: &mut Frame, r: &Report, order: &[usize], area: Rect) {
    let [title, rest] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
    frame.render_widget(
        Paragraph::new(Line::styled("tasks that waited most", style::header())),
        title,
    );
    table::draw(
        frame,
        rest,
        table::header(&["task:pid", "delay ms", "waits", "max us", "p99 us"]),
        vec![
            Constraint::Length(24),
            Constraint::Length(10),
            Constraint::Length(7),
            Constraint::Length(10),
            Constraint::Length(10),
        ],
        order.len(),
        None,
        |i| {
            let t = &r.tasks[order[i]];
            Row::new(vec![
                ratatui::widgets::Cell::from(crate::columns::task_label(t)),
                table::num(fmt::ms(t.sched_delay.sum_ns)),
                table::num(t.sched_delay.count.to_string()),
                table::num(fmt::us(t.sched_delay.max_ns)),
                table::num(fmt::us(t.sched_delay.p99_ns)),
            ])
        },
    );
}

pub(super) fn top_triples(frame: &mut Frame, r: &Report, area: Rect) {
    let triples = &r.system.wakeup_preemption.top_triples;
    let [title, rest] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
    frame.render_widget(
        Paragraph::new(Line::styled(
            "wakeup preemptions: waker -> wakee preempts victim",
            style::header(),
        )),
        title,
    );
    table::draw(
        frame,
        rest,
        super::preemptions::triple_header(),
        super::preemptions::triple_widths(),
        triples.len().min(TOP),
        None,
        |i| super::preemptions::triple_row(&triples[i]),
    );
}
