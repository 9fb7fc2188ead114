//! The marker table of a read, on a real trace: pipe_pinned's trace.dat holds 6 `print` markers
//! (their texts as `trace-cmd report` prints them, all distinct).
use super::*;
use crate::progress::{Progress, Tracker};
use crate::{Event, EventKind};

const TRACE: &str = "eevdf-6.18-host/pipe_pinned/trace.dat";

/// The texts of the trace's markers, in time order, from `trace-cmd report`.
fn report_texts() -> Vec<String> {
    let report = crate::source::load(&fixtures::trace(
        "eevdf-6.18-host/pipe_pinned/trace-cmd.report.txt.xz",
    ))
    .unwrap();
    String::from_utf8_lossy(&report)
        .lines()
        .filter_map(|l| {
            Some(
                l.split_once(": print:")?
                    .1
                    .split_once("tracing_mark_write: ")?
                    .1,
            )
        })
        .map(str::to_string)
        .collect()
}

/// The trace read with a marker table of `limit` bytes: what was read, and its markers in time
/// order.
fn read_with_limit(bytes: &[u8], limit: usize) -> (Ingested, Vec<Mark>) {
    let progress = Progress::new();
    let tracker = Tracker::new(&progress).with_marks(Marks::with_limit(limit));
    let mut marks = Vec::new();
    let mut sink = |e: &Event| {
        if let EventKind::Print { text } = e.kind {
            marks.push(text);
        }
    };
    let got = read_marked(tracker.marks(), &mut sink, |sink| {
        crate::read_tracked(bytes, &crate::source::KeepAll, sink, &tracker)
    })
    .unwrap();
    (got, marks)
}

/// More marker text than the table holds: every marker keeps its event; the texts that fit when
/// they are met are kept, the others dropped and counted in the ledger. trace.dat's CPUs are
/// decoded in parallel, so which texts are met first between CPUs is not fixed: checked is what
/// holds whatever the order (a text is dropped only when it did not fit in the room left, and
/// the room only shrinks), and, with room for the shortest text alone, exactly that one kept.
#[test]
fn a_full_table_keeps_the_texts_that_fit_and_counts_the_rest() {
    let bytes = crate::source::load(&fixtures::trace(TRACE)).unwrap();
    let want = report_texts();
    assert_eq!(want.len(), 6);
    let total: usize = want.iter().map(String::len).sum();
    for room in [total / 2, want.iter().map(String::len).min().unwrap()] {
        let (got, marks) = read_with_limit(&bytes, room);
        assert_eq!(marks.len(), 6, "every marker's event is kept");
        assert_eq!(got.stats.events.get("print"), Some(&6));
        let kept: Vec<usize> = (0..6).filter(|&i| !marks[i].is_dropped()).collect();
        for &i in &kept {
            assert_eq!(got.marks.text_lossy(marks[i]), want[i]);
        }
        let used: usize = kept.iter().map(|&i| want[i].len()).sum();
        assert!(used <= room, "{used} bytes kept in {room}");
        let dropped: Vec<usize> = (0..6).filter(|i| !kept.contains(i)).collect();
        for &i in &dropped {
            assert!(
                want[i].len() > room - used,
                "{:?} would have fitted",
                want[i]
            );
        }
        assert!(!kept.is_empty() && !dropped.is_empty(), "{room}: {kept:?}");
        assert_eq!(
            got.stats.rejected.get(DROPPED_REASON),
            Some(&(dropped.len() as u64))
        );
        if room < total / 2 {
            let shortest = (0..6).min_by_key(|&i| want[i].len()).unwrap();
            assert_eq!(kept, [shortest]);
        }
    }
    // With room for all, none is dropped and the ledger names none.
    let (all, marks) = read_with_limit(&bytes, MAX_TEXT_BYTES);
    let texts: Vec<String> = marks.iter().map(|&m| all.marks.text_lossy(m)).collect();
    assert_eq!(texts, want);
    assert!(!all.stats.rejected.contains_key(DROPPED_REASON));
}

/// Each read has its own table: reads one after another in one process (a TUI reloading) each
/// start empty and keep every text, whatever the reads before them met; the table a read
/// returns is the one its sink was told.
#[test]
fn every_read_starts_with_a_table_of_its_own() {
    struct Told {
        marks: Option<Marks>,
        texts: Vec<Mark>,
    }
    impl EventSink for Told {
        fn event(&mut self, e: &Event) {
            if let EventKind::Print { text } = e.kind {
                self.texts.push(text);
            }
        }
        fn marks(&mut self, marks: &Marks) {
            assert!(self.marks.is_none(), "told once");
            self.marks = Some(marks.clone());
        }
    }
    let path = fixtures::trace(TRACE);
    let want = report_texts();
    // A read whose table is full from its first marker on does not shorten the next one's.
    let bytes = crate::source::load(&path).unwrap();
    let (full, _) = read_with_limit(&bytes, 0);
    assert_eq!(full.stats.rejected.get(DROPPED_REASON), Some(&6));
    for _ in 0..3 {
        let mut told = Told {
            marks: None,
            texts: Vec::new(),
        };
        let got = crate::read_path(&path, &mut told).unwrap();
        let marks = told.marks.expect("the sink is told the table");
        let texts: Vec<String> = told.texts.iter().map(|&m| marks.text_lossy(m)).collect();
        assert_eq!(texts, want);
        assert_eq!(format!("{:?}", got.marks), format!("{marks:?}"));
        assert!(!got.stats.rejected.contains_key(DROPPED_REASON));
    }
}
