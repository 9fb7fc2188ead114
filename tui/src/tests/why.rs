//! Why a task waited in the TUI, on the real `mi` captures: the detail's section shows the
//! report's `wait_causes` of the task, `o` / `O` step through its occupants and put the
//! timeline at the longest wait's piece behind one, and Enter on a Compare task row shows
//! the role's explanation across runs (the sentences of `compare --explain`).

use super::{app, mi, mi_compare, press};
use crate::action::View;
use crate::print;
use crate::state::compare::Line as CompareLine;
use crate::ui::style::Glyphs;
use analysis::PieceKind;

#[test]
fn the_detail_shows_the_task_s_wait_causes_from_its_report_row() {
    let mut app = app(mi());
    press(&mut app, "2/pid=248<Enter><Enter>");
    let w = app.current_task().unwrap().wait_causes.clone();
    assert_eq!(w.total_ns(), app.current_task().unwrap().sched_delay.sum_ns);
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    let ms = |ns: u64| format!("{:.3} ms", ns as f64 / 1e6);
    let head = format!("why it waited: {}", ms(w.total_ns()));
    assert!(text.contains(&head), "{head} in\n{text}");
    assert!(text.contains(&format!("behind {}", ms(w.behind_ns))));
    // The occupants with their time, the first selected.
    for (i, b) in w.behind.iter().take(4).enumerate() {
        let mark = if i == 0 { ">" } else { " " };
        let want = format!(" {mark} {} ({})", b.comm, b.pid.unwrap());
        let line = text
            .lines()
            .find(|l| l.starts_with(&want))
            .unwrap_or_else(|| panic!("{want}\n{text}"));
        assert!(line.contains(&ms(b.ns)), "{line}");
    }
    let e = &w.ended_by;
    assert!(text.contains(&format!(
        "ended: preempting {}  blocked {}  preempted {}",
        e.wakeup_preemption, e.occupant_blocked, e.occupant_preempted
    )));
}

#[test]
fn o_selects_an_occupant_and_capital_o_shows_its_piece_of_the_longest_wait() {
    let mut app = app(mi());
    press(&mut app, "2/pid=248<Enter><Enter>");
    let t = app.current_task().unwrap().clone();
    let longest = t.wait_causes.longest.clone().unwrap();
    press(&mut app, "o");
    let (pid, _) = app.selected_occupant().unwrap();
    assert_eq!(Some(pid), t.wait_causes.behind[1].pid);
    press(&mut app, "O");
    assert_eq!(app.view, View::Timeline);
    let piece = longest
        .segments
        .iter()
        .find(|s| s.kind == PieceKind::Behind && s.pid == Some(pid))
        .expect("the second occupant ran during the spinner's longest wait");
    let tl = &app.timeline;
    assert_eq!(tl.cursor, piece.start_ns);
    assert!(
        tl.start <= longest.start_ns && longest.end_ns <= tl.end,
        "{tl:?}"
    );
    assert!(tl.in_range());
    assert!(app.tasks.marks.contains(&248) && app.tasks.marks.contains(&pid));
    // Both lanes are drawn.
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    assert!(text.lines().any(|l| l.starts_with("248 mi-")), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with(&format!("{pid} mi-"))),
        "{text}"
    );
}

#[test]
fn enter_on_a_compare_role_shows_its_explanation_across_runs() {
    let mut app = app(mi_compare());
    let c = app.compare.comparison().unwrap().clone();
    let at = app
        .compare
        .lines
        .iter()
        .position(|l| matches!(l, CompareLine::Task { task, .. } if c.tasks.tasks[*task].name == "mi-spin"))
        .unwrap();
    app.cursor[View::Compare.index()] = at;
    press(&mut app, "<Enter>");
    let (_, lines) = app.popup.clone().expect("a popup");
    let s = c
        .explain
        .as_ref()
        .unwrap()
        .subjects
        .iter()
        .find(|s| s.subject == "mi-spin")
        .unwrap();
    let ch = s.changes.iter().find(|ch| ch.label == "eevdf").unwrap();
    let sentence = render::compare::why::sentence(&c, s, ch);
    // The popup wraps the sentence; joined again it is the same text.
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with("eevdf vs cfs: mi-spin waited"))
        .unwrap();
    let mut joined = lines[start].trim().to_string();
    for l in lines[start + 1..]
        .iter()
        .take_while(|l| l.starts_with("    "))
    {
        joined.push(' ');
        joined.push_str(l.trim());
    }
    assert_eq!(joined, sentence);
    // Each run's wait by kind follows the sentences.
    let cfs = lines[start..]
        .iter()
        .find(|l| l.trim_start().starts_with("cfs "))
        .unwrap();
    assert!(
        cfs.contains(&format!(
            "{:.3} ms",
            s.runs[0].wait_ns.unwrap() as f64 / 1e6
        )),
        "{cfs}"
    );
}
