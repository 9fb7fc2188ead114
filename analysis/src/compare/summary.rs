//! The arithmetic of metrics.md §8: mean and coefficient of variation over repeats,
//! value normalized to the baseline, change in % signed so that positive is better,
//! and the regression / improvement flag.

use super::metrics::Better;

/// Mean, sample standard deviation and CV of one metric over the repeats of one label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Repeats that had a value.
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (divisor n - 1); `None` with fewer than two values.
    pub stddev: Option<f64>,
    /// stddev / |mean| in %; `None` with fewer than two values or a zero mean.
    pub cv_pct: Option<f64>,
}

/// The spread of `values` (the repeats that had the metric); `None` when there are none.
///
/// The standard deviation is the sample one (n - 1): repeats are a sample of the runs
/// the kernel could have produced, not the whole population.
pub fn spread(values: &[f64]) -> Option<Spread> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let stddev = (n >= 2).then(|| {
        let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        (ss / (n - 1) as f64).sqrt()
    });
    let cv_pct = stddev
        .filter(|_| mean != 0.0)
        .map(|s| s / mean.abs() * 100.0);
    Some(Spread {
        n,
        mean,
        stddev,
        cv_pct,
    })
}

/// `*` regression, `^` improvement (metrics.md §8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    Regression,
    Improvement,
}

impl Flag {
    pub fn symbol(self) -> &'static str {
        match self {
            Flag::Regression => "*",
            Flag::Improvement => "^",
        }
    }
}

/// One label measured against the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Versus {
    /// mean / baseline mean; `None` when the baseline mean is 0.
    pub normalized: Option<f64>,
    /// (normalized - 1) * 100, negated for lower-is-better metrics, so positive is better.
    pub change_pct: Option<f64>,
    pub flag: Option<Flag>,
}

/// Compares `this` with `base`. A change is flagged when |change| exceeds both
/// `threshold_pct` and twice the larger CV of the two (a missing CV, one repeat,
/// counts as 0: no noise estimate, so only the threshold applies).
pub fn versus(this: &Spread, base: &Spread, better: Better, threshold_pct: f64) -> Versus {
    if base.mean == 0.0 {
        return Versus {
            normalized: None,
            change_pct: None,
            flag: None,
        };
    }
    let normalized = this.mean / base.mean;
    let raw = (normalized - 1.0) * 100.0;
    let change = match better {
        Better::Higher => raw,
        Better::Lower => -raw,
    };
    let noise = 2.0 * this.cv_pct.unwrap_or(0.0).max(base.cv_pct.unwrap_or(0.0));
    // "Exceeds" with a margin far below any printed digit, so that 105 vs 100 at a 5 %
    // threshold is not flagged because 1.05 is not exact in binary.
    let limit = threshold_pct.max(noise) + 1e-9;
    let flag = (change.abs() > limit).then_some(if change > 0.0 {
        Flag::Improvement
    } else {
        Flag::Regression
    });
    Versus {
        normalized: Some(normalized),
        change_pct: Some(change),
        flag,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_stddev_and_cv() {
        let s = spread(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mean, 5.0);
        // Sum of squares 32, n - 1 = 7.
        assert!((s.stddev.unwrap() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert!((s.cv_pct.unwrap() - (32.0f64 / 7.0).sqrt() / 5.0 * 100.0).abs() < 1e-9);
        let one = spread(&[3.0]).unwrap();
        assert_eq!((one.n, one.stddev, one.cv_pct), (1, None, None));
        assert!(spread(&[]).is_none());
    }

    #[test]
    fn sign_and_flags() {
        let base = spread(&[100.0]).unwrap();
        let up = spread(&[120.0]).unwrap();
        let higher = versus(&up, &base, Better::Higher, 5.0);
        assert!((higher.change_pct.unwrap() - 20.0).abs() < 1e-9);
        assert_eq!(higher.flag, Some(Flag::Improvement));
        let lower = versus(&up, &base, Better::Lower, 5.0);
        assert!((lower.change_pct.unwrap() + 20.0).abs() < 1e-9);
        assert_eq!(lower.flag, Some(Flag::Regression));
        // 20 % inside twice a 15 % CV: not flagged.
        let noisy = Spread {
            cv_pct: Some(15.0),
            ..up
        };
        assert_eq!(versus(&noisy, &base, Better::Higher, 5.0).flag, None);
        // Exactly at the threshold: not flagged ("exceeds").
        let five = spread(&[105.0]).unwrap();
        assert_eq!(versus(&five, &base, Better::Higher, 5.0).flag, None);
        let zero = spread(&[0.0]).unwrap();
        assert_eq!(versus(&up, &zero, Better::Higher, 5.0).normalized, None);
    }
}
