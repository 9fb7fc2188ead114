//! Number formats shared by the views: the text report's units (ms and us with three
//! decimals, seconds with six), so a number on screen can be found in `analyze` output.

pub(crate) fn ms(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

pub(crate) fn ms_f(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

pub(crate) fn us(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e3)
}

/// Seconds of the trace clock, µs resolution (as the text report's window line).
pub(crate) fn secs(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1000)
}

/// A fraction as a percentage with one decimal; `-` when not available.
pub(crate) fn pct(share: Option<f64>) -> String {
    share.map_or_else(|| "-".into(), |s| format!("{:.1}", s * 100.0))
}

pub(crate) fn opt4(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.4}"))
}

/// About five significant digits, no exponent (compare means of any magnitude).
pub(crate) fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = v.abs().log10().floor() as i32;
    let decimals = (4 - digits).clamp(0, 4) as usize;
    format!("{v:.decimals$}")
}

/// A log2 bucket's lower bound as a short duration (`512ns`, `16us`, `4ms`, `2s`).
pub(crate) fn duration_short(ns: u64) -> String {
    match ns {
        0..1_000 => format!("{ns}ns"),
        1_000..1_000_000 => format!("{}us", ns / 1_000),
        1_000_000..1_000_000_000 => format!("{}ms", ns / 1_000_000),
        _ => format!("{}s", ns / 1_000_000_000),
    }
}
