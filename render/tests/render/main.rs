//! The text layouts of `render` on real data.
//!
//! One test binary for the crate, each file a module (as in every crate of the workspace):
//! the dependencies are linked once.

mod compare_layouts;
mod compare_why;
