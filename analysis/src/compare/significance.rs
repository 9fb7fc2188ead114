//! Is a change more than noise? Welch's t-test on the per-repeat values of two runs, and
//! a bootstrap confidence interval of the change (metrics.md §8 "repeats").
//!
//! Welch rather than Mann-Whitney U: with three repeats a side the smallest two-sided
//! exact Mann-Whitney p is 0.1, so nothing could ever reach p < 0.05; Welch's test uses
//! the values, not only their order, and does not assume equal variances.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Two-sided p-value of Welch's unequal-variances t-test of `a` against `b` (the
/// per-repeat values of two runs); `None` with fewer than two values on either side.
/// When both sides have no spread the test has no scale: equal means give 1, different
/// means 0 (the limit of the test as the variances shrink, and what scipy gives for the
/// latter).
pub fn welch_p(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (ma, va) = mean_var(a);
    let (mb, vb) = mean_var(b);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (sa, sb) = (va / na, vb / nb);
    let se2 = sa + sb;
    if se2 == 0.0 {
        return Some(if ma == mb { 1.0 } else { 0.0 });
    }
    let t = (ma - mb) / se2.sqrt();
    // Welch-Satterthwaite degrees of freedom.
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((2.0 * dist.sf(t.abs())).min(1.0))
}

/// Mean and sample variance (n - 1).
fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// Resamples of the bootstrap.
pub(crate) const BOOTSTRAP_RESAMPLES: usize = 2000;
/// The fixed seed: the same inputs give the same interval on every run and machine.
pub(crate) const BOOTSTRAP_SEED: u64 = 0x5eed_5c4e_d7a1_c3d0;

/// 95 % percentile-bootstrap interval of `change(mean of a, mean of b)`: each resample
/// draws the repeats of both runs with replacement. `None` with fewer than two values on
/// either side, or when no resample gives a finite change.
pub(crate) fn bootstrap_ci(
    a: &[f64],
    b: &[f64],
    change: impl Fn(f64, f64) -> f64,
) -> Option<[f64; 2]> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let mut rng = SplitMix64(BOOTSTRAP_SEED);
    let mut resample = |v: &[f64]| -> f64 {
        let sum: f64 = (0..v.len()).map(|_| v[rng.below(v.len())]).sum();
        sum / v.len() as f64
    };
    let mut changes: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            let ma = resample(a);
            change(ma, resample(b))
        })
        .filter(|c| c.is_finite())
        .collect();
    if changes.is_empty() {
        return None;
    }
    changes.sort_by(f64::total_cmp);
    let at = |q: f64| changes[((q * changes.len() as f64) as usize).min(changes.len() - 1)];
    Some([at(0.025), at(0.975)])
}

/// SplitMix64 (Steele, Lea, Flood 2014). Written here rather than taken from `rand`:
/// `rand`'s standard generator does not promise the same stream across versions, and the
/// interval in a saved comparison must not change when a dependency is updated.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (multiply-shift; the bias for n of a few repeats is < 2^-60).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrap_is_reproducible_and_brackets_the_change() {
        let a = [120.0, 121.0, 119.0];
        let b = [100.0, 101.0, 99.0];
        let change = |x: f64, y: f64| (x / y - 1.0) * 100.0;
        let ci = bootstrap_ci(&a, &b, change).unwrap();
        assert_eq!(Some(ci), bootstrap_ci(&a, &b, change));
        assert!(ci[0] <= 20.0 && 20.0 <= ci[1], "{ci:?}");
        // Resample means lie within the values' range: 119/101 - 1 .. 121/99 - 1.
        assert!(ci[0] >= (119.0 / 101.0 - 1.0) * 100.0 - 1e-9);
        assert!(ci[1] <= (121.0 / 99.0 - 1.0) * 100.0 + 1e-9);
        assert_eq!(bootstrap_ci(&a[..1], &b, change), None);
    }

    #[test]
    fn welch_degenerate_cases() {
        assert_eq!(welch_p(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch_p(&[1.0, 1.0], &[1.0, 1.0]), Some(1.0));
        assert_eq!(welch_p(&[1.0, 1.0], &[2.0, 2.0]), Some(0.0));
    }
}
