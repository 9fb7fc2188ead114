//! `prev_state` of a text `sched_switch` -> [`PrevState`] (formats.md §3.3).
//!
//! Three renderings reach us:
//!
//! 1. The kernel's own print fmt (ftrace text, `perf script` without plugins): letters
//!    named by the kernel itself (`R`, `R+`, `S`, `D|K`, ...). Decoded at once.
//! 2. libtraceevent's sched_switch plugin (`trace-cmd report`, `perf script` with
//!    plugins): it prints one letter per set bit from the fixed table `"SDTtZXxW"`
//!    (bit 0 = S ... bit 7 = W), whatever the kernel, and never a `+`. So the letters
//!    are bit numbers, and what a bit means depends on the kernel's encoding.
//! 3. `trace-cmd report -R`: the raw number, which also depends on the encoding.
//!
//! The encoding is a property of the kernel, not of one line, so (2) and (3) are kept
//! as numbers while parsing and decoded once the whole file has been seen:
//!
//! * Encoding B (kernels >= 4.14) stores 0, one bit of 0x01..0x80, or 0x100 (preempted):
//!   0 R, 0x100 R+, 0x01 S, 0x80 I (both sleeping), 0x02 D, 0x04 T, 0x08 t, 0x40 P
//!   (blocked), 0x10 X, 0x20 Z (dead).
//! * Encoding A (kernels <= 4.13) stores `p->state`: bits S D T t Z X x K W P N from
//!   bit 0 up (several may be set, e.g. `D|K` = 130), x (64) = TASK_DEAD, and a
//!   preempted task is exactly `TASK_STATE_MAX` (512, 1024, 2048 or 4096 by era).
//!
//! Rule (documented in the report): the file is read as encoding A when any number has
//! more than one bit set, or is >= 512, or when 64 (`x` in the plugin rendering)
//! appears but neither of the B exit values 16/32 (`Z`/`X`) does: a B kernel shows exits
//! as X/Z, an A kernel as x. Otherwise B. Under A, `TASK_STATE_MAX` is the largest
//! single-bit value >= 512 seen (preemptions are frequent; a lone `P` is not).
//! Residual ambiguity: an A trace with no preemption, no combination and no exit is
//! read as B, which only changes 128 (K vs I) and 256 (W vs R+).

use crate::event::PrevState;

/// How a switch's `prev_state` was given, until the file's encoding is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StateSrc {
    /// Already decoded (kernel letters) or not a switch.
    Done,
    /// Kernel `prev_state` value: from `-R` output or rebuilt from plugin letters.
    Value(u64),
}

/// Hints about the kernel's encoding, gathered over the whole file.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Evidence {
    multi_bit: bool,
    max_single_high: u64,
    saw_x: bool,
    saw_b_exit: bool,
}

impl Evidence {
    pub(super) fn note(&mut self, value: u64) {
        if value.count_ones() > 1 {
            self.multi_bit = true;
        } else if value >= 512 {
            self.max_single_high = self.max_single_high.max(value);
        }
        match value {
            64 => self.saw_x = true,
            16 | 32 => self.saw_b_exit = true,
            _ => {}
        }
    }

    pub(super) fn merge(&mut self, other: &Evidence) {
        self.multi_bit |= other.multi_bit;
        self.max_single_high = self.max_single_high.max(other.max_single_high);
        self.saw_x |= other.saw_x;
        self.saw_b_exit |= other.saw_b_exit;
    }

    pub(super) fn encoding(&self) -> Encoding {
        if self.multi_bit || self.max_single_high > 0 || (self.saw_x && !self.saw_b_exit) {
            Encoding::A {
                // No preemption seen: any value works, none will carry this bit.
                state_max: self.max_single_high.max(1024),
            }
        } else {
            Encoding::B
        }
    }
}

/// The kernel's `prev_state` encoding (formats.md §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Kernels <= 4.13: raw `p->state`, preempted = `state_max`.
    A { state_max: u64 },
    /// Kernels >= 4.14: 0, one report bit, or 0x100 for preempted.
    B,
}

impl Encoding {
    /// Human-readable rule for the metadata.
    pub fn describe(self) -> String {
        match self {
            Encoding::A { state_max } => {
                format!("A (kernel <= 4.13, raw p->state, preempted = {state_max})")
            }
            Encoding::B => "B (kernel >= 4.14, report bits, preempted = 256)".to_string(),
        }
    }

    /// True when `value` means the same under every encoding [`Evidence::encoding`] can
    /// pick (B, or A with a `state_max` of 1024 or more): the single report bits below 0x100
    /// other than 0x40, and 0. Such values can be decoded before the whole file is seen.
    pub fn decodes_alike(value: u64) -> bool {
        matches!(value, 0 | 1 | 2 | 4 | 8 | 16 | 32 | 128)
    }

    pub fn decode(self, value: u64) -> PrevState {
        match self {
            Encoding::B => match value {
                0 => PrevState::Runnable,
                0x100 => PrevState::Preempted,
                0x01 | 0x80 => PrevState::Sleeping,
                0x10 | 0x20 => PrevState::Dead,
                _ => PrevState::Blocked,
            },
            Encoding::A { state_max } => {
                if value == 0 {
                    PrevState::Runnable
                } else if value & state_max != 0 {
                    PrevState::Preempted
                } else if value & (16 | 32 | 64) != 0 {
                    PrevState::Dead
                } else if value & !(1 | 128 | 256) == 0 || (state_max >= 2048 && value == 1026) {
                    // S, possibly with K/W; 1026 = D|N = TASK_IDLE (4.x), a sleep.
                    PrevState::Sleeping
                } else {
                    PrevState::Blocked
                }
            }
        }
    }
}

/// Plugin letters (`S`, `D|W`, `R`) -> the kernel value they stand for, by bit position.
pub(super) fn plugin_value(letters: &[u8]) -> Option<u64> {
    const TABLE: &[u8; 8] = b"SDTtZXxW";
    if letters == b"R" {
        return Some(0);
    }
    let mut value = 0u64;
    for letter in letters.split(|&b| b == b'|') {
        let [l] = letter else { return None };
        let bit = TABLE.iter().position(|t| t == l)?;
        value |= 1 << bit;
    }
    Some(value)
}

/// Letters printed by the kernel's own print fmt (`R+`, `S`, `D|K`, `I`, `x`) -> state.
pub(super) fn kernel_letters(text: &[u8]) -> Option<PrevState> {
    let (letters, plus) = match text.strip_suffix(b"+") {
        Some(rest) => (rest, true),
        None => (text, false),
    };
    if letters == b"R" {
        return Some(if plus {
            PrevState::Preempted
        } else {
            PrevState::Runnable
        });
    }
    let (mut dead, mut blocked) = (false, false);
    for letter in letters.split(|&b| b == b'|') {
        match letter {
            b"X" | b"Z" | b"x" => dead = true,
            // W: TASK_WAKING (<= 4.13), the task went to sleep and is being woken.
            b"S" | b"I" | b"W" => {}
            b"D" | b"T" | b"t" | b"P" | b"K" | b"N" => blocked = true,
            _ => return None,
        }
    }
    Some(if dead {
        PrevState::Dead
    } else if blocked {
        PrevState::Blocked
    } else {
        PrevState::Sleeping
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        let mut ev = Evidence::default();
        for v in [0, 1, 2, 4096, 130, 64] {
            ev.note(v);
        }
        let a = ev.encoding();
        assert_eq!(a, Encoding::A { state_max: 4096 });
        assert_eq!(a.decode(4096), PrevState::Preempted);
        assert_eq!(a.decode(64), PrevState::Dead);
        assert_eq!(a.decode(130), PrevState::Blocked);
        let mut ev = Evidence::default();
        for v in [0, 1, 2, 32, 128] {
            ev.note(v);
        }
        assert_eq!(ev.encoding(), Encoding::B);
        assert_eq!(Encoding::B.decode(128), PrevState::Sleeping);
        assert_eq!(Encoding::B.decode(64), PrevState::Blocked);
        assert_eq!(plugin_value(b"D|W"), Some(130));
        assert_eq!(plugin_value(b"W"), Some(128));
        assert_eq!(kernel_letters(b"R+"), Some(PrevState::Preempted));
        assert_eq!(kernel_letters(b"D|K"), Some(PrevState::Blocked));
        assert_eq!(kernel_letters(b"I"), Some(PrevState::Sleeping));
        assert_eq!(kernel_letters(b"Q"), None);
    }

    /// `decodes_alike` against `decode` itself, for every value below 2^13 and every
    /// `state_max` the evidence can give (the largest single bit >= 512 seen, at least 1024).
    #[test]
    fn values_that_decode_alike_do() {
        let encodings: Vec<Encoding> = std::iter::once(Encoding::B)
            .chain((10..=20).map(|bit| Encoding::A {
                state_max: 1 << bit,
            }))
            .collect();
        for value in 0..(1u64 << 13) {
            let alike = encodings
                .iter()
                .all(|e| e.decode(value) == Encoding::B.decode(value));
            if Encoding::decodes_alike(value) {
                assert!(alike, "{value}");
            }
            // The two single bits whose meaning the encoding decides.
            if value == 64 || value == 256 {
                assert!(!alike, "{value}");
            }
        }
    }
}
