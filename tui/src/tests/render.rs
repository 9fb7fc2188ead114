//! Frames drawn with ratatui's `TestBackend`: a snapshot of every view at 160×50 and
//! 80×24 (insta; snapshots keep no colours, so styles are asserted on the cells), and
//! numbers only a real analysis gives, read from the report or comparison model of the
//! same files (what `analyze --json` / `compare --json` write).

use super::{app, load, mi, mi_compare, press, trace};
use crate::action::View;
use crate::print;
use crate::state::App;
use crate::ui::{fmt, style::Glyphs};
use ratatui::buffer::Buffer;
use ratatui::style::Color;

const SIZES: [(u16, u16); 2] = [(160, 50), (80, 24)];

fn draw(app: &mut App, (w, h): (u16, u16)) -> (Buffer, String) {
    let buffer = print::frame(app, w, h, Glyphs::default());
    let text = print::text(&buffer);
    (buffer, text)
}

/// Where `needle` starts on screen (x, y), by cell.
fn find(buffer: &Buffer, needle: &str) -> Option<(u16, u16)> {
    let text = print::text(buffer);
    for (y, line) in text.lines().enumerate() {
        if let Some(byte) = line.find(needle) {
            let x = line[..byte].chars().count() as u16;
            return Some((x, y as u16));
        }
    }
    None
}

#[test]
fn every_view_of_mi_at_both_sizes() {
    for view in View::ALL {
        for size in SIZES {
            let mut app = app(mi());
            // Detail shows the selected task: the first of the tasks table.
            press(&mut app, "2");
            app.apply(crate::action::Action::Show(view));
            let (_, text) = draw(&mut app, size);
            insta::assert_snapshot!(
                format!("mi_view_{}_{}x{}", view.name(), size.0, size.1),
                text
            );
        }
    }
}

#[test]
fn compare_of_four_mi_runs_at_both_sizes() {
    for size in SIZES {
        let mut app = app(mi_compare());
        let (_, text) = draw(&mut app, size);
        insta::assert_snapshot!(
            format!("mi_cfs_eevdf_pds_compare_{}x{}", size.0, size.1),
            text
        );
    }
}

#[test]
fn help_and_too_small() {
    let mut app = app(mi());
    press(&mut app, "?");
    let (_, text) = draw(&mut app, (160, 50));
    for b in crate::keymap::BINDINGS {
        assert!(text.contains(b.help), "{} not on the help screen", b.help);
    }
    // Drawing in a single cell must not panic either.
    draw(&mut app, (1, 1));
    for size in [(59, 30), (100, 15), (30, 8)] {
        let (_, text) = draw(&mut app, size);
        assert!(
            text.replace('\n', " ")
                .replace("  ", " ")
                .contains("terminal too small"),
            "{size:?}: {text}"
        );
    }
}

#[test]
fn overview_shows_kernel_window_and_jain_of_the_analysis() {
    let mut app = app(mi());
    let r = app.input().unwrap().report.clone();
    for size in SIZES {
        let (_, text) = draw(&mut app, size);
        let kernel = r.source.kernel_release.as_deref().unwrap();
        assert_eq!(kernel, "6.1.0-57-amd64");
        assert!(text.contains(kernel), "{text}");
        assert!(text.contains(&fmt::secs(r.window.start_ns)), "{text}");
    }
    let (_, text) = draw(&mut app, (160, 50));
    let jain = format!("{:.4}", r.system.fairness.jain.unwrap());
    let line = text
        .lines()
        .find(|l| l.starts_with("Jain's index"))
        .unwrap();
    assert!(line.contains(&jain), "{line} vs {jain}");
    assert!(text.contains(&format!(
        "{} s .. {} s",
        fmt::secs(r.window.start_ns),
        fmt::secs(r.window.end_ns)
    )));
}

/// The change cell of `label` on metric `key`, as drawn: its text and colour.
fn change_cell(app: &mut App, key: &str, label: &str) -> (String, Option<Color>) {
    let c = app.compare.comparison().unwrap().clone();
    let row = c.system.iter().find(|r| r.key == key).unwrap();
    let cell = row.cells.iter().find(|c| c.label == label).unwrap();
    let text = format!(
        "{:+.1} {}",
        cell.change_pct.unwrap(),
        cell.flag.as_deref().unwrap()
    );
    let line = app
        .compare
        .lines
        .iter()
        .position(|l| {
            matches!(l, crate::state::compare::Line::System { row, cell: k }
            if c.system[*row].key == key && c.system[*row].cells[*k].label == label)
        })
        .unwrap();
    // Select the row so it is on screen, then look at the cells of its change column.
    app.cursor[View::Compare.index()] = line;
    let (buffer, _) = draw(app, (160, 50));
    let (x, y) = find(&buffer, &text).unwrap_or_else(|| panic!("{text} not drawn"));
    let fg = buffer[(x, y)].fg;
    // The symbol stays beside the number, for monochrome terminals.
    assert_eq!(
        buffer[(x + text.chars().count() as u16 - 1, y)].symbol(),
        cell.flag.as_deref().unwrap()
    );
    (text, Some(fg))
}

#[test]
fn compare_colours_improvements_green_and_regressions_red() {
    let mut app = app(mi_compare());
    // The numbers (+54.9 ^ and -53.8 * today) come from the comparison itself. Context
    // switches per second, the red example, became a neutral row with the compare
    // issue (a rate describes the workload): PDS's wakeup-preemption rate is the regression.
    let (p50, colour) = change_cell(&mut app, "wakeup_latency_p50", "eevdf");
    assert!(p50.starts_with('+') && p50.ends_with('^'), "{p50}");
    assert_eq!(colour, Some(Color::Green));
    let (pre, colour) = change_cell(&mut app, "wakeup_preemptions_per_sec", "pds");
    assert!(pre.starts_with('-') && pre.ends_with('*'), "{pre}");
    assert_eq!(colour, Some(Color::Red));
}

#[test]
fn bmq_nice_fairness_shows_the_lag_of_nice5() {
    let loaded = load(&[trace("bmq-6.1-vm/nice/trace-v6.dat.xz")
        .display()
        .to_string()]);
    let mut app = app(&loaded);
    press(&mut app, "6");
    let r = &app.input().unwrap().report;
    let nice5 = r.tasks.iter().find(|t| t.comm == "nice5").unwrap();
    let lag = fmt::ms_f(nice5.fairness.unwrap().max_abs_lag_ns);
    assert_eq!(lag, "740.312");
    let label = crate::columns::task_label(nice5);
    let (_, text) = draw(&mut app, (160, 50));
    let line = text.lines().find(|l| l.starts_with(&label)).unwrap();
    assert!(line.trim_end().ends_with(&lag), "{line}");
    insta::assert_snapshot!("bmq_nice_fairness_160x50", text);
}

#[test]
fn quality_of_the_pinned_pipe_shows_its_csw_bugs() {
    let loaded = load(&[trace("eevdf-6.18-host/pipe_pinned/trace.dat")
        .display()
        .to_string()]);
    let mut app = app(&loaded);
    press(&mut app, "9");
    let bugs = app
        .input()
        .unwrap()
        .report
        .quality
        .context_switch_bugs_total();
    assert_eq!(bugs, 9);
    for size in SIZES {
        let (_, text) = draw(&mut app, size);
        assert!(
            text.contains(&format!("context switch bugs {bugs}")),
            "{text}"
        );
        // The badge says so on every screen.
        assert!(
            text.lines()
                .next()
                .unwrap()
                .contains(&format!("{bugs} csw bugs")),
            "{text}"
        );
    }
}

#[test]
fn the_tasks_table_builds_only_visible_rows_and_keeps_the_selection_on_screen() {
    let mut app = app(mi());
    press(&mut app, "2G");
    let last = app.current_task().map(crate::columns::task_label).unwrap();
    let (_, text) = draw(&mut app, (80, 16));
    assert!(text.contains(&last), "{text}");
    let first = {
        press(&mut app, "g");
        app.current_task().map(crate::columns::task_label).unwrap()
    };
    press(&mut app, "G");
    let (_, text) = draw(&mut app, (80, 16));
    assert!(
        !text.contains(&first),
        "the first row scrolled away at 16 lines: {text}"
    );
}

#[test]
fn ascii_frames_are_plain_ascii() {
    let mut app = app(mi());
    let ascii = Glyphs { ascii: true };
    let check = |app: &mut App, what: &str| {
        let text = print::text(&print::frame(app, 160, 50, ascii));
        let odd: String = text.chars().filter(|c| !c.is_ascii()).collect();
        assert!(odd.is_empty(), "{what}: {odd:?}\n{text}");
    };
    press(&mut app, "2");
    for view in View::ALL {
        app.apply(crate::action::Action::Show(view));
        check(&mut app, view.name());
    }
    press(&mut app, "?");
    check(&mut app, "help");
    let mut loading = App::new(mi().0.clone(), crate::state::Restore::default());
    check(&mut loading, "loading");
    let text = print::text(&print::frame(&mut loading, 30, 8, ascii));
    assert!(text.contains("60x16"), "{text}");
}

#[test]
fn timeline_of_mi_at_100_columns_is_busy_on_cpu_1_only() {
    let mut app = app(mi());
    press(&mut app, "4");
    let report = &app.input().unwrap().report;
    let util: Vec<(u32, f64)> = report.cpus.iter().map(|c| (c.cpu, c.utilization)).collect();
    assert_eq!(format!("{:.1}", util[1].1 * 100.0), "97.7");
    let width = 100 + crate::ui::timeline_label_width();
    let (_, text) = draw(&mut app, (width, 40));
    for (cpu, u) in util {
        let label = format!("CPU {cpu}");
        let line = text
            .lines()
            .find(|l| *l == label || l.starts_with(&format!("{label} ")))
            .unwrap_or_else(|| panic!("{label}\n{text}"));
        let lane: Vec<char> = line
            .chars()
            .skip(crate::ui::timeline_label_width() as usize)
            .collect();
        let busy = lane.iter().filter(|c| **c != ' ').count();
        if u > 0.9 {
            assert!(busy >= 95, "{label} ({u}): {busy} busy cells\n{line}");
        } else {
            assert!(busy <= 5, "{label} ({u}): {busy} busy cells\n{line}");
        }
    }
    insta::assert_snapshot!("mi_timeline_108x40", text);
}

/// A predicted run (`schedtrace replay --as`, whose release says `predicted`) says so in
/// its label and in the header. An ftrace text capture has no release of its own, so
/// `--kernel-release` gives it the predicted one.
#[test]
fn a_predicted_run_says_predicted() {
    let path = fixtures::file("ftrace-6.18-pingpong.trace.xz");
    let mut sources = super::sources(&[path.display().to_string()]);
    sources.kernel_release = Some("6.12.0-predicted-eevdf".into());
    let data = crate::loading::load_now(&sources).unwrap();
    let mut app = app(&(sources, data));
    assert_eq!(app.input().unwrap().label, "EEVDF? 6.12.0-predicted-eevdf");
    let (_, text) = draw(&mut app, (160, 50));
    let header = text.lines().next().unwrap();
    assert!(
        header.contains("EEVDF predicted 6.12.0-predicted-eevdf"),
        "{header}"
    );
}
