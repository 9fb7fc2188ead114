//! The inputs of an export, analysed a few at a time on plain threads (one per core).
//!
//! Not rayon's pool, as before: a rayon worker that waits inside another pool — polars
//! writes each Parquet row group through its own rayon pool — takes other jobs of its
//! pool meanwhile, so it started the next input's analysis on top of the one it was
//! writing, and those nested on one stack, each holding its trace and its analysis (a
//! heap profile of a fleet of 56 labels showed four inputs on one stack). Memory then
//! grew with the number of inputs: 975 MB for 200 labels of the 14 VM captures. A thread
//! here takes the next input only when it is done with one.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `work(i)` for every `i` in `0..n`, at most one per core at a time; the results in order.
pub(crate) fn each<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |p| p.get())
        .min(n);
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return mine;
                        }
                        mine.push((i, work(i)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_once_in_order_and_never_more_at_once_than_cores() {
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let out = each(50, |i| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(1));
            running.fetch_sub(1, Ordering::SeqCst);
            i * 2
        });
        assert_eq!(out, (0..50).map(|i| i * 2).collect::<Vec<_>>());
        let cores = std::thread::available_parallelism().unwrap().get();
        assert!(most.load(Ordering::SeqCst) <= cores);
        assert!(each(0, |i| i).is_empty());
    }
}
