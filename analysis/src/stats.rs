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
        // The ranks among the short values come first (the indices ascend).
        let in_short = indices.iter().take_while(|&&i| i < split).count();
        let mut short_values = [0u32; 4];
        if split >= BUCKETED_FROM {
            ranks_bucketed(&self.short, &indices[..in_short], &mut short_values);
        } else {
            let mut ranks = OrderStatistics::new(&mut self.short);
            for (value, &i) in short_values.iter_mut().zip(&indices[..in_short]) {
                *value = ranks.nth(i);
            }
        }
        let mut long_ranks = OrderStatistics::new(&mut self.long);
        // In index order (`from_fn` calls it so): the long ranks ascend too.
        let [p50, p90, p99, p999]: [u64; 4] = std::array::from_fn(|k| {
            if k < in_short {
                u64::from(short_values[k])
            } else {
                long_ranks.nth(indices[k] - split)
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

/// Lists at least this long are ranked through a histogram ([`ranks_bucketed`]); shorter
/// ones by selection alone, which costs less than a histogram's fixed size there.
const BUCKETED_FROM: usize = 1 << 16;

/// Buckets of [`bucket`]: 256 single values, then 256 per power of two from 2^8 to 2^31.
const BUCKETS: usize = 25 * 256;

/// The bucket of `v` in a log-linear histogram: values below 256 one bucket each, larger
/// ones by their top nine significant bits, so that a bucket spans less than 1/256 of its
/// values. Monotone: a larger value never falls in an earlier bucket.
#[inline]
fn bucket(v: u32) -> usize {
    if v < 256 {
        return v as usize;
    }
    let e = 31 - v.leading_zeros(); // 8..=31
    let top = (v >> (e - 8)) as usize; // 256..=511
    (e as usize - 7) * 256 + (top - 256)
}

/// The values of sorted ranks `ranks` (ascending, each below `values.len()`) of `values`,
/// which stay in their order, into `out` (one per rank). One pass counts the values per [`bucket`], which tells the
/// bucket of each rank and its rank within; a second gathers those buckets' values, and
/// selection among them gives the answer. Two linear passes, where selection over the
/// whole list partitions it several times for four ranks.
fn ranks_bucketed(values: &[u32], ranks: &[usize], out: &mut [u32]) {
    let mut counts = vec![0usize; BUCKETS];
    for &v in values {
        counts[bucket(v)] += 1;
    }
    // Each rank's (bucket, rank within the bucket).
    let mut targets = Vec::with_capacity(ranks.len());
    let (mut below, mut b) = (0, 0);
    for &r in ranks {
        while below + counts[b] <= r {
            below += counts[b];
            b += 1;
        }
        targets.push((b, r - below));
    }
    let mut wanted: Vec<usize> = targets.iter().map(|&(b, _)| b).collect();
    wanted.dedup();
    let mut gathered: Vec<Vec<u32>> = wanted
        .iter()
        .map(|&b| Vec::with_capacity(counts[b]))
        .collect();
    if let (Some(&first), Some(&last)) = (wanted.first(), wanted.last()) {
        for &v in values {
            let k = bucket(v);
            if k < first || k > last {
                continue;
            }
            if let Some(i) = wanted.iter().position(|&w| w == k) {
                gathered[i].push(v);
            }
        }
    }
    for (value, &(b, within)) in out.iter_mut().zip(&targets) {
        let i = wanted.iter().position(|&w| w == b).unwrap_or_default();
        *value = *gathered[i].select_nth_unstable(within).1;
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

    /// The buckets never go down as values go up, and cover every u32 below `BUCKETS`.
    #[test]
    fn buckets_are_monotone() {
        let edges = (0..32).flat_map(|e| {
            let p = 1u64 << e;
            [p - 1, p, p + 1, 3 * p / 2].map(|v| v.min(u64::from(u32::MAX)) as u32)
        });
        let mut values: Vec<u32> = edges.chain([u32::MAX, 255, 256, 511, 512]).collect();
        values.sort_unstable();
        for w in values.windows(2) {
            assert!(bucket(w[0]) <= bucket(w[1]), "{} {}", w[0], w[1]);
        }
        assert_eq!(bucket(255) + 1, bucket(256));
        assert_eq!(bucket(u32::MAX), BUCKETS - 1);
    }

    /// The bucketed ranks against a full sort, on lists of several shapes: small values,
    /// every magnitude, one value repeated, two clusters.
    #[test]
    fn bucketed_ranks_are_the_sorted_lists_ranks() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let n = 70_000;
        let shapes: Vec<Vec<u32>> = vec![
            (0..n).map(|_| (next() % 300) as u32).collect(),
            (0..n).map(|_| (next() >> (next() % 64)) as u32).collect(),
            vec![4_000; n],
            (0..n)
                .map(|_| {
                    if next() % 10 == 0 {
                        9_000_000 + (next() % 7) as u32
                    } else {
                        2_500
                    }
                })
                .collect(),
        ];
        for values in shapes {
            let mut sorted = values.clone();
            sorted.sort_unstable();
            let ranks = [0, 1, n / 2, n * 9 / 10, n * 99 / 100, n * 999 / 1000, n - 1];
            let mut got = vec![0; ranks.len()];
            ranks_bucketed(&values, &ranks, &mut got);
            let want: Vec<u32> = ranks.iter().map(|&r| sorted[r]).collect();
            assert_eq!(got, want);
            // And through `stats` (bucketed at this size), nearest rank.
            let mut s = Samples::default();
            values.iter().for_each(|&v| s.push(u64::from(v), 1));
            let st = s.stats();
            let rank = |p: usize| sorted[(p * n).div_ceil(1000).max(1) - 1];
            assert_eq!(
                [st.p50_ns, st.p90_ns, st.p99_ns, st.p999_ns],
                [500, 900, 990, 999].map(|p| u64::from(rank(p)))
            );
        }
    }

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
