//! The one keymap table: it dispatches keys and it is the `?` help, so the two cannot
//! disagree. Bindings of a view's context are looked up before the global ones; the
//! tests check that no key is bound twice where both would apply.

use crate::action::{Action, View};

/// A key as the keymap knows it (terminal-independent, so tests and `--keys` use it too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Char(char),
    Ctrl(char),
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
}

impl Key {
    /// How the help shows the key.
    pub(crate) fn label(self) -> String {
        match self {
            Key::Char(' ') => "Space".into(),
            Key::Char(c) => c.to_string(),
            Key::Ctrl(c) => format!("Ctrl-{c}"),
            Key::Enter => "Enter".into(),
            Key::Esc => "Esc".into(),
            Key::Tab => "Tab".into(),
            Key::BackTab => "Shift-Tab".into(),
            Key::Backspace => "Backspace".into(),
            Key::Up => "Up".into(),
            Key::Down => "Down".into(),
            Key::Left => "Left".into(),
            Key::Right => "Right".into(),
            Key::PageUp => "PgUp".into(),
            Key::PageDown => "PgDn".into(),
            Key::Home => "Home".into(),
            Key::End => "End".into(),
        }
    }
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Context {
    Global,
    Tasks,
    Preemptions,
    Detail,
    Timeline,
    Compare,
}

impl Context {
    pub(crate) const ALL: [Context; 6] = [
        Context::Global,
        Context::Tasks,
        Context::Preemptions,
        Context::Detail,
        Context::Timeline,
        Context::Compare,
    ];

    /// The view-specific context of `view` (Global when it has none).
    pub(crate) fn of(view: View) -> Context {
        match view {
            View::Tasks => Context::Tasks,
            View::Preemptions => Context::Preemptions,
            View::Detail => Context::Detail,
            View::Timeline => Context::Timeline,
            View::Compare => Context::Compare,
            _ => Context::Global,
        }
    }

    pub(crate) fn title(self) -> &'static str {
        match self {
            Context::Global => "everywhere",
            Context::Tasks => "tasks",
            Context::Preemptions => "wakeup preemptions",
            Context::Detail => "task detail",
            Context::Timeline => "timeline",
            Context::Compare => "compare",
        }
    }
}

pub(crate) struct Binding {
    pub context: Context,
    pub keys: &'static [Key],
    pub action: Action,
    pub help: &'static str,
}

const fn bind(
    context: Context,
    keys: &'static [Key],
    action: Action,
    help: &'static str,
) -> Binding {
    Binding {
        context,
        keys,
        action,
        help,
    }
}

use Context::{
    Compare as Cmp, Detail as Det, Global as G, Preemptions as P, Tasks as T, Timeline as Tl,
};
use Key::{Char as C, Ctrl};

pub(crate) const BINDINGS: &[Binding] = &[
    bind(G, &[C('q'), Ctrl('c')], Action::Quit, "quit"),
    bind(G, &[C('?')], Action::Help, "this help"),
    bind(G, &[C('1')], Action::Show(View::Overview), "overview"),
    bind(G, &[C('2')], Action::Show(View::Tasks), "tasks"),
    bind(G, &[C('3')], Action::Show(View::Detail), "task detail"),
    bind(G, &[C('4')], Action::Show(View::Timeline), "timeline"),
    bind(
        G,
        &[C('5')],
        Action::Show(View::Preemptions),
        "wakeup preemptions",
    ),
    bind(G, &[C('6')], Action::Show(View::Fairness), "fairness"),
    bind(G, &[C('7')], Action::Show(View::Placement), "placement"),
    bind(G, &[C('8')], Action::Show(View::Compare), "compare"),
    bind(G, &[C('9')], Action::Show(View::Quality), "data quality"),
    bind(G, &[Key::Tab], Action::NextView, "next view"),
    bind(G, &[Key::BackTab], Action::PrevView, "previous view"),
    bind(G, &[C('j'), Key::Down], Action::Down, "next row"),
    bind(G, &[C('k'), Key::Up], Action::Up, "previous row"),
    bind(G, &[C('g'), Key::Home], Action::Top, "first row"),
    bind(G, &[C('G'), Key::End], Action::Bottom, "last row"),
    bind(
        G,
        &[Ctrl('d'), Key::PageDown],
        Action::HalfPageDown,
        "half a page down",
    ),
    bind(
        G,
        &[Ctrl('u'), Key::PageUp],
        Action::HalfPageUp,
        "half a page up",
    ),
    bind(G, &[Key::Esc], Action::Back, "clear filter / close / back"),
    bind(G, &[Key::Enter], Action::Enter, "open the selected row"),
    bind(
        G,
        &[C('/')],
        Action::Filter,
        "filter tasks / triples (`/!` inverts; lat.p99>5ms; cpu=1: ran on CPU 1; count>9)",
    ),
    bind(
        G,
        &[C(':')],
        Action::Command,
        "command (:time A B, :cpu 1,3, :sort KEY, :group NAME, :base LABEL)",
    ),
    bind(G, &[C(']')], Action::NextRun, "next run"),
    bind(G, &[C('[')], Action::PrevRun, "previous run"),
    bind(G, &[C('y')], Action::Copy, "copy the view as text"),
    bind(T, &[C('>')], Action::SortRight, "sort by the next column"),
    bind(
        T,
        &[C('<')],
        Action::SortLeft,
        "sort by the previous column",
    ),
    bind(T, &[C('I')], Action::InvertSort, "invert the order"),
    bind(
        T,
        &[C('t')],
        Action::CycleGroup,
        "group: pid -> process -> name",
    ),
    bind(
        T,
        &[C(' ')],
        Action::Mark,
        "mark the task (timeline, lag chart)",
    ),
    bind(
        P,
        &[C('>')],
        Action::SortRight,
        "sort triples by the next column",
    ),
    bind(
        P,
        &[C('<')],
        Action::SortLeft,
        "sort triples by the previous column",
    ),
    bind(
        P,
        &[C('I')],
        Action::InvertSort,
        "invert the triples' order",
    ),
    bind(
        Det,
        &[C('J')],
        Action::JumpToMaxWait,
        "timeline at the longest wait",
    ),
    bind(
        Det,
        &[C('o')],
        Action::NextOccupant,
        "next occupant (why it waited)",
    ),
    bind(
        Det,
        &[C('O')],
        Action::JumpToOccupant,
        "timeline at the occupant's piece",
    ),
    bind(Tl, &[C('h'), Key::Left], Action::CursorLeft, "cursor left"),
    bind(
        Tl,
        &[C('l'), Key::Right],
        Action::CursorRight,
        "cursor right",
    ),
    bind(Tl, &[C('a')], Action::PanLeft, "pan left"),
    bind(Tl, &[C('d')], Action::PanRight, "pan right"),
    bind(Tl, &[C('w')], Action::ZoomIn, "zoom in"),
    bind(Tl, &[C('s')], Action::ZoomOut, "zoom out"),
    bind(Tl, &[C('0')], Action::ZoomFit, "fit the whole trace"),
    bind(
        Tl,
        &[C('m')],
        Action::MarkerStart,
        "window start marker at the cursor",
    ),
    bind(
        Tl,
        &[C('M')],
        Action::MarkerEnd,
        "window end marker at the cursor",
    ),
    bind(Cmp, &[C('f')], Action::FlaggedOnly, "only flagged metrics"),
    bind(Cmp, &[C('b')], Action::NextBase, "next baseline run"),
    bind(Cmp, &[C('+')], Action::ThresholdUp, "threshold +1 %"),
    bind(Cmp, &[C('-')], Action::ThresholdDown, "threshold -1 %"),
];

/// The action of `key` in `view`: the view's bindings first, then the global ones.
pub(crate) fn lookup(view: View, key: Key) -> Option<Action> {
    let context = Context::of(view);
    let find = |ctx: Context| {
        BINDINGS
            .iter()
            .find(|b| b.context == ctx && b.keys.contains(&key))
            .map(|b| b.action)
    };
    find(context).or_else(|| find(Context::Global))
}

/// The help text: every binding, by context, in table order.
pub(crate) fn help_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for context in Context::ALL {
        lines.push(format!("{}:", context.title()));
        for b in BINDINGS.iter().filter(|b| b.context == context) {
            let keys: Vec<String> = b.keys.iter().map(|k| k.label()).collect();
            lines.push(format!("  {:<16} {}", keys.join(" "), b.help));
        }
    }
    lines
}
