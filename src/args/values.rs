//! Value parsers shared by several subcommands: time ranges, durations, run specs.

impl TimeRange {
    pub(super) fn describe(&self) -> String {
        let plus = if self.relative { "+" } else { "" };
        let side =
            |v: Option<u64>| v.map_or(String::new(), |v| format!("{plus}{}", v as f64 / 1e9));
        format!(
            "{},{}{}",
            side(self.start),
            side(self.end),
            if self.relative {
                " (from each trace's start)"
            } else {
                ""
            }
        )
    }
}

/// A duration with its unit: `10ms`, `500us`, `2s`, `1000ns`; at least 1 us.
pub(super) fn parse_duration(s: &str) -> Result<u64, String> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => {
            return Err(format!(
                "`{s}`: expected a number and a unit (ns, us, ms, s), e.g. 10ms"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{s}`: `{number}` is not a number"))?;
    let ns = (value * scale).round();
    if !(1e3..=1e13).contains(&ns) {
        return Err(format!("`{s}`: a window from 1us to 10000s"));
    }
    Ok(ns as u64)
}

/// A parsed `--time`: ns from 0 of the trace clock, or from the first event when `relative`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeRange {
    pub start: Option<u64>,
    pub end: Option<u64>,
    pub relative: bool,
    /// As the user wrote it, for messages.
    pub text: String,
}

pub(super) fn parse_time_range(s: &str) -> Result<TimeRange, String> {
    let (a, b) = s.split_once(',').ok_or(
        "expected START,END in seconds, e.g. 19.5,20.25 or 19.5, or +0.5,+1.5 from the trace start",
    )?;
    let plus = |t: &str| t.trim().starts_with('+');
    let (pa, pb) = (plus(a), plus(b));
    if !a.trim().is_empty() && !b.trim().is_empty() && pa != pb {
        return Err("START and END must both be relative (+) or both absolute".into());
    }
    let time = |t: &str| -> Result<Option<u64>, String> {
        let t = t.trim().trim_start_matches('+');
        if t.is_empty() {
            return Ok(None);
        }
        let bad =
            || format!("`{t}` is not a time (seconds, or with a unit: 81.5s, 200ms, 50us, 1000ns)");
        let (number, scale) = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]
            .iter()
            .find_map(|&(unit, scale)| t.strip_suffix(unit).map(|n| (n, scale)))
            .unwrap_or((t, 1e9));
        let v: f64 = number.trim().parse().map_err(|_| bad())?;
        if !v.is_finite() || v < 0.0 || v * scale >= u64::MAX as f64 {
            return Err(bad());
        }
        Ok(Some((v * scale).round() as u64))
    };
    let range = TimeRange {
        start: time(a)?,
        end: time(b)?,
        relative: pa || pb,
        text: s.to_string(),
    };
    if let (Some(start), Some(end)) = (range.start, range.end) {
        if end <= start {
            return Err("END must be after START".into());
        }
    }
    Ok(range)
}

pub(super) fn parse_run_spec(s: &str) -> Result<analysis::compare::RunSpec, String> {
    analysis::compare::RunSpec::parse(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration("2.5s"), Ok(2_500_000_000));
        assert_eq!(parse_duration("500us"), Ok(500_000));
        assert!(parse_duration("10").is_err() && parse_duration("1ns").is_err());
    }

    #[test]
    fn time_ranges() {
        let range = |s: &str| {
            let t = parse_time_range(s).unwrap();
            (t.start, t.end, t.relative)
        };
        assert_eq!(
            range("19.5,20.25"),
            (Some(19_500_000_000), Some(20_250_000_000), false)
        );
        assert_eq!(range("1.5,"), (Some(1_500_000_000), None, false));
        assert_eq!(
            range("+0.5,+1.5"),
            (Some(500_000_000), Some(1_500_000_000), true)
        );
        assert_eq!(range("+200ms,"), (Some(200_000_000), None, true));
        assert_eq!(
            range("81.5s,82000ms"),
            (Some(81_500_000_000), Some(82_000_000_000), false)
        );
        assert_eq!(range("10us,20000ns"), (Some(10_000), Some(20_000), false));
        assert!(parse_time_range("+1,2").is_err());
        assert!(parse_time_range("1h,2").is_err());
        assert!(parse_time_range("2,1").is_err());
        assert!(parse_time_range("2").is_err());
    }
}
