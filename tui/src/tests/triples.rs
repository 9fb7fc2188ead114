//! The wakeup-preemption view's triples on `cfs-6.1-vm/mi`: every triple of the report (not
//! only the ten in `top_triples`), sorted and filtered with the Tasks table's keys; the
//! expected rows are computed from the report's `triples` (what `analyze --json` writes).

use super::{app, mi, press};
use crate::action::View;
use crate::print;
use crate::state::App;
use crate::ui::{fmt, style::Glyphs};
use analysis::report::Triple;

fn all(app: &App) -> Vec<Triple> {
    app.input()
        .unwrap()
        .report
        .system
        .wakeup_preemption
        .triples
        .clone()
}

fn shown(app: &App) -> Vec<Triple> {
    let all = all(app);
    app.triples.rows.iter().map(|&i| all[i].clone()).collect()
}

#[test]
fn every_triple_is_listed_most_frequent_first_and_drawn() {
    let mut app = app(mi());
    press(&mut app, "5");
    assert_eq!(app.view, View::Preemptions);
    let triples = all(&app);
    let top = &app
        .input()
        .unwrap()
        .report
        .system
        .wakeup_preemption
        .top_triples;
    assert!(triples.len() > top.len(), "{} triples", triples.len());
    assert_eq!(shown(&app), triples);
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    assert!(
        text.contains(&format!("{n} of {n} triples", n = triples.len())),
        "{text}"
    );
    // Every triple is on screen with its count and times.
    for t in &triples {
        let line = text
            .lines()
            .find(|l| {
                let words: Vec<&str> = l.split_whitespace().collect();
                words.len() >= 6
                    && words[..4] == [&t.count.to_string(), &*t.waker, &*t.wakee, &*t.victim][..]
            })
            .unwrap_or_else(|| panic!("{t:?}\n{text}"));
        assert!(line.contains(&fmt::secs(t.first_ns)) && line.contains(&fmt::secs(t.last_ns)));
    }
    press(&mut app, "G");
    assert_eq!(app.selected(), triples.len() - 1);
}

#[test]
fn triples_sort_with_the_tasks_keys() {
    let mut app = app(mi());
    press(&mut app, "5>");
    let wakers: Vec<String> = shown(&app).into_iter().map(|t| t.waker).collect();
    assert!(wakers.windows(2).all(|w| w[0] <= w[1]), "{wakers:?}");
    let before = shown(&app);
    press(&mut app, "I");
    let mut after = shown(&app);
    after.reverse();
    assert_eq!(after, before);
    press(&mut app, ":sort last asc<Enter>");
    assert!(app.status.is_none(), "{:?}", app.status);
    let last: Vec<u64> = shown(&app).iter().map(|t| t.last_ns).collect();
    assert!(last.windows(2).all(|w| w[0] <= w[1]), "{last:?}");
    press(&mut app, "<<");
    assert_eq!(
        crate::state::triples::TRIPLE_COLUMNS[app.triples.sort].key,
        "victim"
    );
    // The Tasks table's order is untouched by all this.
    assert_eq!(crate::columns::COLUMNS[app.tasks.sort].key, "runtime");
}

#[test]
fn triples_filter_by_name_and_count_and_esc_clears() {
    let mut app = app(mi());
    let triples = all(&app);
    let expect = |keep: &dyn Fn(&Triple) -> bool| -> Vec<Triple> {
        triples.iter().filter(|t| keep(t)).cloned().collect()
    };
    let spin = |t: &Triple| {
        [&t.waker, &t.wakee, &t.victim]
            .iter()
            .any(|n| n.contains("mi-spin"))
    };
    press(&mut app, "5/mi-spin<Enter>");
    let with_spin = expect(&spin);
    assert!(!with_spin.is_empty() && with_spin.len() < triples.len());
    assert_eq!(shown(&app), with_spin);
    press(&mut app, "/!mi-spin<Enter>");
    assert_eq!(shown(&app), expect(&|t| !spin(t)));
    press(&mut app, "/count>10 mi-work<Enter>");
    let big = expect(&|t| {
        t.count > 10
            && [&t.waker, &t.wakee, &t.victim]
                .iter()
                .any(|n| n.contains("mi-work"))
    });
    assert!(!big.is_empty());
    assert_eq!(shown(&app), big);
    // Tasks-only predicates are errors here, and change nothing.
    press(&mut app, "/cpu=1<Enter>");
    let status = app.status.clone().unwrap();
    assert!(
        status.error && status.text.contains("unknown field `cpu`"),
        "{status:?}"
    );
    assert_eq!(shown(&app), big);
    press(&mut app, "<Esc>");
    assert_eq!(shown(&app), triples);
    assert_eq!(app.view, View::Preemptions);
    // The Tasks filter is its own.
    assert!(app.tasks.filter.is_none());
}
