//! Prints the text report (or JSON with `--json`) of one trace: `cargo run -p
//! schedtrace-analysis --example analyze -- TRACE [--json]`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: analyze TRACE [--json]");
        std::process::exit(2);
    };
    let mut analyzer = analysis::Analyzer::new(analysis::Config::default());
    let started = std::time::Instant::now();
    let ingested = match ingest::read_path(path.as_ref(), &mut analyzer) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let report = analyzer.finish(&ingested, path);
    eprintln!("analyzed in {:?}", started.elapsed());
    if args.iter().any(|a| a == "--json") {
        println!("{}", serde_json::to_string_pretty(&report).unwrap());
    } else {
        print!("{}", render::report(&report, &Default::default()));
    }
}
