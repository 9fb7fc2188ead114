//! One line of trace text -> what it is: an event, a header (`cpus=4`, `version = 6`,
//! `CPU 3 is empty`), a lost-events marker, a comment, or a reject with its reason.

use super::fields;
use super::prefix::{self, parse_u64, trim_end, trim_start, Prefix, Reject};
use super::state::StateSrc;
use crate::event::EventKind;

/// What one line holds.
#[derive(Debug)]
pub(super) enum Line<'a> {
    /// Empty, `#` comment, `##### CPU 2 buffer started ####`.
    Skip,
    /// trace-cmd's `cpus=N`.
    Cpus(u32),
    /// Old trace-cmd's `version = 6`.
    Version(&'a [u8]),
    /// trace-cmd's `CPU 3 is empty`.
    CpuEmpty,
    /// `CPU:2 [LOST 17 EVENTS]`, `[LOST EVENTS]`, `CPU:2 [5 EVENTS DROPPED]`.
    Lost {
        cpu: Option<u32>,
        count: Option<u64>,
    },
    Event {
        prefix: Prefix<'a>,
        kind: EventKind,
        state: StateSrc,
    },
    Reject(Reject),
}

pub(super) fn classify(line: &[u8]) -> Line<'_> {
    let line = trim_end(line.strip_suffix(b"\r").unwrap_or(line));
    let trimmed = trim_start(line);
    if trimmed.is_empty() || trimmed[0] == b'#' || is_callchain(line, trimmed) {
        return Line::Skip;
    }
    if let Some(n) = trimmed.strip_prefix(b"cpus=") {
        return match parse_u64(n).and_then(|n| u32::try_from(n).ok()) {
            Some(n) => Line::Cpus(n),
            None => Line::Reject("bad cpus= header"),
        };
    }
    if let Some(v) = trimmed.strip_prefix(b"version = ") {
        return Line::Version(v);
    }
    if trimmed.starts_with(b"CPU ") && trimmed.ends_with(b" is empty") {
        return Line::CpuEmpty;
    }
    if let Some(lost) = lost(trimmed) {
        return lost;
    }
    let prefix = match prefix::parse(line) {
        Ok(p) => p,
        Err(reason) => return Line::Reject(reason),
    };
    match fields::decode(prefix.name, prefix.body) {
        Ok(Some((kind, state))) => Line::Event {
            prefix,
            kind,
            state,
        },
        Ok(None) => Line::Event {
            kind: marker(prefix.name, prefix.body).unwrap_or(EventKind::Other),
            prefix,
            state: StateSrc::Done,
        },
        Err(reason) => Line::Reject(reason),
    }
}

/// A `trace_marker` write: `print: tracing_mark_write: TEXT` in `trace-cmd report` (which
/// prints the event's `ip` as a symbol, then its text), `print: ip=SYM buf=TEXT` in its raw
/// rendering (`-R`), `tracing_mark_write: TEXT` in the kernel's own text.
fn marker(name: &[u8], body: &[u8]) -> Option<EventKind> {
    let text = match name {
        b"print" if body.starts_with(b"ip=") => {
            let buf = memchr::memmem::find(body, b" buf=")?;
            &body[buf + 5..]
        }
        b"print" => {
            let colon = memchr::memmem::find(body, b": ")?;
            &body[colon + 2..]
        }
        b"tracing_mark_write" => body,
        _ => return None,
    };
    Some(EventKind::Print {
        text: crate::event::Mark::from_bytes(text),
    })
}

/// A callchain line of `perf script` (`\t    ffffffff8a0a6f0e native_safe_halt+0xe
/// ([kernel.kallsyms])`): part of the sample above it, not a line of its own.
fn is_callchain(line: &[u8], trimmed: &[u8]) -> bool {
    let addr = trimmed.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    line.first() == Some(&b'\t') && addr > 0 && trimmed.get(addr).is_none_or(|&b| b == b' ')
}

/// Lost-event markers of the kernel (`CPU:%d [LOST %lu EVENTS]`, `CPU:%d [LOST EVENTS]`,
/// `[LOST %lu EVENTS]` in old trace_pipe) and of trace-cmd (`CPU:%d [%lld EVENTS DROPPED]`).
fn lost(line: &[u8]) -> Option<Line<'static>> {
    let (cpu, rest) = match line.strip_prefix(b"CPU:") {
        Some(rest) => {
            let space = memchr::memchr(b' ', rest)?;
            let cpu = u32::try_from(parse_u64(&rest[..space])?).ok()?;
            (Some(cpu), &rest[space + 1..])
        }
        None => (None, line),
    };
    let inner = rest.strip_prefix(b"[")?.strip_suffix(b"]")?;
    let count = if let Some(mid) = inner
        .strip_prefix(b"LOST ")
        .and_then(|r| r.strip_suffix(b" EVENTS"))
    {
        Some(parse_u64(mid)?)
    } else if let Some(mid) = inner.strip_suffix(b" EVENTS DROPPED") {
        Some(parse_u64(mid)?)
    } else if inner == b"LOST EVENTS" || inner == b"EVENTS DROPPED" {
        None
    } else {
        return None;
    };
    Some(Line::Lost { cpu, count })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        assert!(matches!(
            classify(b"CPU:2 [LOST 17 EVENTS]"),
            Line::Lost {
                cpu: Some(2),
                count: Some(17)
            }
        ));
        assert!(matches!(
            classify(b"[LOST 3 EVENTS]"),
            Line::Lost {
                cpu: None,
                count: Some(3)
            }
        ));
        assert!(matches!(
            classify(b"CPU:1 [EVENTS DROPPED]"),
            Line::Lost {
                cpu: Some(1),
                count: None
            }
        ));
        assert!(matches!(classify(b"cpus=6"), Line::Cpus(6)));
        assert!(matches!(classify(b"CPU 3 is empty"), Line::CpuEmpty));
        assert!(matches!(classify(b"hello"), Line::Reject(_)));
    }

    #[test]
    fn markers_keep_their_text() {
        let text = |line: &[u8]| match classify(line) {
            Line::Event {
                kind: EventKind::Print { text },
                ..
            } => text.to_string_lossy(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            text(b"         schedwl-244   [003]    63.450064: print:                tracing_mark_write: schedwl: setup scenario=mi ntasks=4"),
            "schedwl: setup scenario=mi ntasks=4"
        );
        assert_eq!(
            text(b"         schedwl-244   [003] .....  63.450064: tracing_mark_write: begin: x"),
            "begin: x"
        );
        assert_eq!(
            text(b"         shutils-3106  [001]  2084.238797: print:                 ip=tracing_mark_write buf=cpu_frequency_devlib:        state=450000 cpu_id=0"),
            "cpu_frequency_devlib:        state=450000 cpu_id=0"
        );
    }
}
