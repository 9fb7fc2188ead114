//! Run arguments (`LABEL=FILE[,FILE...]`, `FILE`, `FILE,FILE`) and the labels of runs:
//! user labels, or automatic ones from scheduler family and kernel release.

use super::{scheduler_name_of, Repeat, ReportSource, Run};
use std::path::{Path, PathBuf};

/// One run argument of `schedtrace compare`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSpec {
    /// `None`: label automatically (or from `--label`).
    pub label: Option<String>,
    /// Repeats of the run.
    pub paths: Vec<PathBuf>,
}

impl RunSpec {
    /// Parses `LABEL=FILE[,FILE...]` or `FILE[,FILE...]`. An argument that names an
    /// existing file (or `-`) is a file even if it contains `=` or `,`.
    pub fn parse(arg: &str) -> Result<RunSpec, String> {
        if arg == "-" || Path::new(arg).exists() {
            return Ok(RunSpec {
                label: None,
                paths: vec![PathBuf::from(arg)],
            });
        }
        let (label, files) = match arg.split_once('=') {
            Some((label, files)) => {
                if label.trim().is_empty() {
                    return Err(format!("{arg:?}: empty label before `=`"));
                }
                (Some(label.to_string()), files)
            }
            None => (None, arg),
        };
        let paths: Vec<PathBuf> = files
            .split(',')
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
            .collect();
        if paths.is_empty() {
            return Err(format!("{arg:?}: no file after the label"));
        }
        Ok(RunSpec { label, paths })
    }
}

/// The automatic label of a run: scheduler name and kernel release of its first
/// repeat (e.g. `EEVDF 6.12.95+deb12-amd64`, `PDS 6.1.192-prjc-pds`; a predicted run's
/// name ends in `?`: `EEVDF? 6.12.0-predicted-eevdf`), or the file name when the kernel is
/// not known.
pub(super) fn automatic_label<R: ReportSource>(first: &Repeat<R>) -> String {
    let family = scheduler_name_of(&first.report);
    match first.report.text("/source/kernel_release") {
        Some(kernel) if crate::is_predicted(kernel) => format!("{family}? {kernel}"),
        Some(kernel) => format!("{family} {kernel}"),
        None => {
            let file = Path::new(&first.path)
                .file_name()
                .map_or(first.path.clone(), |f| f.to_string_lossy().into_owned());
            format!("{family} {file}")
        }
    }
}

/// Labels the runs: a spec's own label, else the next `--label` name, else the automatic
/// label. Specs with the same user label are merged as repeats (metrics.md §8); equal
/// automatic labels are kept apart with ` #2`, ` #3`, ... (see the module doc).
///
/// `repeats[i]` are the loaded inputs of `specs[i]`.
pub fn assemble<R: ReportSource>(
    specs: &[RunSpec],
    repeats: Vec<Vec<Repeat<R>>>,
    names: &[String],
) -> Vec<Run<R>> {
    let mut names = names.iter();
    let mut runs: Vec<Run<R>> = Vec::new();
    let mut user_labelled: Vec<bool> = Vec::new();
    for (spec, repeats) in specs.iter().zip(repeats) {
        let user = spec.label.clone().or_else(|| names.next().cloned());
        match user {
            Some(label) => {
                if let Some(i) = runs
                    .iter()
                    .zip(&user_labelled)
                    .position(|(r, &u)| u && r.label == label)
                {
                    runs[i].repeats.extend(repeats);
                } else {
                    runs.push(Run { label, repeats });
                    user_labelled.push(true);
                }
            }
            None => {
                let base = repeats.first().map_or_else(String::new, automatic_label);
                let mut label = base.clone();
                let mut k = 1;
                while runs.iter().any(|r| r.label == label) {
                    k += 1;
                    label = format!("{base} #{k}");
                }
                runs.push(Run { label, repeats });
                user_labelled.push(false);
            }
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rep(kernel: &str, scheduler: &str) -> Repeat {
        Repeat {
            path: "x.dat".into(),
            report: json!({"source": {"kernel_release": kernel, "scheduler": scheduler}}),
            from_json_report: true,
            samples: None,
        }
    }

    #[test]
    fn parse_specs() {
        assert_eq!(
            RunSpec::parse("cfs=a.dat,b.dat").unwrap(),
            RunSpec {
                label: Some("cfs".into()),
                paths: vec!["a.dat".into(), "b.dat".into()]
            }
        );
        assert_eq!(RunSpec::parse("a.dat,b.dat").unwrap().label, None);
        assert!(RunSpec::parse("=a.dat").is_err());
        assert!(RunSpec::parse("x=").is_err());
    }

    #[test]
    fn family_from_an_older_report_without_source_scheduler() {
        let old = Repeat {
            path: "old.json".into(),
            report: json!({"source": {"kernel_release": "6.1.192-prjc-pds"}}),
            from_json_report: true,
            samples: None,
        };
        assert_eq!(automatic_label(&old), "PDS 6.1.192-prjc-pds");
        let none = Repeat {
            path: "/x/trace.dat".into(),
            report: json!({"source": {"kernel_release": null}}),
            from_json_report: false,
            samples: None,
        };
        assert_eq!(automatic_label(&none), "unknown trace.dat");
        let predicted = Repeat {
            path: "eevdf.pftrace".into(),
            report: json!({"source": {"kernel_release": "6.12.0-predicted-eevdf"}}),
            from_json_report: false,
            samples: None,
        };
        assert_eq!(automatic_label(&predicted), "EEVDF? 6.12.0-predicted-eevdf");
        assert!(!crate::is_predicted("6.12.0-unpredictable"));
        assert!(crate::is_predicted("6.1.0-prjc-bmq-predicted"));
    }

    #[test]
    fn labels_merge_only_when_the_user_says() {
        let specs = [
            RunSpec::parse("a.dat").unwrap(),
            RunSpec::parse("b.dat").unwrap(),
            RunSpec::parse("new=c.dat").unwrap(),
            RunSpec::parse("new=d.dat").unwrap(),
            RunSpec::parse("e.dat").unwrap(),
        ];
        let loaded = vec![
            vec![rep("6.1.0", "CFS")],
            vec![rep("6.1.0", "CFS")],
            vec![rep("6.12", "EEVDF")],
            vec![rep("6.12", "EEVDF")],
            vec![rep("6.12", "EEVDF")],
        ];
        let runs = assemble(&specs, loaded, &["mine".to_string()]);
        let labels: Vec<(&str, usize)> = runs
            .iter()
            .map(|r| (r.label.as_str(), r.repeats.len()))
            .collect();
        assert_eq!(
            labels,
            [("mine", 1), ("CFS 6.1.0", 1), ("new", 2), ("EEVDF 6.12", 1)]
        );
    }
}
