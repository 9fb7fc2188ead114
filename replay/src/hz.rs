//! The traced kernel's tick rate, which no trace format records. With the tick ending
//! slices (CFS, EEVDF without HRTICK), runnable tasks are switched out by the tick, so those
//! switch-outs fall on one grid per CPU: their times modulo the tick period bunch up. For
//! each common rate, from the slowest, the bunching is measured as the length of the mean
//! unit vector of the phases (1: all on one point, ~0: spread); the slowest rate whose
//! phases bunch is the tick (a 250 Hz grid is also a 1000 Hz grid, not the other way). A
//! kernel whose slices end by hrtimer (Project C) gives no grid, and then the rate is
//! assumed: a guess said as one. A recording's sidecar says the rate (`record` reads the
//! kernel's `CONFIG_HZ`) and comes before the detection; `--hz` before both.

use crate::demand::{Hz, HzSource};

/// Rates tried, slowest first (the kernel's `CONFIG_HZ` choices).
const RATES: [u32; 4] = [100, 250, 300, 1000];
/// Fewest runnable switch-outs on one CPU for its phases to count.
const MIN_SAMPLES: usize = 20;
/// Bunching above which a grid is taken as found. The VM captures (emulated, their ticks
/// late by up to 2 ms) give 0.47-0.66 at their 250 Hz and at most 0.13 at 100 or 300 Hz;
/// PDS, whose slices end by hrtimer, at most 0.11 at any rate; spread times about 1/sqrt(n).
const BUNCHED: f64 = 0.4;
/// Debian's `CONFIG_HZ` on x86-64, the fixtures' stock kernels.
pub(crate) const ASSUMED: u32 = 250;

/// The tick rate: `given`, else `recorded` (the recording's sidecar), else detected from
/// `(cpu, time)` runnable switch-outs, else [`ASSUMED`].
pub(crate) fn tick_rate(
    given: Option<u32>,
    recorded: Option<u32>,
    preemptions: &[(u32, u64)],
) -> Hz {
    if let Some(value) = given {
        return Hz {
            value,
            source: HzSource::Given,
        };
    }
    if let Some(value) = recorded {
        return Hz {
            value,
            source: HzSource::Recorded,
        };
    }
    match detect(preemptions) {
        Some(value) => Hz {
            value,
            source: HzSource::Detected,
        },
        None => Hz {
            value: ASSUMED,
            source: HzSource::Assumed,
        },
    }
}

/// The slowest rate whose grid the switch-outs fall on, if any.
fn detect(preemptions: &[(u32, u64)]) -> Option<u32> {
    RATES
        .into_iter()
        .find(|&hz| bunching(preemptions, 1_000_000_000 / hz as u64).is_some_and(|b| b > BUNCHED))
}

/// The phases' bunching for `period`, weighted over the CPUs with enough samples (each CPU
/// has its own tick phase); None when no CPU has enough.
fn bunching(preemptions: &[(u32, u64)], period: u64) -> Option<f64> {
    let mut sums: std::collections::BTreeMap<u32, (f64, f64, usize)> = Default::default();
    for &(cpu, ts) in preemptions {
        let angle = (ts % period) as f64 / period as f64 * std::f64::consts::TAU;
        let s = sums.entry(cpu).or_default();
        s.0 += angle.cos();
        s.1 += angle.sin();
        s.2 += 1;
    }
    let (mut weighted, mut total) = (0.0, 0usize);
    for (x, y, n) in sums.into_values().filter(|s| s.2 >= MIN_SAMPLES) {
        weighted += (x * x + y * y).sqrt();
        total += n;
    }
    (total > 0).then(|| weighted / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Switch-outs on `hz`'s grid with a phase per CPU and a few µs of handler jitter.
    fn on_grid(hz: u64, n: u64) -> Vec<(u32, u64)> {
        let period = 1_000_000_000 / hz;
        (0..n)
            .flat_map(|k| {
                let jitter = (k * 7919) % 6_000;
                [
                    (0, 5_000_000_000 + k * 3 * period + jitter),
                    (1, 5_000_000_000 + 123_456 + k * 2 * period + jitter),
                ]
            })
            .collect()
    }

    #[test]
    fn the_slowest_grid_is_the_tick() {
        assert_eq!(detect(&on_grid(250, 100)), Some(250));
        assert_eq!(detect(&on_grid(1000, 100)), Some(1000));
        assert_eq!(detect(&on_grid(100, 100)), Some(100));
    }

    #[test]
    fn no_grid_no_rate() {
        // Times spread evenly (slices ended by a timer of their own).
        let spread: Vec<(u32, u64)> = (0..500).map(|k| (0, k * 1_234_567)).collect();
        assert_eq!(detect(&spread), None);
        assert_eq!(tick_rate(None, None, &spread).source, HzSource::Assumed);
        assert_eq!(detect(&on_grid(250, 5)), None, "too few samples");
        assert_eq!(tick_rate(Some(300), None, &[]).value, 300);
    }

    #[test]
    fn given_then_recorded_then_detected() {
        let grid = on_grid(250, 100);
        let rate = |given, recorded| {
            let hz = tick_rate(given, recorded, &grid);
            (hz.value, hz.source)
        };
        assert_eq!(rate(Some(300), Some(1000)), (300, HzSource::Given));
        assert_eq!(rate(None, Some(1000)), (1000, HzSource::Recorded));
        assert_eq!(rate(None, None), (250, HzSource::Detected));
    }
}
