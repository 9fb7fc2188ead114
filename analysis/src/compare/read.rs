//! Reading a comparison row's value from a repeat: the [`Read`] each row of the column
//! catalogue's compare tables ([`crate::columns::compare`]) names, evaluated on a
//! [`Subject`] (one repeat's tasks), and over every repeat where the row pools.

use super::subject::Subject;
use super::ReportSource;
use crate::columns::compare::Read;

/// The value in one repeat, and whether it is exact (a percentile of merged tasks read
/// back from JSON reports is an upper bound).
pub(crate) fn read<R: ReportSource>(read: Read, s: &Subject<R>) -> (Option<f64>, bool) {
    let exact = |v| (v, true);
    match read {
        Read::Pointer(p) => exact(s.report.number(p)),
        Read::Ratio(n, d) => exact(ratio(s.report.number(n), s.report.number(d))),
        Read::SystemDist(_, _, p) => exact(s.report.number(p)),
        Read::Sum(ps) => exact(s.sum(ps)),
        Read::PerSec(ps) => exact(s.sum(ps).and_then(|v| s.per_sec(v))),
        Read::Quotient(n, d) => exact(ratio(s.sum(&[n]), s.sum(&[d]))),
        Read::Max(p) => exact(s.max(p)),
        Read::Share(p) => exact(s.share(p)),
        Read::Dist(d, st) => s.dist(d, st),
        Read::Jain => exact(s.jain()),
    }
}

/// The value over every sample of every repeat, for distributions whose samples all
/// repeats kept (the percentiles of §8 are of the pooled samples); `None` otherwise.
pub(crate) fn pooled<R: ReportSource>(read: Read, repeats: &[Subject<R>]) -> Option<f64> {
    let (dist, stat) = read.pools()?;
    Subject::pooled(repeats, dist, stat)
}

fn ratio(n: Option<f64>, d: Option<f64>) -> Option<f64> {
    let (n, d) = (n?, d?);
    (d != 0.0).then(|| n / d)
}
