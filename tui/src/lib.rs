//! The interactive terminal UI (ratatui + crossterm) lives here once its issue is worked on.
//! Nothing is implemented yet: the crate exists so the workspace layout matches the design.
