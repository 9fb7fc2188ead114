//! `sched_switch.prev_state` → [`PrevState`], driven by the event's own print fmt
//! (formats.md §3.3).
//!
//! The kernel changed the encoding in 4.14 (raw `p->state` bitmask, "encoding A",
//! vs. one report bit, "encoding B") and the preempted marker moved with
//! `TASK_STATE_MAX`. The print fmt carries the mask, the `{value, "letter"}` table
//! and the `+` test, so evaluating it decodes any kernel the same way the kernel's
//! own text output does. Without a usable print fmt we fall back on the release.

use crate::event::PrevState;

/// Decoder from the raw integer to a [`PrevState`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PrevStateDecoder {
    /// Bits that name a non-running state (`__print_flags(prev_state & MASK, ...)`).
    mask: u64,
    /// Bits meaning "preempted" (`prev_state & PLUS ? "+" : ""`).
    plus: u64,
    /// `{value, letter}` pairs.
    table: Vec<(u64, u8)>,
}

impl PrevStateDecoder {
    /// From the print fmt of `sched_switch`; `None` if it does not have the expected shape.
    pub(crate) fn from_print_fmt(print_fmt: &str) -> Option<PrevStateDecoder> {
        let flags_at = print_fmt.find("__print_flags(")?;
        let after = &print_fmt[flags_at + "__print_flags(".len()..];
        let expr_start = after.find("prev_state")? + "prev_state".len();
        let after_field = after[expr_start..].trim_start().strip_prefix('&')?;
        let sep = after_field.find(", \"|\"")?;
        let mask = eval(&after_field[..sep])?;
        let table_text = &after_field[sep + 5..];
        let table_end = table_text.find(')').unwrap_or(table_text.len());
        let table = parse_table(&table_text[..table_end]);
        if table.is_empty() {
            return None;
        }
        // The `+` test: `REC->prev_state & PLUS ? "+" : ""`.
        let plus_at = print_fmt.find("? \"+\"")?;
        let head = &print_fmt[..plus_at];
        let amp = head.rfind("prev_state")? + "prev_state".len();
        let plus = eval(head[amp..].trim_start().strip_prefix('&')?)?;
        Some(PrevStateDecoder { mask, plus, table })
    }

    /// The encoding used by kernels ≥ 4.14 (the 6.x table).
    pub(crate) fn report_bits() -> PrevStateDecoder {
        let letters = b"SDTtXZPI";
        PrevStateDecoder {
            mask: 0xff,
            plus: 0x100,
            table: letters
                .iter()
                .enumerate()
                .map(|(i, &l)| (1u64 << i, l))
                .collect(),
        }
    }

    /// The raw-bitmask encoding of kernels ≤ 4.13: letters by bit, anything above is "preempted".
    pub(crate) fn raw_state_bits() -> PrevStateDecoder {
        let letters = b"SDTtZXxKWPN";
        PrevStateDecoder {
            mask: (1 << letters.len()) - 1,
            plus: !((1u64 << letters.len()) - 1),
            table: letters
                .iter()
                .enumerate()
                .map(|(i, &l)| (1u64 << i, l))
                .collect(),
        }
    }

    /// The best decoder for a kernel: the print fmt if usable, else by release (`uname -r`),
    /// else the current encoding.
    pub(crate) fn for_kernel(
        print_fmt: Option<&str>,
        kernel_release: Option<&str>,
    ) -> PrevStateDecoder {
        if let Some(d) = print_fmt.and_then(PrevStateDecoder::from_print_fmt) {
            return d;
        }
        match kernel_release.and_then(parse_release) {
            Some(v) if v < (4, 14) => PrevStateDecoder::raw_state_bits(),
            _ => PrevStateDecoder::report_bits(),
        }
    }

    /// Classifies a raw `prev_state` value like the kernel's text would render it.
    pub(crate) fn decode(&self, raw: u64) -> PrevState {
        let state = raw & self.mask;
        if state == 0 {
            return if raw & self.plus != 0 {
                PrevState::Preempted
            } else {
                PrevState::Runnable
            };
        }
        let mut sleeping = false;
        let mut blocked = false;
        for &(value, letter) in &self.table {
            if state & value == 0 {
                continue;
            }
            match letter {
                b'X' | b'Z' | b'x' => return PrevState::Dead,
                b'S' | b'I' => sleeping = true,
                _ => blocked = true,
            }
        }
        // `D|K` (killable) and the like are blocked; plain `S` / `I` are sleeping.
        if blocked {
            PrevState::Blocked
        } else if sleeping {
            PrevState::Sleeping
        } else {
            // Bits inside the mask without a letter: the kernel prints nothing; call it blocked.
            PrevState::Blocked
        }
    }
}

/// `"6.18.0-foo"` → (6, 18).
fn parse_release(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// `{ 0x01, "S" }, { 2, "D" }` → [(1, b'S'), (2, b'D')].
fn parse_table(text: &str) -> Vec<(u64, u8)> {
    text.split('{')
        .skip(1)
        .filter_map(|entry| {
            let entry = entry.split('}').next()?;
            let (value, letter) = entry.split_once(',')?;
            let value = eval(value)?;
            let letter = letter.trim().trim_matches('"');
            Some((value, *letter.as_bytes().first()?))
        })
        .collect()
}

/// Evaluates an integer C constant expression (`| & ^ + - * << >> ~ ( )`, hex/decimal
/// literals with optional `UL` suffixes). Precedence climbing over a token list; `None`
/// for anything else (e.g. a field reference), which makes the caller fall back.
pub(crate) fn eval(text: &str) -> Option<u64> {
    let tokens = tokenize(text)?;
    let mut pos = 0;
    let v = parse_binary(&tokens, &mut pos, 0)?;
    (pos == tokens.len()).then_some(v)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok {
    Num(u64),
    Op(&'static str),
    Open,
    Close,
}

fn tokenize(text: &str) -> Option<Vec<Tok>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let lit = text[start..i].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(hex) = lit.strip_prefix("0x").or(lit.strip_prefix("0X")) {
                u64::from_str_radix(hex, 16).ok()?
            } else {
                lit.parse().ok()?
            };
            out.push(Tok::Num(v));
        } else if c == b'(' {
            out.push(Tok::Open);
            i += 1;
        } else if c == b')' {
            out.push(Tok::Close);
            i += 1;
        } else {
            let two = text.get(i..i + 2);
            let op = match two {
                Some("<<") => "<<",
                Some(">>") => ">>",
                _ => match c {
                    b'|' => "|",
                    b'&' => "&",
                    b'^' => "^",
                    b'+' => "+",
                    b'-' => "-",
                    b'*' => "*",
                    b'~' => "~",
                    _ => return None,
                },
            };
            i += op.len();
            out.push(Tok::Op(op));
        }
    }
    Some(out)
}

fn precedence(op: &str) -> u8 {
    match op {
        "|" => 1,
        "^" => 2,
        "&" => 3,
        "<<" | ">>" => 4,
        "+" | "-" => 5,
        "*" => 6,
        _ => 0,
    }
}

fn parse_binary(tokens: &[Tok], pos: &mut usize, min_prec: u8) -> Option<u64> {
    let mut lhs = parse_unary(tokens, pos)?;
    while let Some(&Tok::Op(op)) = tokens.get(*pos) {
        let prec = precedence(op);
        if prec == 0 || prec <= min_prec {
            break;
        }
        *pos += 1;
        let rhs = parse_binary(tokens, pos, prec)?;
        lhs = match op {
            "|" => lhs | rhs,
            "^" => lhs ^ rhs,
            "&" => lhs & rhs,
            "<<" => lhs.checked_shl(u32::try_from(rhs).ok()?)?,
            ">>" => lhs.checked_shr(u32::try_from(rhs).ok()?)?,
            "+" => lhs.wrapping_add(rhs),
            "-" => lhs.wrapping_sub(rhs),
            "*" => lhs.wrapping_mul(rhs),
            _ => return None,
        };
    }
    Some(lhs)
}

fn parse_unary(tokens: &[Tok], pos: &mut usize) -> Option<u64> {
    match *tokens.get(*pos)? {
        Tok::Num(v) => {
            *pos += 1;
            Some(v)
        }
        Tok::Op("~") => {
            *pos += 1;
            Some(!parse_unary(tokens, pos)?)
        }
        Tok::Op("-") => {
            *pos += 1;
            Some(parse_unary(tokens, pos)?.wrapping_neg())
        }
        Tok::Open => {
            *pos += 1;
            let v = parse_binary(tokens, pos, 0)?;
            (tokens.get(*pos) == Some(&Tok::Close)).then_some(())?;
            *pos += 1;
            Some(v)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FMT_4_X: &str = r#""prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & (2048-1), "|", { 1, "S"} , { 2, "D" }, { 4, "T" }, { 8, "t" }, { 16, "Z" }, { 32, "X" }, { 64, "x" }, { 128, "K" }, { 256, "W" }, { 512, "P" }, { 1024, "N" }) : "R", REC->prev_state & 2048 ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio"#;

    fn fmt_6_18() -> String {
        let text = std::fs::read_to_string(fixtures::file(
            "kernel-6.18-formats/sched_sched_switch.format",
        ))
        .unwrap();
        crate::ftrace::format::parse_format("sched", text.as_bytes())
            .unwrap()
            .print_fmt
    }

    #[test]
    fn encoding_b_from_6_18_print_fmt() {
        let d = PrevStateDecoder::from_print_fmt(&fmt_6_18()).unwrap();
        assert_eq!(d.mask, 0xff);
        assert_eq!(d.plus, 0x100);
        assert_eq!(d, PrevStateDecoder::report_bits());
        assert_eq!(d.decode(0), PrevState::Runnable);
        assert_eq!(d.decode(0x100), PrevState::Preempted);
        assert_eq!(d.decode(1), PrevState::Sleeping);
        assert_eq!(d.decode(0x80), PrevState::Sleeping);
        assert_eq!(d.decode(2), PrevState::Blocked);
        assert_eq!(d.decode(0x10), PrevState::Dead);
        assert_eq!(d.decode(0x20), PrevState::Dead);
        assert_eq!(d.decode(0x40), PrevState::Blocked);
    }

    #[test]
    fn encoding_a_from_4_x_print_fmt() {
        let d = PrevStateDecoder::from_print_fmt(FMT_4_X).unwrap();
        assert_eq!((d.mask, d.plus, d.table.len()), (2047, 2048, 11));
        assert_eq!(d.decode(2048), PrevState::Preempted);
        assert_eq!(d.decode(64), PrevState::Dead);
        assert_eq!(d.decode(128 | 2), PrevState::Blocked);
        assert_eq!(d.decode(1), PrevState::Sleeping);
        assert_eq!(d.decode(0), PrevState::Runnable);
    }

    #[test]
    fn fallback_by_release() {
        let old = PrevStateDecoder::for_kernel(Some("garbage"), Some("4.9.0"));
        assert_eq!(old.decode(64), PrevState::Dead);
        assert_eq!(old.decode(4096), PrevState::Preempted);
        let new = PrevStateDecoder::for_kernel(None, Some("6.1.0-57-amd64"));
        assert_eq!(new.decode(0x100), PrevState::Preempted);
        assert_eq!(PrevStateDecoder::for_kernel(None, None), new);
    }

    #[test]
    fn evaluator() {
        assert_eq!(eval("((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"), Some(0xff));
        assert_eq!(eval("1 + 2 << 3"), Some(24));
        assert_eq!(eval("1UL << 4 | 1"), Some(17));
        assert_eq!(eval("REC->x"), None);
        assert_eq!(eval("(1"), None);
        assert_eq!(eval("1 << 99"), None);
    }
}
