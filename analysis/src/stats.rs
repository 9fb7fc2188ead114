//! Latency and slice statistics: exact samples while the trace is read, and the
//! summary (`STATS` in the report) computed from them with nearest-rank percentiles.

use serde::{Deserialize, Serialize};

/// How percentiles are computed; written into every report (`quality.percentile_method`).
pub(crate) const PERCENTILE_METHOD: &str = "nearest-rank on exact values";

/// The exact durations of one metric of one task, plus where the largest one ended.
///
/// Values are kept rather than binned so that grouped rows can merge them and still give
/// exact percentiles; pushing is amortized O(1). Durations below 2^32 ns (4.3 s, nearly all
/// of them) take 4 bytes, longer ones 8 bytes in a second list: a large trace's tens of
/// millions of samples then need half the memory, still exact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Samples {
    short: Vec<u32>,
    long: Vec<u64>,
    max: u64,
    max_at: u64,
}

impl Samples {
    /// Adds one duration `value` that ended at time `at`.
    pub fn push(&mut self, value: u64, at: u64) {
        if self.is_empty() || value > self.max {
            self.max = value;
            self.max_at = at;
        }
        match u32::try_from(value) {
            Ok(v) => self.short.push(v),
            Err(_) => self.long.push(value),
        }
    }

    pub fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }

    pub fn is_empty(&self) -> bool {
        self.short.is_empty() && self.long.is_empty()
    }

    /// Every sample, in no particular order (the TUI's histograms read them).
    pub fn values(&self) -> impl Iterator<Item = u64> + '_ {
        self.short
            .iter()
            .map(|&v| u64::from(v))
            .chain(self.long.iter().copied())
    }

    /// Adds every sample of `other` (used for sched delay = wakeup latency ∪ preemption
    /// wait, and for grouped rows). On equal maxima the earlier end time wins.
    pub fn merge(&mut self, other: &Samples) {
        if other.is_empty() {
            return;
        }
        if self.is_empty()
            || other.max > self.max
            || (other.max == self.max && other.max_at < self.max_at)
        {
            self.max = other.max;
            self.max_at = other.max_at;
        }
        self.short.extend_from_slice(&other.short);
        self.long.extend_from_slice(&other.long);
    }

    /// The samples of every one of `parts`, as [`merge`](Samples::merge) one after the
    /// other would give them, but allocated once at the exact size (the system-wide sets
    /// hold tens of millions of samples: no doubling growth, no intermediate copies).
    pub fn union(parts: &[&Samples]) -> Samples {
        let mut all = Samples {
            short: Vec::with_capacity(parts.iter().map(|p| p.short.len()).sum()),
            long: Vec::with_capacity(parts.iter().map(|p| p.long.len()).sum()),
            ..Samples::default()
        };
        for part in parts {
            all.merge(part);
        }
        all
    }

    /// How many samples fall in each log2 bucket: bucket 0 holds 0 ns, bucket b > 0 holds
    /// [2^(b-1), 2^b) ns (64 buckets in all); trailing empty buckets are left out.
    pub(crate) fn log2_histogram(&self) -> Vec<u64> {
        let mut buckets = vec![0u64; 64];
        let bucket = |v: u64| (64 - v.leading_zeros() as usize).min(63);
        for &v in &self.short {
            buckets[bucket(u64::from(v))] += 1;
        }
        for &v in &self.long {
            buckets[bucket(v)] += 1;
        }
        let used = buckets.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
        buckets.truncate(used);
        buckets
    }

    /// The summary of these samples. Reorders them (selection, not a full sort: the four
    /// ranks cost O(n) where sorting tens of millions of samples cost most of `finish`).
    pub fn stats(&mut self) -> Stats {
        let count = self.len() as u64;
        if count == 0 {
            return Stats::default();
        }
        let sum = self
            .short
            .iter()
            .fold(0u64, |a, &v| a.saturating_add(u64::from(v)));
        let sum = self.long.iter().fold(sum, |a, &v| a.saturating_add(v));
        // Nearest rank: the smallest value with at least p % of the samples at or below it,
        // i.e. the r-th smallest with r = ceil(p × count), at least 1.
        let index = |permille: u64| ((permille * count).div_ceil(1000).max(1) - 1) as usize;
        let indices = [index(500), index(900), index(990), index(999)];
        // Every long value is larger than every short one: in sorted order the samples are
        // `short` followed by `long`, so each rank is found in one of the two lists.
        let split = self.short.len();
        let mut short_ranks = OrderStatistics::new(&mut self.short);
        let mut long_ranks = OrderStatistics::new(&mut self.long);
        let [p50, p90, p99, p999] = indices.map(|i| {
            if i < split {
                u64::from(short_ranks.nth(i))
            } else {
                long_ranks.nth(i - split)
            }
        });
        Stats {
            count,
            sum_ns: sum,
            // In u128: a saturated sum (a corrupt timestamp) must not overflow the rounding.
            mean_ns: ((u128::from(sum) + u128::from(count / 2)) / u128::from(count)) as u64,
            p50_ns: p50,
            p90_ns: p90,
            p99_ns: p99,
            p999_ns: p999,
            max_ns: self.max,
            max_at_ns: self.max_at,
        }
    }
}

/// The k-th smallest values of a list for ascending k, each found by selection in the part
/// of the list past the previous one (which selection leaves holding only larger values).
struct OrderStatistics<'a, T> {
    values: &'a mut [T],
    /// Values before this index are in their sorted place (or known not larger).
    done: usize,
}

impl<'a, T: Ord + Copy> OrderStatistics<'a, T> {
    fn new(values: &'a mut [T]) -> Self {
        OrderStatistics { values, done: 0 }
    }

    /// The value of sorted index `i`; `i` must not be smaller than a previous call's.
    fn nth(&mut self, i: usize) -> T {
        if i >= self.done {
            self.values[self.done..].select_nth_unstable(i - self.done);
            self.done = i + 1;
        }
        self.values[i]
    }
}

/// Summary of a set of durations (JSON `STATS`). All times in ns; `max_at_ns` is the
/// time at which the longest one ended (switch-in for waits, switch-out for slices).
///
/// In memory a summary of no samples is all zeros; in JSON (schema 2) its mean,
/// percentiles, max and max_at are `null`, so that a reader can tell "no samples" from a
/// real 0 ([`StatsJson`]). Version-1 reports (zeros) read back the same.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "StatsJson", from = "StatsJson")]
pub struct Stats {
    pub count: u64,
    pub sum_ns: u64,
    /// Rounded to the nearest ns.
    pub mean_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
    pub max_at_ns: u64,
}

/// The JSON form of [`Stats`]: what is undefined over no samples is `None` (`null`).
#[derive(Serialize, Deserialize)]
struct StatsJson {
    count: u64,
    sum_ns: u64,
    mean_ns: Option<u64>,
    p50_ns: Option<u64>,
    p90_ns: Option<u64>,
    p99_ns: Option<u64>,
    p999_ns: Option<u64>,
    max_ns: Option<u64>,
    max_at_ns: Option<u64>,
    /// When the longest one started (`max_at_ns - max_ns`): a wait's wakeup or switch-out,
    /// a slice's switch-in. Written for readers; derived again when read.
    #[serde(default)]
    max_start_ns: Option<u64>,
}

impl From<Stats> for StatsJson {
    fn from(s: Stats) -> StatsJson {
        StatsJson {
            count: s.count,
            sum_ns: s.sum_ns,
            mean_ns: s.mean(),
            p50_ns: s.p50(),
            p90_ns: s.p90(),
            p99_ns: s.p99(),
            p999_ns: s.p999(),
            max_ns: s.max(),
            max_at_ns: s.max_at(),
            max_start_ns: s.max_at().map(|at| at.saturating_sub(s.max_ns)),
        }
    }
}

impl From<StatsJson> for Stats {
    fn from(j: StatsJson) -> Stats {
        Stats {
            count: j.count,
            sum_ns: j.sum_ns,
            mean_ns: j.mean_ns.unwrap_or(0),
            p50_ns: j.p50_ns.unwrap_or(0),
            p90_ns: j.p90_ns.unwrap_or(0),
            p99_ns: j.p99_ns.unwrap_or(0),
            p999_ns: j.p999_ns.unwrap_or(0),
            max_ns: j.max_ns.unwrap_or(0),
            max_at_ns: j.max_at_ns.unwrap_or(0),
        }
    }
}

impl Stats {
    /// `value` (one of this summary's fields) when there were samples: over none it is
    /// undefined, not 0.
    fn defined(&self, value: u64) -> Option<u64> {
        (self.count > 0).then_some(value)
    }

    pub fn mean(&self) -> Option<u64> {
        self.defined(self.mean_ns)
    }

    pub fn p50(&self) -> Option<u64> {
        self.defined(self.p50_ns)
    }

    pub fn p90(&self) -> Option<u64> {
        self.defined(self.p90_ns)
    }

    pub fn p99(&self) -> Option<u64> {
        self.defined(self.p99_ns)
    }

    pub(crate) fn p999(&self) -> Option<u64> {
        self.defined(self.p999_ns)
    }

    pub fn max(&self) -> Option<u64> {
        self.defined(self.max_ns)
    }

    pub(crate) fn max_at(&self) -> Option<u64> {
        self.defined(self.max_at_ns)
    }

    /// Combines summaries whose samples are not available (reports read back from JSON):
    /// count, sum, mean, max and its time stay exact; each percentile becomes the largest
    /// of the members' (an upper bound), which the caller must flag as inexact.
    pub(crate) fn merge_upper_bound(&self, other: &Stats) -> Stats {
        if self.count == 0 {
            return *other;
        }
        if other.count == 0 {
            return *self;
        }
        let count = self.count + other.count;
        let sum = self.sum_ns.saturating_add(other.sum_ns);
        let (max_ns, max_at_ns) = if other.max_ns > self.max_ns
            || (other.max_ns == self.max_ns && other.max_at_ns < self.max_at_ns)
        {
            (other.max_ns, other.max_at_ns)
        } else {
            (self.max_ns, self.max_at_ns)
        };
        Stats {
            count,
            sum_ns: sum,
            // In u128: a saturated sum (a corrupt timestamp) must not overflow the rounding.
            mean_ns: ((u128::from(sum) + u128::from(count / 2)) / u128::from(count)) as u64,
            p50_ns: self.p50_ns.max(other.p50_ns),
            p90_ns: self.p90_ns.max(other.p90_ns),
            p99_ns: self.p99_ns.max(other.p99_ns),
            p999_ns: self.p999_ns.max(other.p999_ns),
            max_ns,
            max_at_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_past_u32_keep_their_order_and_sum() {
        let mut s = Samples::default();
        for (v, at) in [
            (5_000_000_000u64, 1),
            (3, 2),
            (u64::from(u32::MAX), 3),
            (4_294_967_296, 4),
            (7, 5),
        ] {
            s.push(v, at);
        }
        let st = s.stats();
        assert_eq!(st.count, 5);
        assert_eq!(
            st.sum_ns,
            5_000_000_000 + 3 + 4_294_967_295 + 4_294_967_296 + 7
        );
        // sorted: 3, 7, 4294967295, 4294967296, 5000000000
        assert_eq!(st.p50_ns, 4_294_967_295);
        assert_eq!(st.p90_ns, 5_000_000_000);
        assert_eq!((st.max_ns, st.max_at_ns), (5_000_000_000, 1));
        let mut merged = Samples::default();
        merged.push(1, 9);
        merged.merge(&s);
        // 1, 3, 7, 4294967295, 4294967296, 5000000000: rank ceil(0.5 * 6) = 3.
        assert_eq!(merged.stats().p50_ns, 7);
        assert_eq!(merged.stats().p90_ns, 5_000_000_000);
    }

    #[test]
    fn nearest_rank_on_ten_values() {
        let mut s = Samples::default();
        for (i, v) in [50, 10, 40, 20, 30, 100, 90, 60, 80, 70].iter().enumerate() {
            s.push(*v, i as u64);
        }
        // 10 in [8, 16), 20 30 in [16, 32), 40 50 60 in [32, 64), the rest in [64, 128).
        assert_eq!(s.log2_histogram(), [0, 0, 0, 0, 1, 2, 3, 4]);
        let st = s.stats();
        assert_eq!(st.count, 10);
        assert_eq!(st.sum_ns, 550);
        assert_eq!(st.mean_ns, 55);
        // ranks: p50 -> ceil(5) = 5th = 50; p90 -> 9th = 90; p99 -> ceil(9.9) = 10th = 100.
        assert_eq!(
            (st.p50_ns, st.p90_ns, st.p99_ns, st.p999_ns),
            (50, 90, 100, 100)
        );
        assert_eq!((st.max_ns, st.max_at_ns), (100, 5));
    }

    #[test]
    fn single_value_and_empty() {
        let mut s = Samples::default();
        assert_eq!(s.stats(), Stats::default());
        s.push(7, 3);
        let st = s.stats();
        assert_eq!(
            (st.p50_ns, st.p999_ns, st.max_ns, st.max_at_ns),
            (7, 7, 7, 3)
        );
    }

    /// Schema 2: no samples give nulls (not zeros) in JSON; both forms read back.
    #[test]
    fn no_samples_are_null_in_json_and_version_1_zeros_still_read() {
        let json = serde_json::to_value(Stats::default()).unwrap();
        assert_eq!(json["count"], 0);
        assert_eq!(json["sum_ns"], 0);
        for k in [
            "mean_ns",
            "p50_ns",
            "p90_ns",
            "p99_ns",
            "p999_ns",
            "max_ns",
            "max_at_ns",
            "max_start_ns",
        ] {
            assert!(json[k].is_null(), "{k}: {json}");
        }
        let back: Stats = serde_json::from_value(json).unwrap();
        assert_eq!(back, Stats::default());
        let v1 = r#"{"count":0,"sum_ns":0,"mean_ns":0,"p50_ns":0,"p90_ns":0,"p99_ns":0,
                     "p999_ns":0,"max_ns":0,"max_at_ns":0}"#;
        assert_eq!(serde_json::from_str::<Stats>(v1).unwrap(), Stats::default());
        let mut one = Samples::default();
        one.push(0, 5);
        assert_eq!(one.log2_histogram(), [1]);
        let mut wait = Samples::default();
        wait.push(30, 1000);
        let json = serde_json::to_value(wait.stats()).unwrap();
        assert_eq!(
            (json["max_start_ns"].as_u64(), json["max_at_ns"].as_u64()),
            (Some(970), Some(1000))
        );
        let json = serde_json::to_value(one.stats()).unwrap();
        // A real zero-length sample is 0, not null.
        assert_eq!(
            (json["max_ns"].as_u64(), json["max_at_ns"].as_u64()),
            (Some(0), Some(5))
        );
    }

    #[test]
    fn merge_keeps_exact_percentiles() {
        let mut a = Samples::default();
        let mut b = Samples::default();
        for v in 1..=500 {
            a.push(v, v);
        }
        for v in 501..=1000 {
            b.push(v, v);
        }
        a.merge(&b);
        let st = a.stats();
        assert_eq!(
            (st.count, st.p50_ns, st.p90_ns, st.p99_ns, st.p999_ns),
            (1000, 500, 900, 990, 999)
        );
        assert_eq!((st.max_ns, st.max_at_ns), (1000, 1000));
    }
}
