//! The fuzz targets' bodies (`fuzz/bodies.rs`) on stable, as CI's smoke run: every target over
//! the regression inputs of `fuzz/regressions`, the head of every trace in `fixtures/`, and a
//! fixed set of byte-flipped and truncated variants of them (deterministic, so a failure
//! reproduces). `cargo +nightly fuzz run TARGET` explores from the same seeds (fuzz/README.md).

#[path = "../../fuzz/bodies.rs"]
mod bodies;

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Seeds are cut to this many bytes: the smoke run must stay within seconds.
const SEED_BYTES: usize = 96 << 10;
const VARIANTS: u64 = 6;

fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut seeds = Vec::new();
    for dir in ["fuzz/regressions", "fixtures", "fixtures/perfdata"] {
        let mut paths: Vec<_> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".sh") || name.ends_with(".py") || name.ends_with(".md") {
                continue;
            }
            let raw = std::fs::read(&path).unwrap();
            let mut bytes = Vec::new();
            if name.ends_with(".xz") {
                xz2::read::XzDecoder::new(&raw[..])
                    .take(SEED_BYTES as u64)
                    .read_to_end(&mut bytes)
                    .unwrap();
            } else {
                bytes = raw;
                bytes.truncate(SEED_BYTES);
            }
            seeds.push((format!("{dir}/{name}"), bytes));
        }
    }
    seeds
}

/// A deterministic variant `k` of `seed`: a few bytes overwritten, sometimes cut short.
fn variant(seed: &[u8], k: u64) -> Vec<u8> {
    let mut v = seed.to_vec();
    if v.is_empty() {
        return v;
    }
    let mut x = 0x2545_f491_4f6c_dd1d ^ (k + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..1 + next() % 8 {
        let at = (next() % v.len() as u64) as usize;
        v[at] = next() as u8;
    }
    if k % 3 == 2 {
        let keep = (next() % v.len() as u64) as usize;
        v.truncate(keep);
    }
    v
}

#[test]
fn every_target_survives_the_seeds_and_their_variants() {
    let seeds = seeds();
    assert!(seeds.len() >= 10, "{} seeds", seeds.len());
    let start = Instant::now();
    let mut runs = 0;
    for (target, body) in bodies::TARGETS {
        for (name, seed) in &seeds {
            for k in 0..=VARIANTS {
                let input = if k == 0 {
                    seed.clone()
                } else {
                    variant(seed, k)
                };
                let t = Instant::now();
                body(&input);
                runs += 1;
                assert!(
                    t.elapsed() < Duration::from_secs(2),
                    "{target} on {name} variant {k}: {:?}",
                    t.elapsed()
                );
            }
        }
    }
    eprintln!("{runs} runs in {:?}", start.elapsed());
}
