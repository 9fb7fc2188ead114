//! Ingest alone, for instruction counts (`bench/instructions.sh`): reads any trace the way
//! `schedtrace analyze` does (`ingest::read_path`) into a sink that only counts, and prints
//! the number of events.
use ingest::Event;

fn main() {
    let path = std::env::args().nth(1).expect("usage: read_count TRACE");
    let mut events = 0u64;
    match ingest::read_path(path.as_ref(), &mut |_: &Event| events += 1) {
        Ok(_) => println!("{events}"),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
