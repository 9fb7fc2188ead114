//! What the whole file says, gathered chunk by chunk in file order while the events stream
//! on: counts by event name and by reject reason, the first rejected lines, the CPU count,
//! the producer's flavour, lost markers and the `prev_state` evidence. Everything kept is
//! owned and small, so a chunk's text and events can go as soon as it is counted.

use super::chunk::ChunkOut;
use super::state::{Evidence, StateSrc};
use crate::meta::{Format, IngestStats, Ingested, TraceMeta};
use crate::{Error, Result};
use std::collections::BTreeMap;

/// How much of a rejected line goes into messages.
const EXCERPT: usize = 100;

#[derive(Default)]
pub(super) struct Tally {
    stats: IngestStats,
    names: BTreeMap<Vec<u8>, u64>,
    pub evidence: Evidence,
    first_bad: Option<(u64, String)>,
    meta: TraceMeta,
    cpus_header: Option<u32>,
    cpus_comment: Option<u32>,
    max_cpu: Option<u32>,
    votes: super::chunk::Votes,
    trace_cmd_headers: u64,
    lost_markers: u64,
    lost_events: u64,
    any_raw_state: bool,
    /// The 1-based line number of the next chunk's first line.
    next_line: u64,
}

impl Tally {
    pub(super) fn new() -> Tally {
        Tally {
            next_line: 1,
            ..Tally::default()
        }
    }

    /// Counts one chunk; `region_first_line` is set on the first chunk of an HTML block.
    pub(super) fn add(&mut self, out: &ChunkOut<'_>, region_first_line: Option<u64>) {
        let first_line = region_first_line.unwrap_or(self.next_line);
        self.next_line = first_line + out.lines;
        for (name, n) in &out.names {
            match self.names.get_mut(*name) {
                Some(count) => *count += n,
                None => {
                    self.names.insert(name.to_vec(), *n);
                }
            }
        }
        for (reason, n) in &out.rejected {
            *self.stats.rejected.entry(reason.to_string()).or_insert(0) += n;
        }
        for ex in &out.examples {
            let line = first_line + ex.line;
            let text = String::from_utf8_lossy(&ex.text[..ex.text.len().min(EXCERPT)]);
            if self.first_bad.is_none() {
                self.first_bad = Some((line, format!("{}: {:?}", ex.reason, text)));
            }
            if self.stats.reject_examples.len() < 5 {
                self.stats
                    .reject_examples
                    .push(format!("line {line}: {}: {:?}", ex.reason, text));
            }
        }
        self.evidence.merge(&out.evidence);
        self.cpus_header = out.cpus_header.or(self.cpus_header);
        self.cpus_comment = self.cpus_comment.or(out.cpus_comment);
        self.max_cpu = self.max_cpu.max(out.max_cpu);
        if let Some(v) = out.version {
            self.meta.extra.insert(
                "trace-cmd file version".into(),
                String::from_utf8_lossy(v).trim().to_string(),
            );
        }
        if let Some(r) = out.kernel_release {
            self.meta
                .kernel_release
                .get_or_insert_with(|| String::from_utf8_lossy(r).into_owned());
        }
        self.lost_markers += out.lost_markers;
        self.lost_events += out.lost_events;
        self.votes += out.votes;
        self.trace_cmd_headers += out.trace_cmd_headers;
        self.any_raw_state |= out
            .events
            .iter()
            .any(|p| matches!(p.state, StateSrc::Value(_)));
    }

    /// Event lines counted so far (lost markers are not event lines).
    pub(super) fn events(&self) -> u64 {
        self.names.values().sum()
    }

    /// The metadata and statistics of the whole file, or the error of a file without a
    /// single event line (naming its first bad line). `out_of_order` comes from the merge.
    pub(super) fn finish(self, html: bool, out_of_order: u64) -> Result<Ingested> {
        let Tally {
            mut stats,
            names,
            evidence,
            first_bad,
            mut meta,
            votes,
            ..
        } = self;
        stats.events = names
            .into_iter()
            .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
            .collect();
        if stats.events.values().sum::<u64>() == 0 {
            return Err(match first_bad {
                Some((line, cause)) => Error::at_line(
                    line,
                    format!("not a trace text line ({cause}); no event line parsed"),
                ),
                None => {
                    Error::whole("trace text without any event lines (only headers or comments)")
                }
            });
        }
        meta.format = Some(Format::Text);
        meta.format_version = flavour(html, &votes, self.trace_cmd_headers).to_string();
        if votes.latency > 0 {
            meta.extra.insert(
                "timestamps".into(),
                "latency format: µs since the trace buffer start".into(),
            );
        }
        meta.cpus = self
            .cpus_header
            .or(self.cpus_comment)
            .or(self.max_cpu.map(|m| m.saturating_add(1)));
        if self.lost_markers > 0 {
            meta.extra.insert(
                "lost events".into(),
                format!(
                    "{} markers reporting {} lost events",
                    self.lost_markers, self.lost_events
                ),
            );
        }
        if self.any_raw_state {
            meta.extra
                .insert("prev_state encoding".into(), evidence.encoding().describe());
        }
        stats.out_of_order = out_of_order;
        Ok(Ingested { meta, stats })
    }
}

fn flavour(html: bool, votes: &super::chunk::Votes, tc_headers: u64) -> &'static str {
    if html {
        "systrace"
    } else if votes.perf > votes.dashed + votes.latency {
        "perf script"
    } else if votes.latency > votes.dashed {
        "ftrace (latency format)"
    } else if tc_headers > 0 || votes.padded > 0 {
        "trace-cmd report"
    } else {
        "ftrace"
    }
}
