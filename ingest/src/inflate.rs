//! A limit on how much one input may inflate to: whole-file `.xz` / `.gz` / `.zst`
//! wrappers, trace.dat v7 chunks and perf.data COMPRESSED records all draw on one
//! [`Budget`] per input, so a decompression bomb ends with an error that names the limit
//! instead of taking all memory.
//!
//! The default allowance grows with the compressed bytes read: [`FLOOR`] plus [`RATIO`] times
//! them. Real traces inflate 3–10× (the `.xz` files of the reference traces at most 9.7×), so
//! 64× is generous for honest inputs and still bounds a bomb by its own size. `--max-inflate`
//! replaces the rule by a fixed total ([`crate::ReadOptions::max_inflate`], per run).

use crate::error::{Error, Result};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

/// Inflated bytes always allowed, whatever the compressed size (small inputs, headers).
pub const FLOOR: u64 = 64 << 20;
/// Inflated bytes allowed per compressed byte read.
pub const RATIO: u64 = 64;

/// The inflation account of one input. Shared by the threads that decode it (atomics).
#[derive(Debug, Default)]
pub struct Budget {
    compressed: AtomicU64,
    inflated: AtomicU64,
    /// The user's fixed total (`--max-inflate`); `None`: the default rule.
    fixed: Option<u64>,
}

impl Budget {
    /// An empty account whose limit is `max_inflate` (`None`: the default rule).
    pub fn new(max_inflate: Option<u64>) -> Budget {
        Budget {
            fixed: max_inflate,
            ..Budget::default()
        }
    }

    /// `n` more compressed bytes were read.
    pub fn read(&self, n: u64) {
        self.compressed.fetch_add(n, Ordering::Relaxed);
    }

    /// The inflated bytes allowed now.
    fn allowance(&self) -> u64 {
        match self.fixed {
            None => {
                FLOOR.saturating_add(RATIO.saturating_mul(self.compressed.load(Ordering::Relaxed)))
            }
            Some(fixed) => fixed,
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
        let rule = match self.fixed {
            None => format!(
                "{RATIO}x the {} compressed bytes read + {} MiB",
                self.compressed.load(Ordering::Relaxed),
                FLOOR >> 20
            ),
            Some(_) => "--max-inflate".to_string(),
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

/// A decompressor's output read through a [`Budget`]: each read's bytes are taken from it after
/// they are produced (a stream declares no size up front), so a bomb stops within one read of
/// the limit, with the limit named in the error.
pub struct Budgeted<'b, R> {
    inner: R,
    budget: &'b Budget,
    /// Bytes handed out so far: the output offset an error names.
    out: u64,
    what: &'static str,
}

impl<'b, R: Read> Budgeted<'b, R> {
    /// `what` names the inflating thing in the error (`"the zstd wrapper"`).
    pub fn new(inner: R, budget: &'b Budget, what: &'static str) -> Budgeted<'b, R> {
        Budgeted {
            inner,
            budget,
            out: 0,
            what,
        }
    }
}

impl<R: Read> Read for Budgeted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.budget
            .inflate(n as u64, self.out, self.what)
            .map_err(|e| std::io::Error::other(e.cause))?;
        self.out += n as u64;
        Ok(n)
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
        let b = Budget::new(None);
        assert!(b.inflate(FLOOR, 0, "x").is_ok());
        let err = b.inflate(1, 7, "a chunk").unwrap_err().to_string();
        assert!(err.contains("over the limit of 67108864 bytes"), "{err}");
        b.read(1000);
        // 64 MiB + 1 taken; 64 MiB + 64000 allowed now.
        assert!(b.inflate(63_999, 0, "x").is_ok());
        assert!(b.inflate(1, 0, "x").is_err());
    }

    #[test]
    fn each_budget_keeps_its_own_fixed_limit() {
        let (small, large) = (Budget::new(Some(1000)), Budget::new(Some(5000)));
        let mut out = Vec::new();
        let read = |budget: &Budget, out: &mut Vec<u8>| {
            out.clear();
            Budgeted::new(std::io::repeat(7).take(3000), budget, "zeros").read_to_end(out)
        };
        let err = read(&small, &mut out).unwrap_err().to_string();
        assert!(
            err.contains("over the limit of 1000 bytes (--max-inflate)"),
            "{err}"
        );
        assert_eq!(read(&large, &mut out).unwrap(), 3000);
    }
}
