//! The dataset on disk: Hive-style partitions that polars, DuckDB and Spark read as one
//! table per directory,
//!
//! ```text
//! DIR/_schedtrace_export.json                   what is in it (format, runs, version)
//! DIR/<table>/run=<run>/part-<n>.<ext>
//! ```
//!
//! `run` is the run's label made path-safe (the `runs` table keeps the label itself) and
//! `n` the repeat's index in its run (the `runs` table's `repeat` column). Files are written under `DIR/_staging-<pid>/`
//! (a leading `_` is hidden from Hive readers, and it is outside every table's directory)
//! and renamed into place only when complete, the `runs` table last: a crash or a full
//! disk leaves no file in a table that looks whole, and a run without its `runs` row is
//! one that was cut short.

use crate::write::Format;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub(crate) const MANIFEST: &str = "_schedtrace_export.json";

/// What to do with an existing directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// DIR must be missing or empty.
    New,
    /// Add runs to the dataset in DIR (same format; no label twice).
    Append,
    /// Replace the dataset in DIR (only one schedtrace wrote: its manifest says so).
    Force,
}

/// `_schedtrace_export.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct Manifest {
    pub schema_version: u32,
    pub format: String,
    pub runs: Vec<ManifestRun>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ManifestRun {
    pub label: String,
    /// The partition value (`run=`).
    pub(crate) run: String,
    pub(crate) files: Vec<String>,
}

/// A dataset directory opened for writing.
pub(crate) struct Dataset {
    pub dir: PathBuf,
    pub format: Format,
    pub manifest: Manifest,
    pub staging: PathBuf,
}

fn err(dir: &Path, what: impl std::fmt::Display) -> String {
    format!("{}: {what}", dir.display())
}

impl Dataset {
    /// Opens `dir` as `mode` says; refuses what would mix or destroy data.
    pub(crate) fn open(dir: &Path, format: Format, mode: Mode) -> Result<Dataset, String> {
        let manifest_path = dir.join(MANIFEST);
        let existing = match std::fs::read_dir(dir) {
            Ok(mut entries) => entries.next().is_some(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(err(dir, format!("cannot read the directory: {e}"))),
        };
        let read_manifest = || -> Result<Manifest, String> {
            let text = std::fs::read_to_string(&manifest_path).map_err(|_| {
                err(dir, format!("not empty and not a schedtrace export (no {MANIFEST}); refusing to write into it"))
            })?;
            serde_json::from_str(&text).map_err(|e| err(&manifest_path, format!("unreadable: {e}")))
        };
        let manifest = match (existing, mode) {
            (false, _) => Manifest::default(),
            (true, Mode::New) => {
                return Err(err(
                    dir,
                    "not empty: give --append to add runs to the dataset in it, or --force to replace it",
                ))
            }
            (true, Mode::Append) => {
                let m = read_manifest()?;
                if m.format != format.name() {
                    return Err(err(dir, format!(
                        "the dataset is {}; --append must write the same format (give --format {})",
                        m.format, m.format
                    )));
                }
                m
            }
            (true, Mode::Force) => {
                let m = read_manifest()?;
                remove_dataset(dir, &m)?;
                Manifest::default()
            }
        };
        std::fs::create_dir_all(dir).map_err(|e| err(dir, format!("cannot create: {e}")))?;
        let staging = dir.join(format!("_staging-{}", std::process::id()));
        std::fs::create_dir_all(&staging)
            .map_err(|e| err(&staging, format!("cannot create: {e}")))?;
        Ok(Dataset {
            dir: dir.to_path_buf(),
            format,
            manifest: Manifest {
                schema_version: crate::tables::SCHEMA_VERSION,
                format: format.name().to_string(),
                runs: manifest.runs,
            },
            staging,
        })
    }

    /// Where a staged file of input `input`, table `table` is written.
    pub(crate) fn staged(&self, input: usize, table: &str) -> PathBuf {
        self.staging
            .join(format!("{input}-{table}.{}", self.format.extension()))
    }

    /// The final place of a table file (relative to DIR).
    pub(crate) fn place(&self, table: &str, run: &str, repeat: usize) -> PathBuf {
        Path::new(table)
            .join(format!("run={run}"))
            .join(format!("part-{repeat}.{}", self.format.extension()))
    }

    /// Moves a complete staged file to `relative` (under DIR).
    pub(crate) fn publish(&self, staged: &Path, relative: &Path) -> Result<(), String> {
        let target = self.dir.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| err(parent, format!("cannot create: {e}")))?;
        }
        std::fs::rename(staged, &target)
            .map_err(|e| err(&target, format!("cannot move into place: {e}")))
    }

    /// Writes the manifest (temp name + rename) and removes the staging directory.
    pub(crate) fn close(self) -> Result<Manifest, String> {
        let path = self.dir.join(MANIFEST);
        let temp = self.staging.join(MANIFEST);
        let text = serde_json::to_string_pretty(&self.manifest).map_err(|e| e.to_string())? + "\n";
        std::fs::write(&temp, text).map_err(|e| err(&temp, e))?;
        std::fs::rename(&temp, &path).map_err(|e| err(&path, e))?;
        std::fs::remove_dir_all(&self.staging).map_err(|e| err(&self.staging, e))?;
        Ok(self.manifest)
    }

    /// Gives up: removes what was staged (published files stay: each is complete).
    pub(crate) fn abandon(&self) {
        let _ = std::fs::remove_dir_all(&self.staging);
    }
}

/// Removes the tables and manifest `m` describes, and nothing else.
fn remove_dataset(dir: &Path, m: &Manifest) -> Result<(), String> {
    for run in &m.runs {
        for file in &run.files {
            let path = dir.join(file);
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(err(&path, format!("cannot remove: {e}"))),
            }
            // Empty partition directories go too (never a directory with other files).
            let mut parent = path.parent();
            while let Some(p) = parent.filter(|p| *p != dir) {
                if std::fs::remove_dir(p).is_err() {
                    break;
                }
                parent = p.parent();
            }
        }
    }
    std::fs::remove_file(dir.join(MANIFEST)).map_err(|e| err(dir, e))
}

/// `label` as a partition value: letters, digits, `.`, `-` kept, anything else `_` (Hive
/// readers disagree on escapes); never starting with `_` or `.` (hidden files).
pub(crate) fn run_name(label: &str) -> String {
    let mut s: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(['_', '.']) {
        s.insert(0, 'r');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_are_path_safe() {
        assert_eq!(
            run_name("EEVDF 6.12.95+deb12-amd64"),
            "EEVDF_6.12.95_deb12-amd64"
        );
        assert_eq!(run_name("cfs"), "cfs");
        assert_eq!(run_name("../x"), "r.._x");
        assert_eq!(run_name(""), "r");
    }
}
