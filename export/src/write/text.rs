//! Cells as text, appended to a writer's byte buffer without allocating: the CSV and
//! NDJSON writers format tens of millions of cells per trace, and a `String` per cell
//! (what `to_string` gives) was most of an export's time.
//!
//! Integers through `itoa` and reals through `zmij` (the formatters serde_json itself
//! uses, so a real reads as the shortest text that gives back the same f64, exactly as
//! serde_json writes it: `1.0`, `0.25`, `1e300`); the unit tests check the bytes against
//! the `to_string` / serde_json / `csv`-crate forms they replace.

/// Appends `n` in decimal.
pub(super) fn int(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Appends a finite `x` in its shortest round-trip form with a `.0` on whole numbers (so
/// that readers guessing types take the column as float); NaN and infinities as Rust
/// writes them (`NaN`, `inf`, `-inf`: CSV has no better form, NDJSON writes null instead).
pub(super) fn real(out: &mut Vec<u8>, x: f64) {
    if x.is_finite() {
        out.extend_from_slice(zmij::Buffer::new().format_finite(x).as_bytes());
    } else if x.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if x > 0.0 {
        out.extend_from_slice(b"inf");
    } else {
        out.extend_from_slice(b"-inf");
    }
}

pub(super) fn bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

/// Appends `s` as one CSV field (RFC 4180): as it is unless it holds a comma, a quote or a
/// line break, else in quotes with its quotes doubled — the `csv` crate's "necessary"
/// quoting, which also quotes `\r` because readers end a record there.
///
/// Written here rather than through `csv::Writer`: in the profile of a CSV export the crate's
/// per-field writer state machine was about a fifth of the time, and this is the whole rule;
/// the tests hold its bytes to the crate's.
pub(super) fn csv_text(out: &mut Vec<u8>, s: &str) {
    let special = |b: &u8| matches!(b, b',' | b'"' | b'\n' | b'\r');
    if !s.as_bytes().iter().any(special) {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    out.push(b'"');
    for part in s.as_bytes().split_inclusive(|&b| b == b'"') {
        out.extend_from_slice(part);
        if part.last() == Some(&b'"') {
            out.push(b'"');
        }
    }
    out.push(b'"');
}

/// Appends `s` as a JSON string (serde_json's escaping, written into the buffer).
pub(super) fn json_text(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("a Vec takes every byte");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// What the writers gave before: `to_string`, and serde_json's number text.
    fn old_real(x: f64) -> String {
        if x.is_finite() {
            serde_json::Value::from(x).to_string()
        } else {
            x.to_string()
        }
    }

    #[test]
    fn integers_are_the_to_string_form() {
        for n in [
            0,
            1,
            -1,
            9,
            10,
            99,
            100,
            4_294_967_296,
            i64::MAX,
            i64::MIN,
            i64::MIN + 1,
        ] {
            assert_eq!(with(|o| int(o, n)), n.to_string());
        }
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
            f64::MAX,
            f64::MIN,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for x in reals {
            let text = with(|o| real(o, x));
            assert_eq!(text, old_real(x), "{x:?}");
            if x.is_finite() {
                assert_eq!(text.parse::<f64>().unwrap().to_bits(), x.to_bits(), "{x:?}");
            }
        }
        assert_eq!(with(|o| real(o, 2.0)), "2.0");
        assert_eq!(with(|o| real(o, f64::NAN)), "NaN");
        assert_eq!(with(|o| real(o, f64::NEG_INFINITY)), "-inf");
    }

    #[test]
    fn booleans() {
        assert_eq!(with(|o| bool(o, true)), "true");
        assert_eq!(with(|o| bool(o, false)), "false");
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
            let mut row = Vec::new();
            csv_text(&mut row, "first");
            row.push(b',');
            csv_text(&mut row, name);
            row.push(b'\n');
            let mut expected = csv::Writer::from_writer(Vec::new());
            expected.write_record(["first", name]).unwrap();
            let expected = expected.into_inner().unwrap();
            assert_eq!(
                String::from_utf8_lossy(&row),
                String::from_utf8_lossy(&expected),
                "{name:?}"
            );
            let back: Vec<csv::StringRecord> = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(&row[..])
                .records()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(back.len(), 1);
            assert_eq!(&back[0][1], name);
        }
    }

    #[test]
    fn json_strings_are_serde_json_s() {
        for s in [
            "",
            "plain",
            "q\"uote",
            "back\\slash",
            "nl\n",
            "ctl\u{1}",
            "ünï",
        ] {
            let text = with(|o| json_text(o, s));
            assert_eq!(text, serde_json::to_string(s).unwrap());
            assert_eq!(serde_json::from_str::<String>(&text).unwrap(), s);
        }
    }
}
