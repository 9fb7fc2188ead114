//! What the text, LKML and markdown layouts share: the blocks of a comparison (one per
//! metric group: the system rows by direction, one per task metric with a row per role),
//! the preamble (runs, scope, worst waits, roles), number formatting, and fitting a table
//! of one column per run into a width by splitting the runs into column groups.

use analysis::columns::compare::{any_row, Compared, TASK};
use analysis::columns::{Direction, Unit};
use analysis::compare::model::{Cell, Comparison, MetricRow};
use std::fmt::Write;

/// One block: rows (cases) of one direction and, for task metrics, one unit.
pub(super) struct Block<'a> {
    pub(super) title: String,
    /// The unit of every row (task blocks); `None` when each case names its own.
    pub(super) unit: Option<Unit>,
    pub(super) better: Direction,
    /// (case, unit, row).
    pub(super) rows: Vec<(String, Unit, &'a MetricRow)>,
}

fn unit_of(row: &MetricRow) -> Unit {
    any_row(&row.key).map_or(Unit::Number { decimals: 3 }, |m| m.unit)
}

/// The task metrics shown: `keys` when given, else the default ones (all with `wide`).
fn shown_task_metrics(keys: &[&'static Compared], wide: bool) -> Vec<&'static Compared> {
    if !keys.is_empty() {
        return keys.to_vec();
    }
    TASK.iter().filter(|m| wide || m.default).collect()
}

/// Whether a system row is shown (the `--wide`-only ones are left out of the default).
fn shown_system(row: &MetricRow, wide: bool) -> bool {
    wide || any_row(&row.key).is_none_or(|m| m.default)
}

pub(super) fn blocks<'a>(
    c: &'a Comparison,
    task_metrics: &[&'static Compared],
    wide: bool,
) -> Vec<Block<'a>> {
    let mut out = Vec::new();
    for better in [
        Direction::LowerIsBetter,
        Direction::HigherIsBetter,
        Direction::Neutral,
    ] {
        let rows: Vec<_> = c
            .system
            .iter()
            .filter(|r| r.better == better.name() && shown_system(r, wide))
            .map(|r| {
                let unit = unit_of(r);
                let case = match unit.shown() {
                    "" => r.name.clone(),
                    u if r.name.ends_with(u) => r.name.clone(),
                    u => format!("{} {u}", r.name),
                };
                (case, unit, r)
            })
            .collect();
        if !rows.is_empty() {
            out.push(Block {
                title: format!("system ({})", c.scope.system_rows_cover),
                unit: None,
                better,
                rows,
            });
        }
    }
    for metric in shown_task_metrics(task_metrics, wide) {
        let rows: Vec<_> = c
            .tasks
            .tasks
            .iter()
            .filter_map(|t| {
                let row = t.metrics.iter().find(|m| m.key == metric.key)?;
                Some((t.name.clone(), metric.unit, row))
            })
            .collect();
        if !rows.is_empty() {
            out.push(Block {
                title: format!("task {}", metric.name),
                unit: Some(metric.unit),
                better: metric.direction(),
                rows,
            });
        }
    }
    out
}

/// About five significant digits without exponent noise.
pub(super) fn value(v: f64) -> String {
    let a = v.abs();
    if (v.fract() == 0.0 && a < 1e15) || a >= 10_000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    }
}

/// The shown value of a cell in the row's display unit, or `-`.
pub(super) fn shown(cell: &Cell, unit: Unit) -> String {
    cell.value.map_or("-".into(), |v| value(unit.scale(v)))
}

/// `s` cut to `width` characters with a `~` in the middle: the start names the
/// scheduler, the end tells kernel builds apart.
pub(super) fn cut(s: &str, width: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= width || width == 0 {
        return s.to_string();
    }
    let head = (width - 1) / 2;
    let tail = width - 1 - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('~');
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// A table with a case column, a baseline column and one column per run.
pub(super) struct Table {
    pub(super) case_header: String,
    pub(super) base_header: String,
    pub(super) headers: Vec<String>,
    /// (case, baseline value, one cell per run).
    pub(super) rows: Vec<(String, String, Vec<String>)>,
}

impl Table {
    /// The table as lines no longer than `width` (`None`: as wide as it is): the runs
    /// are split into groups of columns that fit, each group under its own header.
    pub(super) fn render(&self, width: Option<usize>, indent: &str, out: &mut String) {
        let len = |s: &String| s.chars().count();
        // The widest of a column's cells and its header.
        fn widest<'a>(cells: impl Iterator<Item = &'a String>, header: &'a String) -> usize {
            cells
                .chain([header])
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        }
        let case_w = widest(self.rows.iter().map(|r| &r.0), &self.case_header);
        let case_w = match width {
            Some(w) => case_w.min(w / 3),
            None => case_w,
        };
        let base_w = widest(self.rows.iter().map(|r| &r.1), &self.base_header);
        let cell_w: Vec<usize> = (0..self.headers.len())
            .map(|i| self.rows.iter().map(|r| len(&r.2[i])).max().unwrap_or(0))
            .collect();
        let fixed = indent.len() + case_w + 1 + base_w;
        // A column is as wide as its cells and header; with a width, a long header is cut
        // so that one column always fits.
        let col_w: Vec<usize> = cell_w
            .iter()
            .zip(&self.headers)
            .map(|(&c, h)| {
                let h = len(h);
                match width {
                    None => c.max(h),
                    Some(lim) => c.max(h.min(lim.saturating_sub(fixed + 2))),
                }
            })
            .collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut used = fixed;
        for (i, &w) in col_w.iter().enumerate() {
            if groups.is_empty() || width.is_some_and(|lim| used + 2 + w > lim) {
                groups.push(Vec::new());
                used = fixed;
            }
            used += 2 + w;
            groups.last_mut().unwrap().push(i);
        }
        for (g, group) in groups.iter().enumerate() {
            if g > 0 {
                out.push('\n');
            }
            let mut head = format!(
                "{indent}{:<case_w$} {:>base_w$}",
                cut(&self.case_header, case_w),
                self.base_header
            );
            for &i in group {
                let w = col_w[i];
                let _ = write!(head, "  {:>w$}", cut(&self.headers[i], w));
            }
            out.push_str(head.trim_end());
            out.push('\n');
            for (case, base, cells) in &self.rows {
                let mut line = format!("{indent}{:<case_w$} {:>base_w$}", cut(case, case_w), base);
                for &i in group {
                    let w = col_w[i];
                    let _ = write!(line, "  {:>w$}", cells[i]);
                }
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
    }
}

/// The lines before the tables, each cut to `width`: runs, scope, worst waits, roles.
pub(super) fn preamble(c: &Comparison, bullet: &str, width: Option<usize>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut push = |s: String| lines.push(s);
    push(format!("{bullet}Runs (baseline: {})", c.base));
    for run in &c.runs {
        let windows: Vec<String> = run
            .repeats
            .iter()
            .map(|r| format!("{:.3}", r.window_ns as f64 / 1e9))
            .collect();
        let predicted = run
            .kernel_releases
            .iter()
            .any(|k| analysis::is_predicted(k));
        push(format!(
            "  {}: {}{} ({}), kernel {}, {} repeat{}, window {} s",
            run.label,
            run.scheduler,
            if predicted { " predicted" } else { "" },
            run.family,
            if run.kernel_releases.is_empty() {
                "unknown".into()
            } else {
                run.kernel_releases.join(", ")
            },
            run.repeats.len(),
            if run.repeats.len() == 1 { "" } else { "s" },
            windows.join(", ")
        ));
        for r in &run.repeats {
            let lost = match (r.lost_events, r.lost_unknown) {
                (0, 0) => String::new(),
                (n, 0) => format!(", {n} events lost"),
                (n, u) => format!(", {n}+? events lost ({u} records of unknown size)"),
            };
            push(format!(
                "    {}{}{lost}",
                r.path,
                if r.from_json_report {
                    " (JSON report)"
                } else {
                    ""
                }
            ));
        }
    }
    push(format!("{bullet}Scope"));
    push(format!("  system rows: {}", c.scope.system_rows_cover));
    push(format!(
        "  idle while runnable: {}",
        c.scope.idle_while_runnable
    ));
    push(format!("  shares: of {}", c.scope.shares_of));
    push(format!("  tasks matched by {}", c.tasks.matched_by));
    if let Some(comm) = &c.scope.comm {
        push(format!("  task table: tasks named /{comm}/"));
    }
    for a in &c.scope.analysis {
        push(format!("  analysis: {a}"));
    }
    push(format!(
        "{bullet}Worst waits (runnable, not running; starved: >= 100 ms)"
    ));
    for run in &c.runs {
        for r in &run.repeats {
            push(format!("  {}: {}", run.label, worst_wait(&r.worst_wait)));
        }
    }
    let renamed: Vec<_> = c
        .tasks
        .tasks
        .iter()
        .filter(|t| {
            t.members
                .iter()
                .any(|m| m.comms.iter().any(|n| n != &t.name))
                || t.present_in.len() < c.runs.len()
        })
        .collect();
    if !renamed.is_empty() {
        push(format!(
            "{bullet}Roles (task names per run; - = not in the run)"
        ));
        for t in renamed {
            let per: Vec<String> = t
                .members
                .iter()
                .map(|m| {
                    format!(
                        "{}: {}",
                        m.label,
                        if m.comms.is_empty() {
                            "-".into()
                        } else {
                            m.comms.join(",")
                        }
                    )
                })
                .collect();
            push(format!("  {}: {}", t.name, per.join("; ")));
        }
    }
    match width {
        Some(w) => lines.iter().flat_map(|l| wrap(l, w)).collect(),
        None => lines,
    }
}

/// `line` broken at spaces into lines of at most `width` characters, the continuation
/// lines indented by two more than the first; a word longer than the width is cut.
pub(super) fn wrap(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() <= width {
        return vec![line.to_string()];
    }
    let indent = line.len() - line.trim_start().len();
    let more = " ".repeat(indent + 2);
    let mut out: Vec<String> = Vec::new();
    let mut current = line[..indent].to_string();
    for word in line.split_whitespace() {
        let fresh = current.trim().is_empty();
        if !fresh && current.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::replace(&mut current, more.clone()));
        }
        if !current.trim().is_empty() {
            current.push(' ');
        }
        current.push_str(word);
        if current.chars().count() > width {
            current = cut(&current, width);
        }
    }
    out.push(current);
    out
}

/// `nice5 (pid 189) waited 3.003 s = 49.5 % of the window, 25.21..28.22 s (wakeup
/// latency)`, plus how many other tasks starved.
fn worst_wait(w: &analysis::worst_wait::WorstWait) -> String {
    let Some(l) = &w.longest else {
        return "no task waited".into();
    };
    let others = w.starved.iter().filter(|s| s.pid != l.pid).count();
    let (len, pct, start, end) = l.in_seconds();
    format!(
        "{} (pid {}) waited {len:.3} s = {pct:.1} % of the window, {start:.2}..{end:.2} s ({}){}",
        l.comm,
        l.pid,
        l.kind,
        match others {
            0 => String::new(),
            n => format!("; {n} other task(s) starved"),
        }
    )
}

/// The legend of the flags.
pub(super) fn legend(c: &Comparison) -> Vec<String> {
    let repeated = c.runs.iter().all(|r| r.repeats.len() >= 2);
    let mut lines = vec![
        format!(
            "`*` marks an interesting regression, `^` an interesting improvement: |change| > {} %,",
            c.threshold_pct
        ),
        if repeated {
            format!(
                "> 2 x the larger CV and Welch's p < {} (per-repeat values).",
                c.alpha
            )
        } else {
            format!(
                "> 2 x the larger CV and, where both runs have repeats, Welch's p < {}; runs with one",
                c.alpha
            )
        },
    ];
    if !repeated {
        lines.push("repeat have no CV or p: their flags are threshold-only.".into());
    }
    lines.push(
        "Neutral rows (no better direction) show the size of the change, never a flag.".into(),
    );
    lines
}

/// The `Interpretation:` line of the LKML layout (and the markdown block titles).
pub(super) fn interpretation(d: Direction) -> &'static str {
    match d {
        Direction::HigherIsBetter => "Higher is better",
        Direction::LowerIsBetter => "Lower is better",
        Direction::Neutral => "Neutral (no better direction; change unsigned, never flagged)",
    }
}
