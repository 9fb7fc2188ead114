//! The context prefix of one event line: who ran, on which CPU, when, which event
//! (formats.md §5.1-5.3). Three layouts share the `[CPU]` bracket as their anchor:
//!
//! - ftrace `trace`/`trace_pipe` and `trace-cmd report`: `comm-pid [(tgid)] [cpu] [flags] sec.frac: name: text`
//! - `perf script`: `comm tid [cpu] sec.frac: system:name: text` (or `comm pid/tid [cpu] ...`)
//!
//! and ftrace's latency format has its own: `comm-pid CPUflags µs(mark): name: text`.
//!
//! Hand-written byte scanning rather than a regex: the comm can hold spaces, dashes,
//! colons and brackets, so the split needs a few backtracking rules that are clearer as
//! code, and the prefix is parsed once per line on traces of hundreds of MB.

/// Which tool printed the prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// `comm-pid ... [cpu]`: kernel ftrace text or `trace-cmd report`.
    Dashed,
    /// `comm tid [cpu]`: `perf script`.
    Perf,
    /// ftrace `options/latency-format`: µs timestamps, CPU without brackets.
    Latency,
}

/// The parsed context prefix of an event line; `name` and `body` borrow the line.
#[derive(Debug, Clone, Copy)]
pub(super) struct Prefix<'a> {
    pub pid: i32,
    pub cpu: u32,
    pub ts: u64,
    /// Event name as printed (perf's `sched:` system prefix already removed).
    pub name: &'a [u8],
    /// The event text after `name: `, leading padding removed.
    pub body: &'a [u8],
    pub style: Style,
    /// Whether the name was followed by padding (trace-cmd aligns names to 20 columns).
    pub padded: bool,
}

/// Why a line that is not a header or comment could not be read as an event line.
pub(super) type Reject = &'static str;

/// Parses the prefix of an event line (trailing `\r` already removed).
pub(super) fn parse(line: &[u8]) -> Result<Prefix<'_>, Reject> {
    let mut saw_bracket = false;
    for open in memchr::memchr_iter(b'[', line) {
        let Some(close) = cpu_bracket(line, open) else {
            continue;
        };
        saw_bracket = true;
        let Some((pid, style)) = task_before(&line[..open]) else {
            continue;
        };
        let cpu = parse_u64(&line[open + 1..close]).ok_or("CPU number out of range")?;
        let cpu = u32::try_from(cpu).map_err(|_| "CPU number out of range")?;
        let (ts, rest) = timestamp_after_flags(&line[close + 1..])?;
        let (name, body, padded) = name_and_body(rest)?;
        let name = match style {
            // perf prints `system:name`; keep the name so counts compare with trace-cmd's.
            // A hardware / software event with modifiers (`cycles:P`, `cpu-clock:ppp`) is named
            // by the event, not by its modifier letters.
            Style::Perf => match memchr::memrchr(b':', name) {
                Some(colon)
                    if name[colon + 1..]
                        .iter()
                        .all(|b| b"ukhIGHpPSDWe".contains(b)) =>
                {
                    &name[..colon]
                }
                Some(colon) => &name[colon + 1..],
                None => name,
            },
            _ => name,
        };
        return Ok(Prefix {
            pid,
            cpu,
            ts,
            name,
            body,
            style,
            padded,
        });
    }
    if let Some(prefix) = parse_latency(line) {
        return Ok(prefix);
    }
    Err(if saw_bracket {
        "no comm-pid before the [CPU] column"
    } else {
        "no [CPU] column"
    })
}

/// `[ddd]` at `open` followed by a space or the line end, preceded by a space: returns the `]` index.
fn cpu_bracket(line: &[u8], open: usize) -> Option<usize> {
    if open == 0 || line[open - 1] != b' ' {
        return None;
    }
    let digits = line[open + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let close = open + 1 + digits;
    if digits == 0 || digits > 6 || line.get(close) != Some(&b']') {
        return None;
    }
    match line.get(close + 1) {
        None | Some(b' ') => Some(close),
        _ => None,
    }
}

/// Reads `comm-pid [(tgid)]` or `comm tid` / `comm pid/tid` backwards from the `[CPU]` column.
fn task_before(left: &[u8]) -> Option<(i32, Style)> {
    let mut left = trim_end(left);
    if left.last() == Some(&b')') {
        // The TGID column `(  611)`, `(-----)`, `(-------)`.
        let open = memchr::memrchr(b'(', left)?;
        let inner = &left[open + 1..left.len() - 1];
        if !inner
            .iter()
            .all(|&b| b == b' ' || b == b'-' || b.is_ascii_digit())
        {
            return None;
        }
        left = trim_end(&left[..open]);
    }
    let (pid, before) = trailing_int(left)?;
    match before.last() {
        // perf prints `:-1    -1` for a sample whose thread it does not know.
        Some(b'-') if before.len() >= 2 && before[before.len() - 2] == b' ' => {
            Some((-pid, Style::Perf))
        }
        Some(b'-') => Some((pid, Style::Dashed)),
        Some(b' ') => Some((pid, Style::Perf)),
        Some(b'/') => {
            // perf `-F pid,tid`: `pid/tid`; the tid is the task.
            let (_, before) = trailing_int(&before[..before.len() - 1])?;
            (before.last() == Some(&b' ')).then_some((pid, Style::Perf))
        }
        _ => None,
    }
}

/// Splits off the decimal number at the end of `s` (fits i32), returning it and what precedes it.
fn trailing_int(s: &[u8]) -> Option<(i32, &[u8])> {
    let digits = s.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 10 {
        return None;
    }
    let start = s.len() - digits;
    let value = i32::try_from(parse_u64(&s[start..])?).ok()?;
    Some((value, &s[..start]))
}

/// After `]`: an optional irq-info flags column (`d..2.`, `....`, `dNs3.`), then `sec.frac:`.
fn timestamp_after_flags(rest: &[u8]) -> Result<(u64, &[u8]), Reject> {
    let (first, after_first) = next_token(rest);
    if first.is_empty() {
        return Err("nothing after the [CPU] column");
    }
    if let Some(ts) = timestamp_token(first) {
        return Ok((ts?, after_first));
    }
    // irq-info is 4 chars before 5.13, 5 since, up to 6-7 on RT/vendor kernels.
    if first.len() > 8
        || !first
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'.')
    {
        return Err("bad irq-info column");
    }
    let (second, after_second) = next_token(after_first);
    match timestamp_token(second) {
        Some(ts) => Ok((ts?, after_second)),
        None => Err("no timestamp (sec.usec:)"),
    }
}

/// A token `123.456789:` (or `123456789:` for counter clocks) -> Some(ns).
fn timestamp_token(token: &[u8]) -> Option<Result<u64, Reject>> {
    let digits = token.strip_suffix(b":")?;
    if digits.is_empty() || !digits[0].is_ascii_digit() {
        return None;
    }
    Some(parse_timestamp(digits).ok_or("bad timestamp"))
}

/// `sec.frac` with 1..=9 fraction digits -> ns; a plain integer (non-ns trace clocks) is kept as is.
pub(super) fn parse_timestamp(s: &[u8]) -> Option<u64> {
    match memchr::memchr(b'.', s) {
        None => parse_u64(s),
        Some(dot) => {
            let secs = parse_u64(&s[..dot])?;
            let frac = &s[dot + 1..];
            if frac.is_empty() || frac.len() > 9 {
                return None;
            }
            let scale = 10u64.pow(9 - frac.len() as u32);
            secs.checked_mul(1_000_000_000)?
                .checked_add(parse_u64(frac)? * scale)
        }
    }
}

/// Event name up to `: ` (or a final `:`), then the text with its alignment padding removed.
fn name_and_body(rest: &[u8]) -> Result<(&[u8], &[u8], bool), Reject> {
    let rest = trim_start(rest);
    if let Some(n) = syscall_name_len(rest) {
        return Ok((&rest[..n], &rest[n..], false));
    }
    let mut search = 0;
    loop {
        let colon = match memchr::memchr(b':', &rest[search..]) {
            Some(i) => search + i,
            None => return Err("no event name (name: text)"),
        };
        match rest.get(colon + 1) {
            None | Some(b' ') => {
                let name = strip_period(&rest[..colon]);
                if name.is_empty() || name.contains(&b' ') {
                    return Err("no event name (name: text)");
                }
                let after = &rest[(colon + 2).min(rest.len())..];
                let body = trim_start(after);
                let padded = after.first() == Some(&b' ');
                return Ok((name, body, padded));
            }
            // `sched:sched_switch` in perf output: the colon is part of the name.
            _ => search = colon + 1,
        }
    }
}

/// `perf script` prints a sampled (non-tracepoint) event as `PERIOD EVENT:`, e.g.
/// `1001001 cpu-clock:`: the name is what follows the period.
fn strip_period(name: &[u8]) -> &[u8] {
    match memchr::memchr(b' ', name) {
        Some(sp) if sp > 0 && name[..sp].iter().all(u8::is_ascii_digit) => trim_start(&name[sp..]),
        _ => name,
    }
}

/// The syscall tracer prints `sys_ioctl(fd: 3, cmd: 5401, arg: 7ffd)` on entry and
/// `sys_ioctl -> 0x0` on exit: no `name: ` (the colons are the arguments'). Their name is the
/// syscall's; the length of it when `rest` is such a line.
fn syscall_name_len(rest: &[u8]) -> Option<usize> {
    if !rest.starts_with(b"sys_") {
        return None;
    }
    let n = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))?;
    let after = &rest[n..];
    (after.starts_with(b"(") || after.starts_with(b" -> ")).then_some(n)
}

/// ftrace latency format: `capture--18585     1d..2. 1088293953us : sched_switch: ...`.
fn parse_latency(line: &[u8]) -> Option<Prefix<'_>> {
    // Find `<digits>us<mark>: ` where mark is one of ` !#$@*+`.
    let mut search = 0;
    while let Some(i) = memchr::memmem::find(&line[search..], b"us") {
        let at = search + i;
        search = at + 2;
        let mark = *line.get(at + 2)?;
        if !b" !#$@*+".contains(&mark) || line.get(at + 3) != Some(&b':') {
            continue;
        }
        let (us, left) = trailing_int(&line[..at])?;
        let left = trim_end(left);
        // `CPUflags`: digits then the irq-info characters, no space between.
        let token_start = left.iter().rposition(|&b| b == b' ').map_or(0, |p| p + 1);
        let token = &left[token_start..];
        let cpu_digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
        let flags = &token[cpu_digits..];
        if cpu_digits == 0 || !(4..=8).contains(&flags.len()) {
            return None;
        }
        let cpu = u32::try_from(parse_u64(&token[..cpu_digits])?).ok()?;
        let (pid, before) = trailing_int(trim_end(&left[..token_start]))?;
        if before.last() != Some(&b'-') {
            return None;
        }
        let (name, body, padded) = name_and_body(&line[at + 4..]).ok()?;
        return Some(Prefix {
            pid,
            cpu,
            ts: u64::try_from(us).ok()?.checked_mul(1000)?,
            name,
            body,
            style: Style::Latency,
            padded,
        });
    }
    None
}

fn next_token(s: &[u8]) -> (&[u8], &[u8]) {
    let s = trim_start(s);
    let end = memchr::memchr(b' ', s).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Unsigned decimal, all bytes digits, no overflow.
pub(super) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(v)
}

pub(super) fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    &s[n..]
}

pub(super) fn trim_end(s: &[u8]) -> &[u8] {
    let n = s
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &s[..s.len() - n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashed_comm_with_spaces_and_dash() {
        let p =
            parse(b" capture-ftrace--18356   [000] d..2.  1078.974263: sched_wakeup_new: comm=x")
                .unwrap();
        assert_eq!((p.pid, p.cpu, p.ts), (18356, 0, 1_078_974_263_000));
        assert_eq!(p.name, b"sched_wakeup_new");
        assert_eq!(p.body, b"comm=x");
        let p =
            parse(b"       opt cgu.2-18550   (  18518) [000] d.s3.  1085.308154: sched_waking: c")
                .unwrap();
        assert_eq!((p.pid, p.style), (18550, Style::Dashed));
    }

    #[test]
    fn perf_and_latency() {
        let p =
            parse(b"            perf 18087 [000]  1137.897384:       sched:sched_waking: comm=m")
                .unwrap();
        assert_eq!(
            (p.pid, p.style, p.name),
            (18087, Style::Perf, &b"sched_waking"[..])
        );
        let p =
            parse(b"capture--18585     1d..2. 1088293958us#: sched_switch: prev_comm=c").unwrap();
        assert_eq!(
            (p.pid, p.cpu, p.ts, p.style),
            (18585, 1, 1_088_293_958_000, Style::Latency)
        );
    }
}
