//! Cells as text, written into a row's room in the writer's buffer ([`super::cursor`])
//! without allocating: the CSV and NDJSON writers format tens of millions of cells per
//! trace, and a `String` per cell (what `to_string` gives) was most of an export's time.
//!
//! Reals through `zmij` (the formatter serde_json itself uses, so a real reads as the
//! shortest text that gives back the same f64, exactly as serde_json writes it: `1.0`,
//! `0.25`, `1e300`); integers and the escaping of text written here, straight into the
//! room (see [`int`], [`json_text`]). The unit tests check the bytes against the
//! `to_string` / serde_json / `csv`-crate forms they replace.

use super::cursor::Cursor;

/// The most bytes [`int`] writes (`-9223372036854775808`).
pub(super) const INT_BOUND: usize = 20;
/// The most bytes [`real`] writes (the longest shortest form is 24: `-2.2250738585072014e-308`).
pub(super) const REAL_BOUND: usize = 24;
/// The most bytes [`bool`] writes.
pub(super) const BOOL_BOUND: usize = 5;

/// The most bytes a value of a non-text column `kind` takes (0 for text, whose bound is
/// its own: [`csv_text_bound`], [`json_text_bound`]).
pub(super) fn most(kind: crate::cell::Kind) -> usize {
    use crate::cell::Kind;
    match kind {
        Kind::Int => INT_BOUND,
        Kind::Real => REAL_BOUND,
        Kind::Bool => BOOL_BOUND,
        Kind::Text => 0,
    }
}

/// The two digits of 0 to 99, for [`int`].
const PAIRS: [[u8; 2]; 100] = {
    let mut pairs = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        pairs[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    pairs
};

/// 10 to the power of 0 to 19: every power of ten a u64 holds.
const POWERS_OF_TEN: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        powers[i] = powers[i - 1] * 10;
        i += 1;
    }
    powers
};

/// The number of decimal digits of `n` (1 for 0): the bit length gives the power of ten
/// to within one (`bits * 1233 >> 12` is `bits * log10(2)`, floored, for every u64), and
/// one comparison settles it. `n | 1`: 0 counts as 1, and no other count changes (an even
/// `n` below a power of ten stays below it with its last bit set).
#[inline]
fn decimal_digits(n: u64) -> usize {
    let bits = 64 - (n | 1).leading_zeros() as usize;
    let low = (bits * 1233) >> 12;
    low + usize::from(n | 1 >= POWERS_OF_TEN[low])
}

/// Writes `n` in decimal, in place from its last digit, four digits a division.
///
/// Hand-written rather than through `itoa`: `itoa` formats into its own buffer, and copying
/// its variable-length result out is a `memmove` call per integer, which showed in the
/// writer threads' profiles. This is the same digit-pair-table method, four digits a
/// division; the tests hold it to `to_string` around every power of ten and at i64::MIN.
#[inline(always)]
pub(super) fn int(out: &mut Cursor, n: i64) {
    if n < 0 {
        out.byte(b'-');
    }
    let mut n = n.unsigned_abs();
    let digits = decimal_digits(n);
    let dst = out.take(digits);
    let mut end = digits;
    while n >= 10_000 {
        let rest = (n % 10_000) as usize;
        n /= 10_000;
        let [a, b] = PAIRS[rest / 100];
        let [c, d] = PAIRS[rest % 100];
        dst[end - 4..end].copy_from_slice(&[a, b, c, d]);
        end -= 4;
    }
    let mut n = n as usize;
    if n >= 100 {
        dst[end - 2..end].copy_from_slice(&PAIRS[n % 100]);
        n /= 100;
        end -= 2;
    }
    if n >= 10 {
        dst[end - 2..end].copy_from_slice(&PAIRS[n]);
    } else {
        dst[end - 1] = b'0' + n as u8;
    }
}

/// Writes a finite `x` in its shortest round-trip form with a `.0` on whole numbers (so
/// that readers guessing types take the column as float); NaN and infinities as Rust
/// writes them (`NaN`, `inf`, `-inf`: CSV has no better form, NDJSON writes null instead).
pub(super) fn real(out: &mut Cursor, x: f64) {
    if x.is_finite() {
        out.bytes(zmij::Buffer::new().format_finite(x).as_bytes());
    } else if x.is_nan() {
        out.bytes(b"NaN");
    } else if x > 0.0 {
        out.bytes(b"inf");
    } else {
        out.bytes(b"-inf");
    }
}

pub(super) fn bool(out: &mut Cursor, b: bool) {
    out.bytes(if b { b"true" } else { b"false" });
}

/// Bytes that make a CSV field need quotes.
const CSV_SPECIAL: [bool; 256] = {
    let mut special = [false; 256];
    special[b',' as usize] = true;
    special[b'"' as usize] = true;
    special[b'\n' as usize] = true;
    special[b'\r' as usize] = true;
    special
};

/// Whether byte `b` makes a CSV field need quotes.
#[inline]
pub(super) fn csv_special(b: u8) -> bool {
    CSV_SPECIAL[b as usize]
}

/// The most bytes [`csv_text`] writes for `s`: every byte a quote, doubled, in quotes.
pub(super) fn csv_text_bound(s: &str) -> usize {
    csv_text_bound_of(s.len())
}

/// [`csv_text_bound`] of a text of `len` bytes.
#[inline]
pub(super) fn csv_text_bound_of(len: usize) -> usize {
    2 + 2 * len
}

/// Writes `s` as one CSV field (RFC 4180): as it is unless it holds a comma, a quote or a
/// line break, else in quotes with its quotes doubled — the `csv` crate's "necessary"
/// quoting, which also quotes `\r` because readers end a record there.
///
/// Written here rather than through `csv::Writer`: in the profile of a CSV export the crate's
/// per-field writer state machine was about a fifth of the time, and this is the whole rule;
/// the tests hold its bytes to the crate's.
#[inline]
pub(super) fn csv_text(out: &mut Cursor, s: &str) {
    if !s.bytes().any(|b| CSV_SPECIAL[b as usize]) {
        out.bytes(s.as_bytes());
        return;
    }
    out.byte(b'"');
    for part in s.as_bytes().split_inclusive(|&b| b == b'"') {
        out.bytes(part);
        if part.last() == Some(&b'"') {
            out.byte(b'"');
        }
    }
    out.byte(b'"');
}

/// How serde_json escapes each byte of a string: 0 as it is, `u` as `\u00XX`, else `\`
/// and that letter (its table, rebuilt here).
const JSON_ESCAPE: [u8; 256] = {
    let mut escape = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        escape[b] = b'u';
        b += 1;
    }
    escape[0x08] = b'b';
    escape[b'\t' as usize] = b't';
    escape[b'\n' as usize] = b'n';
    escape[0x0c] = b'f';
    escape[b'\r' as usize] = b'r';
    escape[b'"' as usize] = b'"';
    escape[b'\\' as usize] = b'\\';
    escape
};

/// Whether byte `b` makes serde_json escape it in a string.
#[inline]
pub(super) fn json_special(b: u8) -> bool {
    JSON_ESCAPE[b as usize] != 0
}

/// The most bytes [`json_text`] writes for `s`: every byte a `\u00XX`, in quotes.
pub(super) fn json_text_bound(s: &str) -> usize {
    json_text_bound_of(s.len())
}

/// [`json_text_bound`] of a text of `len` bytes.
#[inline]
pub(super) fn json_text_bound_of(len: usize) -> usize {
    2 + 6 * len
}

/// Writes `s` as a JSON string, escaped byte for byte as serde_json escapes it.
///
/// Written here rather than through `serde_json::to_writer`: that goes through a
/// serializer and an `io::Write` per string, which the writer's room makes needless;
/// the tests hold the bytes to serde_json's for every ASCII byte and for non-ASCII text.
#[inline]
pub(super) fn json_text(out: &mut Cursor, s: &str) {
    out.byte(b'"');
    let bytes = s.as_bytes();
    let mut plain = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = JSON_ESCAPE[b as usize];
        if escape == 0 {
            continue;
        }
        out.bytes(&bytes[plain..i]);
        plain = i + 1;
        out.byte(b'\\');
        if escape == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.bytes(b"u00");
            out.byte(HEX[(b >> 4) as usize]);
            out.byte(HEX[(b & 0xf) as usize]);
        } else {
            out.byte(escape);
        }
    }
    out.bytes(&bytes[plain..]);
    out.byte(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text `f` writes, and that it kept within `bound`.
    fn within(bound: usize, f: impl FnOnce(&mut Cursor)) -> String {
        let mut room = vec![0u8; bound];
        let mut out = Cursor::new(&mut room);
        f(&mut out);
        String::from_utf8(out.written().to_vec()).unwrap()
    }

    fn with(f: impl FnOnce(&mut Cursor)) -> String {
        within(4096, f)
    }

    /// What the writers gave before: `to_string`, and serde_json's number text.
    fn old_real(x: f64) -> String {
        if x.is_finite() {
            serde_json::Value::from(x).to_string()
        } else {
            x.to_string()
        }
    }

    /// Every length of digits, each side of each power of ten, and the extremes.
    #[test]
    fn integers_are_the_to_string_form() {
        let mut ints = vec![0, i64::MAX, i64::MIN, i64::MIN + 1, 4_294_967_296];
        let mut p: i64 = 1;
        for _ in 0..19 {
            ints.extend([p - 1, p, p + 1, -p, -(p - 1), -(p + 1), 2 * p - 1, 5 * p]);
            p = p.saturating_mul(10);
        }
        for n in ints {
            assert_eq!(within(INT_BOUND, |o| int(o, n)), n.to_string());
        }
        assert_eq!(within(INT_BOUND, |o| int(o, i64::MIN)).len(), INT_BOUND);
    }

    #[test]
    fn reals_are_serde_json_s_form_and_non_finite_as_rust_writes_them() {
        let reals = [
            0.0,
            -0.0,
            1.0,
            0.5,
            0.1 + 0.2,
            1.0 / 3.0,
            123_456_789.0,
            1e21,
            1e22,
            1.5e-7,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            5e-324,
            -5e-324,
            -1.2345678901234567e-300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for x in reals {
            let text = within(REAL_BOUND, |o| real(o, x));
            assert_eq!(text, old_real(x), "{x:?}");
            if x.is_finite() {
                assert_eq!(text.parse::<f64>().unwrap().to_bits(), x.to_bits(), "{x:?}");
            }
        }
        assert_eq!(with(|o| real(o, 2.0)), "2.0");
        assert_eq!(with(|o| real(o, f64::NAN)), "NaN");
        assert_eq!(with(|o| real(o, f64::NEG_INFINITY)), "-inf");
        let longest = within(REAL_BOUND, |o| real(o, -f64::MIN_POSITIVE));
        assert_eq!(longest.len(), REAL_BOUND, "{longest}");
    }

    #[test]
    fn booleans() {
        assert_eq!(within(BOOL_BOUND, |o| bool(o, true)), "true");
        assert_eq!(within(BOOL_BOUND, |o| bool(o, false)), "false");
    }

    /// Task names hold anything a process sets with prctl: each must be the field the
    /// `csv` crate (which wrote the CSV before) writes, and read back as itself.
    #[test]
    fn csv_fields_are_quoted_as_the_csv_crate_quotes_them() {
        let names = [
            "",
            "bash",
            "kworker/0:1H",
            "a,b",
            "say \"hi\"",
            "\"",
            "\"\"",
            "\"\"\"\"\"\"\"\"",
            "line\nbreak",
            "cr\rhere",
            "trailing,",
            ",leading",
            "x\"y,z\n",
            "ünïcødé, ok",
            "tab\there",
            " spaced ",
        ];
        for name in names {
            let row = with(|o| {
                csv_text(o, "first");
                o.byte(b',');
                csv_text(o, name);
                o.byte(b'\n');
            });
            let mut expected = csv::Writer::from_writer(Vec::new());
            expected.write_record(["first", name]).unwrap();
            let expected = expected.into_inner().unwrap();
            assert_eq!(row, String::from_utf8_lossy(&expected), "{name:?}");
            let back: Vec<csv::StringRecord> = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(row.as_bytes())
                .records()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(back.len(), 1);
            assert_eq!(&back[0][1], name);
            within(csv_text_bound(name), |o| csv_text(o, name));
        }
    }

    #[test]
    fn json_strings_are_serde_json_s() {
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let each_ascii = (0u8..0x80).map(|b| format!("a{}b", char::from(b)));
        let fixed = [
            "",
            "plain",
            "q\"uote",
            "back\\slash",
            "nl\n",
            "ctl\u{1}",
            "\u{1f}\u{7f}",
            "ünï",
            "\u{2028}\u{2029}",
            "😀",
            "\\\"\\\"",
        ];
        let strings = fixed
            .into_iter()
            .map(String::from)
            .chain(each_ascii)
            .chain([every_ascii]);
        for s in strings {
            let text = within(json_text_bound(&s), |o| json_text(o, &s));
            assert_eq!(text, serde_json::to_string(&s).unwrap(), "{s:?}");
            assert_eq!(serde_json::from_str::<String>(&text).unwrap(), s);
        }
        let controls: String = (0u8..0x20).map(char::from).collect();
        assert_eq!(
            within(json_text_bound(&controls), |o| json_text(o, &controls)).len(),
            // `\b \t \n \f \r` take 2 bytes, the other 27 controls 6, and the quotes.
            5 * 2 + 27 * 6 + 2
        );
    }
}
