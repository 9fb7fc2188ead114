//! Errors of the ingest: always a byte offset (or line) and a cause, so that a
//! user can look at the bad spot with `xxd -s OFFSET`.

use std::fmt;
use std::path::PathBuf;

/// Where in the input something went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// Byte offset in the (decompressed) input.
    Offset(u64),
    /// 1-based line number of a text input.
    Line(u64),
    /// The problem is not at one place (e.g. the file is empty).
    Whole,
}

/// A parse or I/O failure. `path` is filled in by the top-level reader.
#[derive(Debug)]
pub struct Error {
    pub path: Option<PathBuf>,
    pub location: Location,
    pub cause: String,
}

/// The cause of a cancelled read: no reader produces it for a bad input.
const CANCELLED: &str = "read cancelled";

impl Error {
    pub fn at(offset: u64, cause: impl Into<String>) -> Error {
        Error {
            path: None,
            location: Location::Offset(offset),
            cause: cause.into(),
        }
    }

    pub fn at_line(line: u64, cause: impl Into<String>) -> Error {
        Error {
            path: None,
            location: Location::Line(line),
            cause: cause.into(),
        }
    }

    pub fn whole(cause: impl Into<String>) -> Error {
        Error {
            path: None,
            location: Location::Whole,
            cause: cause.into(),
        }
    }

    /// The read was stopped through [`crate::Progress::cancel`]: not a fault of the input.
    pub fn cancelled() -> Error {
        Error::whole(CANCELLED)
    }

    /// Whether this is the error of a cancelled read (see [`Error::cancelled`]).
    pub fn is_cancelled(&self) -> bool {
        self.location == Location::Whole && self.cause == CANCELLED
    }

    /// Names the file, unless an inner reader already did.
    pub fn in_file(mut self, path: impl Into<PathBuf>) -> Error {
        if self.path.is_none() {
            self.path = Some(path.into());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}: ", path.display())?;
        }
        match self.location {
            Location::Offset(off) => write!(f, "offset {off} (0x{off:x}): ")?,
            Location::Line(line) => write!(f, "line {line}: ")?,
            Location::Whole => {}
        }
        f.write_str(&self.cause)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
