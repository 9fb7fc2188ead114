//! Task detail's state lane and `J`, on `cfs-6.1-vm/mi`: the lane around the task's longest
//! wait shows it waiting for exactly the stretch the report gives (`sched_delay.max_ns`
//! ending at `max_at_ns`, as `analyze --json` writes), and `J` puts the timeline there.

use super::{app, mi, press};
use crate::action::View;
use crate::print;
use crate::state::App;
use crate::ui::detail::WAIT_LANE;
use crate::ui::style::Glyphs;

const LABEL: usize = 8;

/// The detail of mi-work0 (pid 245), the task's longest wait from its report row.
fn detail_of_245() -> (App, u64, u64) {
    let mut app = app(mi());
    press(&mut app, "2/pid=245<Enter><Enter>");
    assert_eq!(app.view, View::Detail);
    let t = app.current_task().unwrap();
    assert_eq!(t.pid, 245);
    let (at, len) = (t.sched_delay.max_at_ns, t.sched_delay.max_ns);
    assert!(len > 0);
    (app, at, len)
}

/// The column of `at` in `columns` over `[start, end)` (as the lanes place time).
fn column(at: u64, start: u64, end: u64, columns: usize) -> usize {
    ((at - start) as u128 * columns as u128 / (end - start) as u128) as usize
}

#[test]
fn the_lane_around_the_longest_wait_shows_the_wait_the_report_gives() {
    let (mut app, at, len) = detail_of_245();
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    let lines: Vec<&str> = text.lines().collect();
    let title = lines
        .iter()
        .position(|l| l.starts_with(WAIT_LANE))
        .unwrap_or_else(|| panic!("no wait lane\n{text}"));
    let lane: Vec<char> = lines[title + 1].chars().collect();
    assert!(
        lines[title + 1].starts_with("245 mi-"),
        "{}",
        lines[title + 1]
    );
    // The whole-window lane of the same task is above the title.
    assert!(lines[title - 1].starts_with("245 mi-"), "{text}");
    let columns = 160 - LABEL;
    let view = app.timeline.around_wait(at, len);
    assert!(view.start <= at - len && at <= view.end);
    let (a, b) = (
        column(at - len, view.start, view.end, columns),
        column(at, view.start, view.end, columns),
    );
    // Eight times the wait is shown: it takes about an eighth of the columns.
    assert!((b - a).abs_diff(columns / 8) <= 1, "{a}..{b}");
    let cells = |range: std::ops::Range<usize>| -> String {
        range
            .map(|c| lane.get(LABEL + c).copied().unwrap_or(' '))
            .collect()
    };
    // Every column wholly inside the wait is a waiting one ('w' after a wakeup, 'p' after
    // a preemption).
    let inside = cells(a + 1..b);
    assert!(
        !inside.is_empty() && inside.chars().all(|c| c == 'w' || c == 'p'),
        "{inside:?} in {}",
        lines[title + 1]
    );
    // One wait is one state: after a wakeup or after a preemption, not both.
    let first = inside.chars().next().unwrap();
    assert!(inside.chars().all(|c| c == first), "{inside:?}");
}

#[test]
fn j_puts_the_timeline_at_the_longest_wait_with_the_tasks_lane() {
    let (mut app, at, len) = detail_of_245();
    press(&mut app, "J");
    assert_eq!(app.view, View::Timeline);
    let t = &app.timeline;
    assert!(t.start <= at - len && at < t.end, "{t:?}");
    assert_eq!(t.cursor, at);
    assert!(t.in_range());
    assert!(app.tasks.marks.contains(&245));
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    let lane = text.lines().find(|l| l.starts_with("245 mi-")).unwrap();
    assert!(lane.contains('w') || lane.contains('p'), "{lane}");
}

#[test]
fn a_json_report_has_no_state_lane_and_says_why() {
    let mut loaded = mi().clone();
    loaded.1.inputs[0].timeline = None;
    let mut app = app(&loaded);
    press(&mut app, "2/pid=245<Enter><Enter>");
    let text = print::text(&print::frame(&mut app, 160, 50, Glyphs::default()));
    assert!(text.contains("no state lane: it needs the trace"), "{text}");
}
