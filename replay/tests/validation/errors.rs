//! The error of a prediction, and of the null prediction, per (workload, pair, metric) cell.
//!
//! Rules (docs/replay-validation.md says the same): a share's error is the absolute difference in
//! percentage points; a rate's or a duration's is the absolute difference relative to the
//! real value, in %. A role whose real value is undefined (no wakeups, no slices) is left
//! out; a real 0 gives an error of 0 when the guess is 0 too, else an unbounded one; a
//! guess that is undefined where the real value is not is unbounded. A cell's error is its
//! worst role's.
//!
//! A role is scored on a metric only where B's capture has at least [`MIN_EVENTS`] of the
//! events the metric is a statistic of (wakeups for the wakeup latencies and the share of
//! wakeups that preempt, switches for the median slice, involuntary switches for their
//! rate): below that the real value is not a measurement of the scheduler. A p90 of fewer
//! than 10 samples is their maximum, a median of two is their mean, and a count of n
//! events has a counting error of about 1/√n (over 30 % below 10). The rule depends on B's
//! capture alone, so it leaves a role out of the prediction's and the null prediction's
//! error alike.

use super::measure::{ErrorRule, Pair, RoleValue, METRICS};

/// The prediction's and the null prediction's errors of one cell; `None` when no role has
/// the metric in B's capture.
#[derive(Debug, Clone, Copy)]
pub struct CellError {
    pub predicted: f64,
    pub null: f64,
}

impl CellError {
    /// The prediction is closer than "B behaves like A".
    pub fn beats_null(&self) -> bool {
        self.predicted < self.null
    }

    /// The null prediction is exact: nothing can beat it.
    pub fn null_exact(&self) -> bool {
        self.null == 0.0
    }
}

/// The fewest events of B's capture a role's statistic is scored on.
pub const MIN_EVENTS: u64 = 10;

fn error(rule: ErrorRule, real: f64, guess: Option<f64>) -> f64 {
    let Some(guess) = guess else {
        return f64::INFINITY;
    };
    match rule {
        ErrorRule::Points => (guess - real).abs() * 100.0,
        ErrorRule::Relative if real == 0.0 => {
            if guess == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        }
        ErrorRule::Relative => (guess - real).abs() / real.abs() * 100.0,
    }
}

/// The errors of a metric over its roles.
pub fn cell(rule: ErrorRule, roles: &[RoleValue]) -> Option<CellError> {
    roles
        .iter()
        .filter(|r| r.real_events.is_none_or(|n| n >= MIN_EVENTS))
        .filter_map(|r| {
            let real = r.real?;
            Some(CellError {
                predicted: error(rule, real, r.predicted),
                null: error(rule, real, r.null),
            })
        })
        .reduce(|a, b| CellError {
            predicted: a.predicted.max(b.predicted),
            null: a.null.max(b.null),
        })
}

/// The cells of a pair, in the order of [`METRICS`].
pub fn cells(pair: &Pair) -> Vec<Option<CellError>> {
    METRICS
        .iter()
        .zip(&pair.values)
        .map(|(m, roles)| cell(m.rule, roles))
        .collect()
}
