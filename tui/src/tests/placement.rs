//! The Placement view's CPU × CPU matrices on `cfs-6.1-vm/mi`: every drawn cell equals the
//! report's `wakeup_cpu_pairs` / `migration_cpu_pairs` (what `analyze --json` writes),
//! shaded by size; with a topology the CPUs are ordered by LLC with borders between them.

use super::{app, load, mi, press, sources, trace, CFS_MI};
use crate::print;
use crate::state::App;
use crate::ui::matrix;
use crate::ui::placement::{MIGRATION_TITLE, WAKEUP_TITLE};
use crate::ui::style::Glyphs;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use std::collections::HashMap;

type Cells = HashMap<(u32, u32), u64>;

/// The report's matrices as (from, to) -> count.
fn report_cells(app: &App) -> (Cells, Cells) {
    let a = &app.input().unwrap().report.system.affinity;
    let cells =
        |pairs: Vec<(u32, u32, u64)>| pairs.into_iter().map(|(f, t, n)| ((f, t), n)).collect();
    (
        cells(
            a.wakeup_cpu_pairs
                .iter()
                .map(|p| (p.from, p.to, p.count))
                .collect(),
        ),
        cells(
            a.migration_cpu_pairs
                .iter()
                .map(|p| (p.from, p.to, p.count))
                .collect(),
        ),
    )
}

/// One matrix read back from the screen: the column CPUs in order and every cell.
struct Drawn {
    order: Vec<u32>,
    cells: Cells,
    /// Lines that are borders between groups (`─`), by the row CPU under them.
    borders_above: Vec<u32>,
    /// (x, y) of every cell's last character, by (from, to).
    at: HashMap<(u32, u32), (u16, u16)>,
}

/// Reads the matrix whose title starts at column `x0` and ends before `x1`.
fn read(text: &str, title: &str, x0: usize, x1: usize) -> Drawn {
    let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
    let top = lines
        .iter()
        .position(|l| l.iter().collect::<String>().contains(title))
        .unwrap_or_else(|| panic!("{title} not drawn\n{text}"));
    let part = |l: &Vec<char>| -> String { l.iter().skip(x0).take(x1 - x0).collect() };
    let clean = |s: &str| s.replace(['│', '┃', '|', '#'], " ");
    let order: Vec<u32> = clean(&part(&lines[top + 1]))
        .split_whitespace()
        .map(|c| c.parse().unwrap())
        .collect();
    let mut drawn = Drawn {
        order: order.clone(),
        cells: HashMap::new(),
        borders_above: Vec::new(),
        at: HashMap::new(),
    };
    let mut border = false;
    for (y, line) in lines.iter().enumerate().skip(top + 2) {
        let raw = part(line);
        if raw.trim().is_empty() {
            break;
        }
        if raw.trim().chars().all(|c| "─━┼╋-=+".contains(c)) {
            border = true;
            continue;
        }
        let tokens: Vec<String> = clean(&raw).split_whitespace().map(String::from).collect();
        let Ok(from) = tokens[0].parse::<u32>() else {
            break;
        };
        if border {
            drawn.borders_above.push(from);
            border = false;
        }
        assert_eq!(tokens.len(), order.len() + 1, "{raw}");
        // Each cell ends where its token ends: find them left to right.
        let mut x = raw.find(&tokens[0]).unwrap() + tokens[0].len();
        let chars: Vec<char> = raw.chars().collect();
        for (to, token) in order.iter().zip(&tokens[1..]) {
            let count = if token == "·" {
                0
            } else {
                token.parse().unwrap()
            };
            drawn.cells.insert((from, *to), count);
            while chars[x] == ' ' || "│┃".contains(chars[x]) {
                x += 1;
            }
            x += token.chars().count();
            drawn
                .at
                .insert((from, *to), ((x0 + x - 1) as u16, y as u16));
        }
    }
    drawn
}

fn draw(app: &mut App, w: u16, h: u16) -> (Buffer, String) {
    let buffer = print::frame(app, w, h, Glyphs::default());
    let text = print::text(&buffer);
    (buffer, text)
}

/// Both matrices of the Placement view at `w` × `h`, checked cell by cell.
fn check(app: &mut App, w: u16, h: u16) -> (Drawn, Drawn, String, Buffer) {
    press(app, "7");
    let (buffer, text) = draw(app, w, h);
    let title_line = text.lines().find(|l| l.contains(WAKEUP_TITLE)).unwrap();
    let x1 = title_line
        .find(MIGRATION_TITLE)
        .map_or(w as usize, |b| title_line[..b].chars().count());
    let wakeups = read(&text, WAKEUP_TITLE, 0, x1);
    let x0 = if x1 < w as usize { x1 } else { 0 };
    let migrations = read(&text, MIGRATION_TITLE, x0, w as usize);
    let (want_w, want_m) = report_cells(app);
    for (drawn, want, what) in [
        (&wakeups, &want_w, "wakeups"),
        (&migrations, &want_m, "migrations"),
    ] {
        assert_eq!(
            drawn.cells.len(),
            drawn.order.len().pow(2),
            "{what}\n{text}"
        );
        for (&(f, t), &n) in &drawn.cells {
            assert_eq!(
                n,
                want.get(&(f, t)).copied().unwrap_or(0),
                "{what} {f}->{t}\n{text}"
            );
        }
        assert!(want.keys().all(|k| drawn.cells.contains_key(k)), "{what}");
    }
    (wakeups, migrations, text, buffer)
}

#[test]
fn the_matrices_of_mi_are_the_reports_cpu_pairs_shaded_by_size() {
    for (w, h) in [(160, 50), (80, 24)] {
        let mut app = app(mi());
        let (wakeups, migrations, text, buffer) = check(&mut app, w, h);
        assert!(text.contains("no topology: CPU-level only"), "{text}");
        assert_eq!(wakeups.order, [0, 1, 2, 3]);
        assert!(wakeups.borders_above.is_empty() && migrations.borders_above.is_empty());
        // CPU 1 woke itself most (the spinner's CPU): the lightest shade; empty cells none.
        let (want, _) = report_cells(&app);
        let (&most, _) = want.iter().max_by_key(|(_, n)| **n).unwrap();
        assert_eq!(most, (1, 1));
        let (x, y) = wakeups.at[&most];
        assert_eq!(buffer[(x, y)].bg, matrix::shade_colour(4).unwrap());
        for (cell, &n) in &wakeups.cells {
            let (x, y) = wakeups.at[cell];
            let expected =
                matrix::shade_colour(matrix::shade(n, want[&most])).unwrap_or(Color::Reset);
            assert_eq!(buffer[(x, y)].bg, expected, "{cell:?} = {n}");
        }
    }
}

#[test]
fn with_a_topology_the_cpus_are_ordered_by_llc_with_borders() {
    // Two LLCs that interleave CPU numbers, so the order must change: 0,2 | 1,3.
    let topology = analysis::topology_load::from_json(r#"{"llcs": ["0,2", "1,3"]}"#).unwrap();
    let mut s = sources(&[trace(CFS_MI).display().to_string()]);
    s.config.topology = Some((topology, "file llc-test.json".into()));
    let loaded = (s.clone(), crate::loading::load_now(&s).unwrap());
    let mut app = app(&loaded);
    let (wakeups, migrations, text, _) = check(&mut app, 160, 50);
    assert!(!text.contains("no topology"), "{text}");
    assert!(text.contains("2 LLCs (0,2 1,3)"), "{text}");
    for m in [&wakeups, &migrations] {
        assert_eq!(m.order, [0, 2, 1, 3]);
        assert_eq!(m.borders_above, [1], "{text}");
    }
    // The pairs do not depend on the topology: the same as the plain analysis.
    let plain = super::app(mi());
    assert_eq!(report_cells(&app), report_cells(&plain));
    // The column border is drawn in the header line too.
    let header = text.lines().find(|l| l.contains(" 2│")).is_some();
    assert!(header, "{text}");
    let _ = load;
}

#[test]
fn too_many_cpus_for_numbers_gives_one_shade_glyph_per_cell() {
    let counts: Cells = [((0, 0), 1000), ((0, 1), 1), ((1, 0), 30)]
        .into_iter()
        .collect();
    let order = matrix::CpuOrder::new([0, 1], None);
    let lines = matrix::lines("t", &counts, &order, 4, Glyphs::default());
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    assert_eq!(text[2], "0 █░");
    assert_eq!(text[3], "1 ▒ ");
    let wide = matrix::lines("t", &counts, &order, 40, Glyphs::default());
    assert_eq!(wide[2].to_string(), "0  1000    1");
}
