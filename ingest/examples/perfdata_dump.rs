//! Prints what the perf.data reader makes of a file: meta, counts, rejects, timing.
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: perfdata_dump FILE");
    let bytes = ingest::source::load(path.as_ref()).expect("load");
    // REPEAT=k reads k times and reports the fastest (warm page cache and mappings).
    let repeat: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut best = None;
    let mut n = 0u64;
    let mut res = None;
    // CHECKSUM=1: an order-sensitive digest of every event (to compare readers exactly).
    let checksum = std::env::var_os("CHECKSUM").is_some();
    let mut digest = 0u64;
    for _ in 0..repeat {
        n = 0;
        digest = 0;
        let start = Instant::now();
        let mut sink = |e: &ingest::Event| {
            n += 1;
            if checksum {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                format!("{e:?}").hash(&mut h);
                digest = digest.rotate_left(5) ^ h.finish();
            }
        };
        res = Some(ingest::read_releasing(&bytes, &bytes, &mut sink));
        let took = start.elapsed();
        best = Some(best.map_or(took, |b: std::time::Duration| b.min(took)));
    }
    let (res, took) = (res.unwrap(), best.unwrap());
    match res {
        Ok(ing) => {
            let mut meta = ing.meta.clone();
            let topo = meta.topology.take();
            println!("{meta:#?}");
            if let Some(t) = topo {
                println!(
                    "topology: {} cpus, {} cores, {} packages, {} dies, {} l2s, {} llcs, {} nodes",
                    t.cpus.len(),
                    t.cores.len(),
                    t.packages.len(),
                    t.dies.len(),
                    t.l2s.len(),
                    t.llcs.len(),
                    t.nodes.len()
                );
            }
            println!("{:#?}", ing.stats);
            if checksum {
                println!("event digest: {digest:016x}");
            }
            println!(
                "events to sink: {n}, {:.3} s, {:.2} M events/s",
                took.as_secs_f64(),
                n as f64 / took.as_secs_f64() / 1e6
            );
        }
        Err(e) => println!("ERROR: {e}"),
    }
}
