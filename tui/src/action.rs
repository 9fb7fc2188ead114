//! What a key press means: the views and the actions the keymap maps keys to. Pure data,
//! so the state machine can be driven without a terminal.

/// The views, in the order of their number keys (1–9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    Overview,
    Tasks,
    Detail,
    Timeline,
    Preemptions,
    Fairness,
    Placement,
    Compare,
    Quality,
}

impl View {
    pub const ALL: [View; 9] = [
        View::Overview,
        View::Tasks,
        View::Detail,
        View::Timeline,
        View::Preemptions,
        View::Fairness,
        View::Placement,
        View::Compare,
        View::Quality,
    ];

    pub fn index(self) -> usize {
        View::ALL.iter().position(|&v| v == self).unwrap_or(0)
    }

    /// The name used by `--view` and shown in the tab bar.
    pub fn name(self) -> &'static str {
        match self {
            View::Overview => "overview",
            View::Tasks => "tasks",
            View::Detail => "detail",
            View::Timeline => "timeline",
            View::Preemptions => "preemptions",
            View::Fairness => "fairness",
            View::Placement => "placement",
            View::Compare => "compare",
            View::Quality => "quality",
        }
    }

    pub fn parse(name: &str) -> Result<View, String> {
        View::ALL
            .iter()
            .copied()
            .find(|v| v.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = View::ALL.iter().map(|v| v.name()).collect();
                format!(
                    "unknown view {name:?}; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

/// Everything a key can ask for. Text typed into the filter or command line is not an
/// action: the state machine takes it character by character while that line is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Quit,
    Help,
    Show(View),
    NextView,
    PrevView,
    Up,
    Down,
    Top,
    Bottom,
    HalfPageDown,
    HalfPageUp,
    /// Esc: clear the filter, close a popup, or go back to the previous view.
    Back,
    Enter,
    Filter,
    Command,
    NextRun,
    PrevRun,
    Copy,
    // Tasks
    SortLeft,
    SortRight,
    InvertSort,
    CycleGroup,
    Mark,
    // Compare
    FlaggedOnly,
    NextBase,
    ThresholdUp,
    ThresholdDown,
    // Timeline and detail
    CursorLeft,
    CursorRight,
    PanLeft,
    PanRight,
    ZoomIn,
    ZoomOut,
    ZoomFit,
    MarkerStart,
    MarkerEnd,
    JumpToMaxWait,
    NextOccupant,
    JumpToOccupant,
}
