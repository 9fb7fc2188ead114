//! `:` commands: `:time A B` and `:cpu 1,3` re-analyse every input (off the UI thread),
//! `:sort KEY [asc|desc]`, `:group pid|process|name`, `:base LABEL`, `:filter EXPR`, `:q`.

use super::App;
use crate::columns;
use analysis::GroupBy;

impl App {
    /// Runs one command line (without the `:`); errors go to the status line and change
    /// nothing.
    pub(crate) fn command(&mut self, line: &str) {
        if let Err(e) = self.try_command(line.trim()) {
            self.error(format!(":{} — {e}", line.trim()));
        }
    }

    fn try_command(&mut self, line: &str) -> Result<(), String> {
        let (name, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        match name {
            "q" | "quit" => self.quit(),
            "time" => {
                let window = match rest {
                    "" | "all" => None,
                    _ => Some(time_window(rest)?),
                };
                self.reanalyse_window(window);
            }
            "cpu" => {
                let cpus = match rest {
                    "" | "all" => None,
                    _ => Some(
                        rest.split(',')
                            .map(|c| {
                                c.trim()
                                    .parse::<u32>()
                                    .map_err(|_| format!("`{c}` is not a CPU number"))
                            })
                            .collect::<Result<Vec<u32>, String>>()?,
                    ),
                };
                let mut sources = self.sources.clone();
                sources.config.cpus = cpus;
                self.reload(sources);
            }
            "sort" if self.on_triples() => {
                let (key, direction) = rest.split_once(' ').unwrap_or((rest, ""));
                let column = super::triples::find(key).ok_or_else(|| {
                    let keys: Vec<&str> = super::triples::TRIPLE_COLUMNS
                        .iter()
                        .map(|c| c.key)
                        .collect();
                    format!("unknown column; columns: {}", keys.join(", "))
                })?;
                self.sort_triples(column, direction_of(direction)?);
            }
            "sort" => {
                let (key, direction) = rest.split_once(' ').unwrap_or((rest, ""));
                let column = columns::find(key).ok_or_else(|| {
                    let keys: Vec<&str> = columns::COLUMNS.iter().map(|c| c.key).collect();
                    format!("unknown column; columns: {}", keys.join(", "))
                })?;
                let descending = direction_of(direction)?;
                self.with_report(|tasks, report| {
                    tasks.sort_by(report, column);
                    if let Some(d) = descending {
                        tasks.descending = d;
                        tasks.rebuild(report);
                    }
                });
            }
            "group" => {
                let group = match rest {
                    "pid" => GroupBy::Pid,
                    "process" => GroupBy::Process,
                    "name" => GroupBy::Name,
                    _ => return Err("expected pid, process or name".into()),
                };
                self.regroup(group);
            }
            "base" => {
                let runs = self.data.as_ref().map_or(&[][..], |d| &d.runs[..]);
                let base = runs.iter().position(|r| r.label == rest).ok_or_else(|| {
                    let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
                    format!("not a run label; labels: {}", labels.join(", "))
                })?;
                self.compare.base = base;
                self.recompare();
            }
            "filter" => self.set_filter(rest),
            _ => {
                return Err(
                    "unknown command; commands: time, cpu, sort, group, base, filter, q".into(),
                )
            }
        }
        Ok(())
    }
}

/// `asc` / `desc` after `:sort KEY` (nothing: the column's natural direction).
fn direction_of(text: &str) -> Result<Option<bool>, String> {
    match text.trim() {
        "" => Ok(None),
        "desc" => Ok(Some(true)),
        "asc" => Ok(Some(false)),
        other => Err(format!("`{other}`: expected asc or desc")),
    }
}

/// `A B` in seconds of the trace clock (as `analyze --time A,B`), to a ns window.
fn time_window(text: &str) -> Result<(u64, u64), String> {
    let parts: Vec<&str> = text.split([' ', ',']).filter(|p| !p.is_empty()).collect();
    let [a, b] = parts[..] else {
        return Err("expected START END in seconds".into());
    };
    let secs = |t: &str| -> Result<u64, String> {
        t.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| (v * 1e9).round() as u64)
            .ok_or_else(|| format!("`{t}` is not a time in seconds"))
    };
    let (start, end) = (secs(a)?, secs(b)?);
    if end <= start {
        return Err("END must be after START".into());
    }
    Ok((start, end))
}
