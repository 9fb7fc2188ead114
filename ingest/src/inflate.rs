//! A limit on how much one input may inflate to: whole-file `.xz` / `.gz` / `.zst`
//! wrappers, trace.dat v7 chunks and perf.data COMPRESSED records all draw on one
//! [`Budget`] per input, so a decompression bomb ends with an error that names the limit
//! instead of taking all memory.
//!
//! The default allowance grows with the compressed bytes read: [`FLOOR`] plus [`RATIO`] times
//! them. Real traces inflate 3–10× (the `.xz` files of the reference traces at most 9.7×), so
//! 64× is generous for honest inputs and still bounds a bomb by its own size. `--max-inflate`
//! replaces the rule by a fixed total ([`set_max_inflate`]).

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// Inflated bytes always allowed, whatever the compressed size (small inputs, headers).
pub const FLOOR: u64 = 64 << 20;
/// Inflated bytes allowed per compressed byte read.
pub const RATIO: u64 = 64;

/// The user's fixed limit per input (`--max-inflate`); 0 = the default rule. Process-wide: it
/// is a command-line setting, the same for every input of the run.
static MAX_INFLATE: AtomicU64 = AtomicU64::new(0);

/// Sets the total inflated bytes one input may reach (`None`: back to the default rule).
pub fn set_max_inflate(bytes: Option<u64>) {
    MAX_INFLATE.store(bytes.unwrap_or(0), Ordering::Relaxed);
}

/// The inflation account of one input. Shared by the threads that decode it (atomics).
#[derive(Debug, Default)]
pub struct Budget {
    compressed: AtomicU64,
    inflated: AtomicU64,
}

impl Budget {
    pub fn new() -> Budget {
        Budget::default()
    }

    /// `n` more compressed bytes were read.
    pub fn read(&self, n: u64) {
        self.compressed.fetch_add(n, Ordering::Relaxed);
    }

    /// The inflated bytes allowed now.
    fn allowance(&self) -> u64 {
        match MAX_INFLATE.load(Ordering::Relaxed) {
            0 => {
                FLOOR.saturating_add(RATIO.saturating_mul(self.compressed.load(Ordering::Relaxed)))
            }
            fixed => fixed,
        }
    }

    /// Takes `n` inflated bytes (of `what`, at input offset `at`) from the budget, or says
    /// which limit they would pass. Called before the bytes are produced where their size is
    /// declared, so a false size costs nothing either.
    pub fn inflate(&self, n: u64, at: u64, what: &str) -> Result<()> {
        let total = self
            .inflated
            .fetch_add(n, Ordering::Relaxed)
            .saturating_add(n);
        let allowed = self.allowance();
        if total <= allowed {
            return Ok(());
        }
        let rule = match MAX_INFLATE.load(Ordering::Relaxed) {
            0 => format!(
                "{RATIO}x the {} compressed bytes read + {} MiB",
                self.compressed.load(Ordering::Relaxed),
                FLOOR >> 20
            ),
            _ => "--max-inflate".to_string(),
        };
        Err(Error::at(
            at,
            format!(
                "decompression bomb? {what} would inflate the input to {total} bytes, over the \
                 limit of {allowed} bytes ({rule}); raise it with --max-inflate SIZE"
            ),
        ))
    }
}

/// Parses a size: a number of bytes with an optional `K`/`M`/`G`/`T` (binary) suffix, `B`
/// and `iB` allowed (`512M`, `4GiB`, `100000`).
pub fn parse_size(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("{s:?}: unknown size unit {c:?} (use K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a size (e.g. 4G, 512M, 100000)"))?;
    n.checked_mul(1 << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("{s:?}: size out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("100000"), Ok(100_000));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("2k"), Ok(2048));
        assert!(parse_size("3X").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    #[test]
    fn the_default_allowance_grows_with_what_was_read() {
        let b = Budget::new();
        assert!(b.inflate(FLOOR, 0, "x").is_ok());
        let err = b.inflate(1, 7, "a chunk").unwrap_err().to_string();
        assert!(err.contains("over the limit of 67108864 bytes"), "{err}");
        b.read(1000);
        // 64 MiB + 1 taken; 64 MiB + 64000 allowed now.
        assert!(b.inflate(63_999, 0, "x").is_ok());
        assert!(b.inflate(1, 0, "x").is_err());
    }
}
