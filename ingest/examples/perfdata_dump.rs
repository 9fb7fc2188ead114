//! Prints what the perf.data reader makes of a file: meta, counts, rejects, timing.
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: perfdata_dump FILE");
    let bytes = ingest::input::load(path.as_ref()).expect("load");
    let start = Instant::now();
    let mut n = 0u64;
    let mut sink = |_e: &ingest::Event| n += 1;
    let res = ingest::read_bytes(&bytes, &mut sink);
    let took = start.elapsed();
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
            println!(
                "events to sink: {n}, {:.3} s, {:.2} M events/s",
                took.as_secs_f64(),
                n as f64 / took.as_secs_f64() / 1e6
            );
        }
        Err(e) => println!("ERROR: {e}"),
    }
}
