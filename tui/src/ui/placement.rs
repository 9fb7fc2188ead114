//! Placement (metrics.md §4, §6): the waker-CPU × wakee-CPU and migration from × to
//! matrices (shaded, with LLC and node borders when the topology is known), where wakees
//! ran relative to their previous CPU and to their waker, migrations by distance, local
//! vs remote wakeup latency, warm restarts, and CPU time lost to idling while tasks
//! waited, per LLC when the topology is known.

use super::fmt;
use super::matrix::{self, CpuOrder};
use super::style::{self, Glyphs};
use crate::state::App;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::collections::HashMap;

/// Columns between the two matrices when they stand side by side.
const GAP: u16 = 3;

pub(crate) const WAKEUP_TITLE: &str = "wakeups: waker CPU x wakee CPU";
pub(crate) const MIGRATION_TITLE: &str = "migrations: from CPU x to CPU";

pub(crate) fn draw(frame: &mut Frame, app: &App, area: Rect, glyphs: Glyphs) {
    let Some(input) = app.input() else { return };
    let r = &input.report;
    let a = &r.system.affinity;
    let p = &a.placement;
    let m = &a.migrations_by_class;
    let mut lines = vec![match &r.source.topology {
        Some(t) => Line::raw(format!(
            "topology from {}: {} cores, {} LLCs ({}), {} nodes",
            t.source,
            t.cores.len(),
            t.llcs.len(),
            t.llcs.join(" "),
            t.nodes.len()
        )),
        None => Line::styled(
            "no topology: CPU-level only (--topology gives one)",
            style::dim(),
        ),
    }];
    let [top, grid, area] = {
        let height = matrices(app, area.width, glyphs).map_or(0, |(h, _)| h);
        Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(height),
            Constraint::Fill(1),
        ])
        .areas(area)
    };
    frame.render_widget(Paragraph::new(lines.remove(0)), top);
    if let Some((_, parts)) = matrices(app, grid.width, glyphs) {
        for (rect, lines) in parts.into_layout(grid) {
            frame.render_widget(Paragraph::new(lines), rect);
        }
    }
    lines.push(Line::styled(
        "wakee CPU vs its previous slice's CPU",
        style::header(),
    ));
    lines.push(Line::raw(format!(
        "  same CPU {}  same core {}  same LLC {}  same node {}  remote node {}  unknown {}",
        p.same_cpu, p.same_core, p.same_llc, p.same_node, p.remote_node, p.unknown
    )));
    lines.push(Line::styled(
        "wakee CPU vs the waker's CPU",
        style::header(),
    ));
    lines.push(Line::raw(format!(
        "  waker's CPU {}  waker's LLC {}  other {}  unknown {}",
        p.waker_cpu, p.waker_llc, p.other, p.waker_unknown
    )));
    lines.push(Line::styled("migrations by distance", style::header()));
    lines.push(Line::raw(format!(
        "  same core {}  same LLC {}  same node {}  remote node {}  unknown {}; cross-LLC share {} %",
        m.same_core,
        m.same_llc,
        m.same_node,
        m.remote_node,
        m.unknown,
        fmt::pct(a.cross_llc_share)
    )));
    let (local, remote) = (app.derived.latency_local_us, app.derived.latency_remote_us);
    lines.push(Line::styled(
        "wakeup latency: local (waker's CPU) vs remote",
        style::header(),
    ));
    lines.push(Line::raw(format!(
        "  local  {:>7} wakeups, mean {} us",
        a.wakeups_local,
        local.map_or("-".into(), |v| format!("{v:.3}"))
    )));
    lines.push(Line::raw(format!(
        "  remote {:>7} wakeups, mean {} us",
        a.wakeups_remote,
        remote.map_or("-".into(), |v| format!("{v:.3}"))
    )));
    lines.push(Line::raw(format!(
        "warm restarts {} %",
        fmt::pct(a.warm_restart_share)
    )));
    let w = &r.system.work_conservation;
    lines.push(Line::styled(
        "idle while runnable (work conservation)",
        style::header(),
    ));
    lines.push(Line::raw(format!(
        "  {} ms anywhere ({} % of CPU time); within an LLC {}",
        fmt::ms(w.idle_while_runnable_ns),
        fmt::pct(Some(w.idle_while_runnable_share)),
        w.idle_while_runnable_llc_ns
            .map_or("-".into(), |v| format!("{} ms", fmt::ms(v)))
    )));
    for llc in &w.by_llc {
        lines.push(Line::raw(format!(
            "  LLC {:<12} {} ms",
            llc.cpus,
            fmt::ms(llc.idle_while_runnable_ns)
        )));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The two matrices, side by side when they fit, else one above the other.
pub(crate) struct Matrices {
    wakeups: Vec<Line<'static>>,
    migrations: Vec<Line<'static>>,
    side_by_side: bool,
}

impl Matrices {
    fn into_layout(self, area: Rect) -> Vec<(Rect, Vec<Line<'static>>)> {
        let (a, b) = if self.side_by_side {
            let [a, _, b] = Layout::horizontal([
                Constraint::Length(matrix::width(&self.wakeups)),
                Constraint::Length(GAP),
                Constraint::Fill(1),
            ])
            .areas(area);
            (a, b)
        } else {
            let [a, b] = Layout::vertical([
                Constraint::Length(self.wakeups.len() as u16 + 1),
                Constraint::Fill(1),
            ])
            .areas(area);
            (a, b)
        };
        vec![(a, self.wakeups), (b, self.migrations)]
    }
}

/// The matrices of the current run for `width` columns and the lines they take.
fn matrices(app: &App, width: u16, glyphs: Glyphs) -> Option<(u16, Matrices)> {
    let r = &app.input()?.report;
    let a = &r.system.affinity;
    let wakeups: HashMap<(u32, u32), u64> = a
        .wakeup_cpu_pairs
        .iter()
        .map(|p| ((p.from, p.to), p.count))
        .collect();
    let migrations: HashMap<(u32, u32), u64> = a
        .migration_cpu_pairs
        .iter()
        .map(|p| ((p.from, p.to), p.count))
        .collect();
    let cpus = r.cpus.iter().map(|c| c.cpu).chain(
        wakeups
            .keys()
            .chain(migrations.keys())
            .flat_map(|&(f, t)| [f, t]),
    );
    let order = CpuOrder::new(cpus, r.source.topology.as_ref());
    let both = |w: u16| {
        (
            matrix::lines(WAKEUP_TITLE, &wakeups, &order, w, glyphs),
            matrix::lines(MIGRATION_TITLE, &migrations, &order, w, glyphs),
        )
    };
    let half = width.saturating_sub(GAP) / 2;
    let (w, m) = both(half);
    let side_by_side = matrix::width(&w) + GAP + matrix::width(&m) <= width;
    let (wakeups, migrations) = if side_by_side { (w, m) } else { both(width) };
    let height = if side_by_side {
        wakeups.len().max(migrations.len()) + 1
    } else {
        wakeups.len() + migrations.len() + 2
    };
    Some((
        height as u16,
        Matrices {
            wakeups,
            migrations,
            side_by_side,
        },
    ))
}
