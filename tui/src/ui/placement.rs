//! Placement (metrics.md §4, §6): where wakees ran relative to their previous CPU and to
//! their waker, migrations by distance, local vs remote wakeup latency, warm restarts,
//! and CPU time lost to idling while tasks waited, per LLC when the topology is known.

use super::fmt;
use super::style;
use crate::state::App;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
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
    lines.push(Line::raw(""));
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
    lines.push(Line::styled(
        "waker x wakee CPU and migration from x to matrices: need per-CPU-pair counts (not in the report yet)",
        style::dim(),
    ));
    frame.render_widget(Paragraph::new(lines), area);
}
