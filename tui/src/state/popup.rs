//! Popups of the Compare view: Enter on a metric shows its value in every repeat, on a
//! task also its wakeup latency percentiles in every input side by side.

use super::{compare, App};
use analysis::GroupBy;

impl App {
    pub(super) fn compare_popup(&self) -> Option<(String, Vec<String>)> {
        let c = self.compare.comparison()?;
        let (name, row, cell) = self.compare.line(c, self.selected())?;
        let run = c.runs.iter().find(|r| r.label == row.cells[cell].label)?;
        let mut lines = vec![format!("{} of {} ({})", row.name, run.label, row.unit)];
        for (repeat, value) in run.repeats.iter().zip(&row.cells[cell].values) {
            let v = value.map_or("-".to_string(), |v| format!("{v}"));
            lines.push(format!("  {v:>16}  {}", repeat.path));
        }
        if matches!(
            self.compare.lines[self.selected()],
            compare::Line::Task { .. }
        ) {
            lines.push(String::new());
            lines.extend(self.ladders(name));
            let why = self.why_lines(name);
            if !why.is_empty() {
                lines.push(String::new());
                lines.extend(why);
            }
        }
        Some((format!("{name}: per repeat"), lines))
    }

    /// Wakeup latency and sched delay percentiles of the tasks named `name` (folded) in
    /// every input, side by side.
    fn ladders(&self, name: &str) -> Vec<String> {
        let Some(data) = &self.data else {
            return Vec::new();
        };
        let mut lines = vec![format!(
            "  {:<28} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "wakeup latency us", "p50", "p90", "p99", "p99.9", "max"
        )];
        for input in &data.inputs {
            let named = input.report.select(&analysis::Selection {
                group: GroupBy::Name,
                ..analysis::Selection::default()
            });
            if let Some(t) = named.tasks.iter().find(|t| t.comm == name) {
                let s = &t.wakeup_latency;
                let us = |ns: u64| format!("{:.1}", ns as f64 / 1e3);
                lines.push(format!(
                    "  {:<28} {:>10} {:>10} {:>10} {:>10} {:>10}",
                    input.label,
                    us(s.p50_ns),
                    us(s.p90_ns),
                    us(s.p99_ns),
                    us(s.p999_ns),
                    us(s.max_ns)
                ));
            }
        }
        lines
    }
}
