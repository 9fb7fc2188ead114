//! Helpers for the trace.dat tests: loading traces and reading `trace-cmd report` text.
#![allow(dead_code)]

use ingest::{Event, EventKind, Ingested};
use std::collections::BTreeMap;

/// Bytes of a trace of the collection (`public/…` beside the clone, the rest in
/// `fixtures/traces/`), with `.xz` undone.
pub fn load(rel: &str) -> Vec<u8> {
    let path = fixtures::trace(rel);
    ingest::source::load(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_vec()
}

/// Reads a trace.dat and returns everything it emitted.
pub fn read_all(bytes: &[u8]) -> (Ingested, Vec<Event>) {
    let mut events = Vec::new();
    let ingested = ingest::tracedat::read(bytes, &mut |e: &Event| events.push(*e)).unwrap();
    (ingested, events)
}

/// Asserts that two reads gave the same events, a print's marker compared by its text: a
/// read numbers its marker texts in the order its CPUs' pages meet them, and the pages are
/// decoded in parallel, so the same text may have another number in another read (this
/// comparison of numbers failed one run in two).
pub fn assert_same_events(a: (&Ingested, &[Event]), b: (&Ingested, &[Event]), what: &str) {
    assert_eq!(a.1.len(), b.1.len(), "{what}: event counts");
    for (i, (x, y)) in a.1.iter().zip(b.1).enumerate() {
        match (x.kind, y.kind) {
            (EventKind::Print { text: m }, EventKind::Print { text: n }) => {
                assert_eq!(
                    (x.ts, x.cpu, x.current_pid),
                    (y.ts, y.cpu, y.current_pid),
                    "{what}: event {i}"
                );
                assert_eq!(
                    a.0.marks.text(m),
                    b.0.marks.text(n),
                    "{what}: event {i}'s marker text"
                );
            }
            _ => assert_eq!(x, y, "{what}: event {i}"),
        }
    }
}

/// One event line of `trace-cmd report` text.
#[derive(Debug, Clone)]
pub struct ReportLine<'a> {
    /// pid of the running task (the `COMM-PID` column).
    pub task_pid: i32,
    pub cpu: u32,
    /// Microseconds (trace-cmd rounds ns to the nearest µs).
    pub us: u64,
    pub name: &'a str,
    pub body: &'a str,
}

/// Parses the event lines: `COMM-PID [CPU] SECS.USECS: NAME: BODY`.
pub fn report_lines(text: &str) -> Vec<ReportLine<'_>> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<ReportLine<'_>> {
    // Anchor on the "[ddd]" CPU field followed by a "secs.usecs:" timestamp.
    let mut search = 0;
    while let Some(open) = line[search..].find('[').map(|i| i + search) {
        search = open + 1;
        let close = open + line[open..].find(']')?;
        let cpu_text = &line[open + 1..close];
        if cpu_text.is_empty() || !cpu_text.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let rest = line[close + 1..].trim_start();
        let Some((ts, after)) = rest.split_once(": ") else {
            continue;
        };
        let Some((secs, usecs)) = ts.split_once('.') else {
            continue;
        };
        if usecs.len() != 6
            || !secs.bytes().all(|b| b.is_ascii_digit())
            || !usecs.bytes().all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let (name, body) = after
            .trim_start()
            .split_once(':')
            .unwrap_or((after.trim(), ""));
        let task_pid = line[..open].trim().rsplit_once('-')?.1.parse().ok()?;
        return Some(ReportLine {
            task_pid,
            cpu: cpu_text.parse().ok()?,
            us: secs.parse::<u64>().ok()? * 1_000_000 + usecs.parse::<u64>().ok()?,
            name: name.trim(),
            body: body.trim(),
        });
    }
    None
}

/// Event counts by name in a report.
pub fn report_counts(lines: &[ReportLine]) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for l in lines {
        *counts.entry(l.name.to_string()).or_insert(0) += 1;
    }
    counts
}

/// Checks counts against the report and that the stream is ordered; returns the report lines' count.
pub fn check_against_report(trace: &str, report: &str) -> (Ingested, Vec<Event>) {
    let bytes = load(trace);
    let (ingested, events) = read_all(&bytes);
    let text = String::from_utf8(load(report)).unwrap();
    let lines = report_lines(&text);
    assert!(!lines.is_empty(), "{report}: no event lines parsed");
    assert_eq!(
        ingested.stats.events,
        report_counts(&lines),
        "{trace}: event counts differ from {report}"
    );
    assert!(
        events
            .windows(2)
            .all(|w| (w[0].ts, w[0].cpu) <= (w[1].ts, w[1].cpu)
                || w[0].ts <= w[1].ts && matches!(w[0].kind, EventKind::TaskName { .. })),
        "{trace}: stream not in (ts, cpu) order"
    );
    let real = events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::TaskName { .. } | EventKind::Lost { .. }))
        .count() as u64;
    assert_eq!(
        real,
        ingested.stats.events.values().sum::<u64>(),
        "{trace}: emitted events != counted events"
    );
    assert!(
        ingested.stats.rejected.is_empty(),
        "{trace}: rejected {:?} {:?}",
        ingested.stats.rejected,
        ingested.stats.reject_examples
    );
    // The stream's first and last event times match the report's (µs, rounded like trace-cmd).
    let first = events
        .iter()
        .find(|e| !matches!(e.kind, EventKind::TaskName { .. }))
        .unwrap();
    assert_eq!(
        (first.ts + 500) / 1000,
        lines[0].us,
        "{trace}: first timestamp"
    );
    assert_eq!(
        (events.last().unwrap().ts + 500) / 1000,
        lines.last().unwrap().us,
        "{trace}: last timestamp"
    );
    (ingested, events)
}
