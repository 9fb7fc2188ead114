//! Stage 3 of the what-if replay: every workload of the fixtures, every ordered pair of the
//! kernels that ran it (A → B): B's model on A's capture, against B's real capture, and
//! against the null prediction "B behaves like A". The table it computes is the one in
//! docs/replay-validation.md (checked here; `SCHEDTRACE_BLESS=1` rewrites it), and the
//! issue's aims are its bounds.
//!
//! `cargo test -p schedtrace-replay --test validation -- --nocapture` prints the table.

mod aims;
mod cases;
mod errors;
mod losses;
mod measure;
mod table;

use cases::WORKLOADS;
use measure::Pair;

/// A generated part of a document: between its two markers.
struct Generated {
    path: &'static str,
    begin: &'static str,
    end: &'static str,
}

const TABLE: Generated = Generated {
    path: concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/replay-validation.md"),
    begin: "<!-- validation table: written by replay/tests/validation -->\n",
    end: "<!-- end of the validation table -->",
};
const SUMMARY: Generated = Generated {
    path: concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"),
    begin: "<!-- replay summary: written by replay/tests/validation -->\n",
    end: "<!-- end of the replay summary -->",
};

fn all_pairs() -> Vec<Pair> {
    let dir = std::env::temp_dir().join(format!("schedtrace-validation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pairs = WORKLOADS
        .iter()
        .flat_map(|w| measure::pairs(w, &dir))
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    pairs
}

impl Generated {
    /// Checks that the document holds `text` between the markers; rewrites it instead
    /// under `SCHEDTRACE_BLESS`.
    fn check(&self, text: &str) {
        let doc = std::fs::read_to_string(self.path).unwrap();
        let start = doc
            .find(self.begin)
            .unwrap_or_else(|| panic!("{}: no marker {:?}", self.path, self.begin))
            + self.begin.len();
        let end = doc[start..]
            .find(self.end)
            .unwrap_or_else(|| panic!("{}: no marker {:?}", self.path, self.end))
            + start;
        let want = format!("{}{text}{}", &doc[..start], &doc[end..]);
        if want == doc {
            return;
        }
        if std::env::var_os("SCHEDTRACE_BLESS").is_some() {
            std::fs::write(self.path, &want).unwrap();
        } else {
            panic!(
                "{}: the validation's text there is stale: run with SCHEDTRACE_BLESS=1",
                self.path
            );
        }
    }
}

#[test]
fn validation_table() {
    let pairs = all_pairs();
    let table = format!(
        "{}\n{}\n{}",
        table::markdown(&pairs),
        aims::markdown(),
        losses::markdown(&pairs)
    );
    println!("{table}");
    for p in &pairs {
        for (m, roles) in measure::METRICS.iter().zip(&p.values) {
            for r in roles {
                println!(
                    "{} {}->{} {} {}: real {:?} predicted {:?} null {:?}",
                    p.workload,
                    p.from.model.as_str(),
                    p.to.model.as_str(),
                    m.key,
                    r.role,
                    r.real,
                    r.predicted,
                    r.null
                );
            }
        }
    }
    let mut problems = aims::check(&pairs);
    problems.extend(losses::check(&pairs));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    TABLE.check(&table);
    SUMMARY.check(&table::summary(&pairs, aims::MISSES.len()));
}
