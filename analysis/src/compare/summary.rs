//! The arithmetic of metrics.md §8: mean and coefficient of variation over repeats,
//! value normalized to the baseline, change in % signed so that positive is better,
//! and the regression / improvement flag.

use crate::columns::Direction;

/// Mean, sample standard deviation and CV of one metric over the repeats of one label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Spread {
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
pub(super) fn spread(values: &[f64]) -> Option<Spread> {
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
pub(super) enum Flag {
    Regression,
    Improvement,
}

impl Flag {
    pub(super) fn symbol(self) -> &'static str {
        match self {
            Flag::Regression => "*",
            Flag::Improvement => "^",
        }
    }
}

/// How a flag was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Basis {
    /// A neutral metric: never flagged.
    Neutral,
    /// One repeat on a side: no noise estimate, the threshold alone decides.
    ThresholdOnly,
    /// Threshold, twice the larger CV and the Welch p-value below alpha.
    Significance,
}

impl Basis {
    pub(super) fn name(self) -> &'static str {
        match self {
            Basis::Neutral => "neutral",
            Basis::ThresholdOnly => "threshold-only",
            Basis::Significance => "threshold, 2 x CV, p < alpha",
        }
    }
}

/// The rule that flags a change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct FlagRule {
    pub threshold_pct: f64,
    /// Welch p-values at or above this are not flagged (with two or more repeats a side).
    pub alpha: f64,
}

/// One label measured against the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Versus {
    /// value / baseline value; `None` when the baseline is 0.
    pub normalized: Option<f64>,
    /// (normalized - 1) * 100, negated for lower-is-better metrics, so positive is
    /// better; for a neutral metric its size |normalized - 1| * 100, no verdict.
    pub change_pct: Option<f64>,
    pub flag: Option<Flag>,
    pub basis: Basis,
}

/// The change in % of `value` against `base` (signed so that positive is better;
/// unsigned for neutral metrics); `None` when the baseline is 0.
pub(super) fn change_pct(value: f64, base: f64, better: Direction) -> Option<f64> {
    if base == 0.0 {
        return None;
    }
    let raw = (value / base - 1.0) * 100.0;
    Some(match better {
        Direction::HigherIsBetter => raw,
        Direction::LowerIsBetter => -raw,
        Direction::Neutral => raw.abs(),
    })
}

/// Compares `this` with `base`: `value` and `base_value` are what the row shows (the
/// mean over repeats, or the pooled percentile), `this`/`base` their per-repeat spreads,
/// `p` the Welch p-value of the per-repeat values. A change is flagged when |change|
/// exceeds the threshold and twice the larger CV and, with two or more repeats on both
/// sides, p < alpha (a missing CV or p with one repeat: threshold-only).
pub(super) fn versus(
    (value, this): (f64, &Spread),
    (base_value, base): (f64, &Spread),
    better: Direction,
    p: Option<f64>,
    rule: FlagRule,
) -> Versus {
    let repeated = this.n >= 2 && base.n >= 2;
    let basis = match (better, repeated) {
        (Direction::Neutral, _) => Basis::Neutral,
        (_, false) => Basis::ThresholdOnly,
        (_, true) => Basis::Significance,
    };
    let Some(change) = change_pct(value, base_value, better) else {
        return Versus {
            normalized: None,
            change_pct: None,
            flag: None,
            basis,
        };
    };
    let noise = 2.0 * this.cv_pct.unwrap_or(0.0).max(base.cv_pct.unwrap_or(0.0));
    // "Exceeds" with a margin far below any printed digit, so that 105 vs 100 at a 5 %
    // threshold is not flagged because 1.05 is not exact in binary.
    let limit = rule.threshold_pct.max(noise) + 1e-9;
    let significant = match basis {
        Basis::Neutral => false,
        Basis::ThresholdOnly => true,
        Basis::Significance => p.is_some_and(|p| p < rule.alpha),
    };
    let flag = (significant && change.abs() > limit).then_some(if change > 0.0 {
        Flag::Improvement
    } else {
        Flag::Regression
    });
    Versus {
        normalized: Some(value / base_value),
        change_pct: Some(change),
        flag,
        basis,
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

    const RULE: FlagRule = FlagRule {
        threshold_pct: 5.0,
        alpha: 0.05,
    };

    fn vs(this: &Spread, base: &Spread, better: Direction, p: Option<f64>) -> Versus {
        versus((this.mean, this), (base.mean, base), better, p, RULE)
    }

    #[test]
    fn sign_and_flags() {
        let base = spread(&[100.0]).unwrap();
        let up = spread(&[120.0]).unwrap();
        let higher = vs(&up, &base, Direction::HigherIsBetter, None);
        assert!((higher.change_pct.unwrap() - 20.0).abs() < 1e-9);
        assert_eq!(higher.flag, Some(Flag::Improvement));
        assert_eq!(higher.basis, Basis::ThresholdOnly);
        let lower = vs(&up, &base, Direction::LowerIsBetter, None);
        assert!((lower.change_pct.unwrap() + 20.0).abs() < 1e-9);
        assert_eq!(lower.flag, Some(Flag::Regression));
        // A neutral metric: the size of the change, never a flag.
        let down = spread(&[80.0]).unwrap();
        let neutral = vs(&down, &base, Direction::Neutral, None);
        assert!((neutral.change_pct.unwrap() - 20.0).abs() < 1e-9);
        assert_eq!((neutral.flag, neutral.basis), (None, Basis::Neutral));
        // 20 % inside twice a 15 % CV: not flagged.
        let noisy = Spread {
            cv_pct: Some(15.0),
            ..up
        };
        assert_eq!(
            vs(&noisy, &base, Direction::HigherIsBetter, None).flag,
            None
        );
        // Exactly at the threshold: not flagged ("exceeds").
        let five = spread(&[105.0]).unwrap();
        assert_eq!(vs(&five, &base, Direction::HigherIsBetter, None).flag, None);
        let zero = spread(&[0.0]).unwrap();
        assert_eq!(
            vs(&up, &zero, Direction::HigherIsBetter, None).normalized,
            None
        );
    }

    #[test]
    fn repeats_need_a_small_p() {
        let base = spread(&[100.0, 101.0, 99.0]).unwrap();
        let up = spread(&[120.0, 121.0, 119.0]).unwrap();
        let sure = vs(&up, &base, Direction::LowerIsBetter, Some(0.001));
        assert_eq!(
            (sure.flag, sure.basis),
            (Some(Flag::Regression), Basis::Significance)
        );
        assert_eq!(
            vs(&up, &base, Direction::LowerIsBetter, Some(0.4)).flag,
            None
        );
        assert_eq!(vs(&up, &base, Direction::LowerIsBetter, None).flag, None);
    }
}
