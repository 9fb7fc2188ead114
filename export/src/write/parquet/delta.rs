//! `DELTA_BINARY_PACKED` (the Parquet format's encoding of integers as packed
//! differences), written here rather than through polars.
//!
//! polars' encoder is reached only through an Arrow array, whose nulls it skips value by
//! value through the validity bitmap, and it takes the differences through an iterator a
//! value at a time; the integer columns ([`super::ints`]) hold their values without the
//! nulls, so a page's differences are one pass over a slice that the compiler vectorises.
//! The bits are packed by polars' `bitpacked` (64 values at a time, unrolled per width).
//!
//! Layout, as the format defines it: a header (values per block, miniblocks per block,
//! the number of values, the first value), then per block of [`BLOCK`] differences the
//! smallest difference, one bit width per miniblock, and each miniblock's differences
//! less the smallest, packed at its width. Blocks of 256 in 4 miniblocks of 64: a
//! miniblock is one unit of the packer, and a width per 64 values follows the data more
//! closely than polars' one per 256.

use polars_parquet::parquet::encoding::bitpacked;

/// Differences per block: a multiple of 128, as the format requires.
const BLOCK: usize = 256;
/// Miniblocks per block; each holds a multiple of 32 values, as the format requires.
const MINIBLOCKS: usize = 4;
/// Differences per miniblock: the packer's unit for 64-bit values.
const MINIBLOCK: usize = BLOCK / MINIBLOCKS;

/// ULEB128: seven bits a byte, the low ones first, the high bit set on all but the last.
fn uleb(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A signed integer as ULEB128 of its zigzag form (0, -1, 1, -2, … as 0, 1, 2, 3, …).
fn zigzag(out: &mut Vec<u8>, n: i64) {
    uleb(out, ((n << 1) ^ (n >> 63)) as u64);
}

/// Appends `values`, encoded, to `out`. Differences wrap (as the format's readers undo
/// them), so any two `i64`s follow each other.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512vl", "x86_64+avx2"))]
pub(super) fn encode(values: &[i64], out: &mut Vec<u8>) {
    uleb(out, BLOCK as u64);
    uleb(out, MINIBLOCKS as u64);
    uleb(out, values.len() as u64);
    zigzag(out, values.first().copied().unwrap_or(0));
    let mut deltas = [0i64; BLOCK];
    let mut packed = [0u64; MINIBLOCK];
    for first in (1..values.len()).step_by(BLOCK) {
        let end = (first + BLOCK).min(values.len());
        let (before, now) = (&values[first - 1..end - 1], &values[first..end]);
        let deltas = &mut deltas[..now.len()];
        for ((d, &v), &b) in deltas.iter_mut().zip(now).zip(before) {
            *d = v.wrapping_sub(b);
        }
        let min = deltas.iter().copied().min().unwrap_or(0);
        zigzag(out, min);
        // Unused miniblocks of the last block keep their width byte (0), and no body.
        let mut widths = [0usize; MINIBLOCKS];
        for (w, mini) in widths.iter_mut().zip(deltas.chunks(MINIBLOCK)) {
            let bits = mini
                .iter()
                .fold(0u64, |a, &d| a | d.wrapping_sub(min) as u64);
            *w = (64 - bits.leading_zeros()) as usize;
        }
        out.extend(widths.iter().map(|&w| w as u8));
        for (mini, &width) in deltas.chunks(MINIBLOCK).zip(&widths) {
            if width == 0 {
                continue;
            }
            for (p, &d) in packed.iter_mut().zip(mini) {
                *p = d.wrapping_sub(min) as u64;
            }
            // The last miniblock's padding is zeros.
            packed[mini.len()..].fill(0);
            let at = out.len();
            out.resize(at + MINIBLOCK * width / 8, 0);
            bitpacked::encode_pack(&packed, width, &mut out[at..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A decoder written from the format's text, bit by bit: the encoder's inverse.
    fn decode(bytes: &[u8]) -> Vec<i64> {
        fn uleb(bytes: &[u8], at: &mut usize) -> u64 {
            let (mut n, mut shift) = (0u64, 0);
            loop {
                let b = bytes[*at];
                *at += 1;
                n |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    return n;
                }
            }
        }
        let mut at = 0;
        let unzig = |n: u64| ((n >> 1) as i64) ^ -((n & 1) as i64);
        let (block, minis, count) = (
            uleb(bytes, &mut at) as usize,
            uleb(bytes, &mut at) as usize,
            uleb(bytes, &mut at) as usize,
        );
        let mut values = vec![unzig(uleb(bytes, &mut at))];
        while values.len() < count {
            let min = unzig(uleb(bytes, &mut at));
            let widths: Vec<usize> = (0..minis).map(|_| uleb(bytes, &mut at) as usize).collect();
            for width in widths {
                if values.len() >= count {
                    break;
                }
                let mut bit = at * 8;
                for _ in 0..block / minis {
                    let mut d = 0u64;
                    for k in 0..width {
                        let b = (bytes[(bit + k) / 8] >> ((bit + k) % 8)) & 1;
                        d |= u64::from(b) << k;
                    }
                    bit += width;
                    if values.len() < count {
                        let last = *values.last().unwrap();
                        values.push(last.wrapping_add(min).wrapping_add(d as i64));
                    }
                }
                at += block / minis * width / 8;
            }
        }
        values.truncate(count);
        assert_eq!(at, bytes.len(), "every byte read, none past the end");
        values
    }

    fn round_trip(values: &[i64]) -> Vec<i64> {
        let mut out = vec![0xaa];
        encode(values, &mut out);
        assert_eq!(out[0], 0xaa, "appended");
        decode(&out[1..])
    }

    #[test]
    fn header_and_a_constant_step() {
        let mut out = Vec::new();
        encode(&[5, 7, 9, 11], &mut out);
        // 256 = 0x80 0x02, 4 miniblocks, 4 values, first 5 (zigzag 10), min step 2
        // (zigzag 4), widths 0 0 0 0: no bodies.
        assert_eq!(out, [0x80, 0x02, 4, 4, 10, 4, 0, 0, 0, 0]);
    }

    #[test]
    fn edges_round_trip() {
        let extremes = [i64::MIN, i64::MAX, 0, -1, i64::MAX, i64::MIN, 1];
        assert_eq!(round_trip(&extremes), extremes);
        assert_eq!(round_trip(&[]), Vec::<i64>::new());
        assert_eq!(round_trip(&[-42]), [-42]);
        // Exactly a block, a block and one, and a last block of partial miniblocks.
        for n in [257, 258, 300, 513, 1000] {
            let v: Vec<i64> = (0..n)
                .map(|i| (i * i * 7919) % 1_000_003 - 500_000)
                .collect();
            assert_eq!(round_trip(&v), v, "{n} values");
        }
    }

    proptest! {
        #[test]
        fn any_values_round_trip(v in proptest::collection::vec(any::<i64>(), 0..1200)) {
            prop_assert_eq!(round_trip(&v), v);
        }

        #[test]
        fn small_steps_round_trip(
            start in any::<i64>(),
            steps in proptest::collection::vec(-3i64..1_000, 0..1200),
        ) {
            let v: Vec<i64> = steps.iter().scan(start, |x, &s| {
                *x = x.wrapping_add(s);
                Some(*x)
            }).collect();
            prop_assert_eq!(round_trip(&v), v);
        }
    }
}
