//! The Timeline view: per CPU a lane of busy fraction per column, coloured by the task that
//! ran most there (marked tasks highlighted), under it a runqueue-depth strip with lost
//! events (`L`) and context-switch bugs (`B`) marked; then a lane per marked task (running,
//! runnable after a wakeup, preempted, unknown). Zoomed out, columns read the store's
//! summary pyramid (O(columns)); zoomed in, the running slices themselves.

use super::fmt;
use super::style::{self, Glyphs};
use crate::state::App;
use analysis::timeline_store::ThreadState;
use analysis::Timeline;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Width of the lane labels (`CPU 12 `).
pub(super) const LABEL: u16 = 8;

const PALETTE: [Color; 6] = [
    Color::Cyan,
    Color::Yellow,
    Color::Magenta,
    Color::Blue,
    Color::Green,
    Color::LightRed,
];

pub(super) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let Some(input) = app.input() else { return };
    let t = &app.timeline;
    let timeline = match &input.timeline {
        None => {
            let text = "the timeline needs the trace (this run is a JSON report)";
            frame.render_widget(Paragraph::new(text).style(style::dim()), area);
            return;
        }
        Some(Err(e)) => {
            frame.render_widget(
                Paragraph::new(format!("no timeline: {e}")).style(style::error()),
                area,
            );
            return;
        }
        Some(Ok(timeline)) => timeline,
    };
    let columns = area.width.saturating_sub(LABEL) as usize;
    let cursor_col = column_of(t.cursor, t.start, t.end, columns);
    let marker = |m: Option<u64>| m.map_or("-".to_string(), |v| format!("{} s", fmt::secs(v)));
    let mut lines = vec![Line::raw(format!(
        "{} s .. {} s ({} ms) {sep} cursor {} s {sep} markers {} .. {}{}",
        fmt::secs(t.start),
        fmt::secs(t.end),
        fmt::ms(t.span()),
        fmt::secs(t.cursor),
        marker(t.marker_start),
        marker(t.marker_end),
        if t.marked_range().is_some() {
            " (Enter re-analyses between them)"
        } else {
            ""
        },
        sep = glyphs.separator()
    ))];
    let mut cursor = " ".repeat(LABEL as usize + cursor_col);
    cursor.push(if glyphs.ascii { 'v' } else { '▼' });
    lines.push(Line::raw(cursor));
    let marked: Vec<usize> = timeline
        .tasks()
        .iter()
        .enumerate()
        .filter(|(_, task)| app.tasks.marks.contains(&task.pid))
        .map(|(i, _)| i)
        .collect();
    let q = &input.report.quality;
    for cpu in 0..timeline.cpu_count() {
        lines.push(cpu_lane(
            timeline, cpu, t.start, t.end, columns, &marked, glyphs,
        ));
        let mut strip = queue_strip(timeline, cpu, t.start, t.end, columns, glyphs);
        for lost in q.lost_events.iter().filter(|l| l.cpu == cpu) {
            if (t.start..t.end).contains(&lost.ts_ns) {
                strip[column_of(lost.ts_ns, t.start, t.end, columns)] = 'L';
            }
        }
        // Context-switch bugs are counted per CPU, not timed: a `B` at the strip's end.
        if q.context_switch_bugs
            .iter()
            .any(|c| c.cpu == cpu && c.count > 0)
        {
            if let Some(last) = strip.last_mut() {
                *last = 'B';
            }
        }
        lines.push(Line::styled(
            format!(
                "{:<w$}{}",
                "  rq",
                strip.into_iter().collect::<String>(),
                w = LABEL as usize
            ),
            style::dim(),
        ));
    }
    for &i in &marked {
        lines.push(task_lane(timeline, i, t.start, t.end, columns, glyphs));
    }
    lines.push(Line::styled(
        format!(
            "height: busy share, colour: task that ran most; rq: runqueue depth; L lost, B csw bugs; {} running w woken p preempted ? unknown",
            glyphs.bar()
        ),
        style::dim(),
    ));
    frame.render_widget(Paragraph::new(lines), area);
}

/// The column of time `at` in `columns` over `[start, end)`.
fn column_of(at: u64, start: u64, end: u64, columns: usize) -> usize {
    let span = (end - start).max(1) as u128;
    (((at.saturating_sub(start)) as u128 * columns as u128 / span) as usize)
        .min(columns.saturating_sub(1))
}

/// A glyph for a share 0..1: blank below 1/8, then eight heights (or ASCII levels).
pub(super) fn level(share: f64, glyphs: Glyphs) -> char {
    const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    const ASCII: [char; 8] = ['.', ':', '-', '=', '+', '*', '#', '@'];
    if share < 0.125 {
        return ' ';
    }
    let i = ((share * 8.0) as usize).clamp(1, 8) - 1;
    if glyphs.ascii {
        ASCII[i]
    } else {
        BLOCKS[i]
    }
}

/// The busy share of each column of one CPU, and the task that ran most there.
pub(super) fn cpu_columns(
    timeline: &Timeline,
    cpu: u32,
    start: u64,
    end: u64,
    columns: usize,
) -> Vec<(f64, Option<usize>)> {
    timeline
        .cpu_summary(cpu, start, end, columns)
        .iter()
        .map(|b| {
            (
                if b.len_ns > 0 {
                    b.busy_ns as f64 / b.len_ns as f64
                } else {
                    0.0
                },
                b.top_task,
            )
        })
        .collect()
}

fn cpu_lane(
    timeline: &Timeline,
    cpu: u32,
    start: u64,
    end: u64,
    columns: usize,
    marked: &[usize],
    glyphs: Glyphs,
) -> Line<'static> {
    let mut spans = vec![Span::raw(format!(
        "{:<w$}",
        format!("CPU {cpu}"),
        w = LABEL as usize
    ))];
    for (share, top) in cpu_columns(timeline, cpu, start, end, columns) {
        let glyph = level(share, glyphs);
        let mut style = Style::new();
        if let Some(task) = top {
            let pid = timeline.tasks().get(task).map_or(0, |t| t.pid);
            style = style.fg(PALETTE[pid.unsigned_abs() as usize % PALETTE.len()]);
            if marked.contains(&task) {
                style = style.add_modifier(Modifier::REVERSED);
            }
        }
        spans.push(Span::styled(glyph.to_string(), style));
    }
    Line::from(spans)
}

fn queue_strip(
    timeline: &Timeline,
    cpu: u32,
    start: u64,
    end: u64,
    columns: usize,
    glyphs: Glyphs,
) -> Vec<char> {
    let bins = timeline.cpu_summary(cpu, start, end, columns);
    let deepest = bins.iter().map(|b| b.queue_depth_mean).fold(1.0, f64::max);
    bins.iter()
        .map(|b| level(b.queue_depth_mean / deepest, glyphs))
        .collect()
}

/// One task's lane: per column the state it spent most time in.
pub(super) fn task_lane(
    timeline: &Timeline,
    task: usize,
    start: u64,
    end: u64,
    columns: usize,
    glyphs: Glyphs,
) -> Line<'static> {
    let t = &timeline.tasks()[task];
    let mut time = vec![[0u64; 4]; columns];
    let span = (end - start).max(1);
    for iv in t.intervals_in(start, end) {
        let kind = match iv.state {
            ThreadState::Running => 0,
            ThreadState::RunnableWakeup => 1,
            ThreadState::RunnablePreempted => 2,
            ThreadState::Unknown => 3,
            _ => continue,
        };
        let (a, b) = (iv.start_ns.max(start), (iv.start_ns + iv.dur_ns).min(end));
        let mut at = a;
        while at < b {
            let col = column_of(at, start, end, columns);
            let col_end = start + ((col as u128 + 1) * span as u128 / columns as u128) as u64;
            let upto = b.min(col_end.max(at + 1));
            time[col][kind] += upto - at;
            at = upto;
        }
    }
    let col_len = span / columns.max(1) as u64;
    let glyph: String = time
        .iter()
        .map(|c| {
            let (k, &most) = c
                .iter()
                .enumerate()
                .max_by_key(|(_, v)| **v)
                .unwrap_or((0, &0));
            if most * 4 < col_len.max(1) {
                ' '
            } else {
                match k {
                    0 => glyphs.bar().chars().next().unwrap_or('#'),
                    1 => 'w',
                    2 => 'p',
                    _ => '?',
                }
            }
        })
        .collect();
    // The pid first: it tells the lane's task apart when the name is cut.
    let label: String = format!("{} {}", t.pid, t.comm)
        .chars()
        .take(LABEL as usize - 1)
        .collect();
    Line::from(vec![
        Span::styled(format!("{label:<w$}", w = LABEL as usize), style::header()),
        Span::raw(glyph),
    ])
}
