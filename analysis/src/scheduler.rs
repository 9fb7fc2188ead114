//! The scheduler of a traced kernel, guessed from its release string (`docs/metrics.md`
//! §8): its family (CFS, EEVDF, BFS family) and its name (PDS, BMQ, MuQSS, ...), the
//! label a run gets when the user gives none.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Which kind of scheduler a kernel release runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SchedulerFamily {
    /// Completely Fair Scheduler: mainline 2.6.23 to 6.5.
    #[serde(rename = "CFS")]
    Cfs,
    /// Earliest Eligible Virtual Deadline First: mainline 6.6 and later.
    #[serde(rename = "EEVDF")]
    Eevdf,
    /// BFS and its descendants (ck, MuQSS, Project C's PDS and BMQ): out-of-tree patches.
    #[serde(rename = "BFS family")]
    BfsFamily,
    #[serde(rename = "unknown")]
    Unknown,
}

impl SchedulerFamily {
    /// The label used in reports and JSON (`source.scheduler`).
    pub fn name(self) -> &'static str {
        match self {
            SchedulerFamily::Cfs => "CFS",
            SchedulerFamily::Eevdf => "EEVDF",
            SchedulerFamily::BfsFamily => "BFS family",
            SchedulerFamily::Unknown => "unknown",
        }
    }
}

impl fmt::Display for SchedulerFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Markers of the BFS-family patch sets, matched as whole words of the release's local
/// version (`6.1.192-prjc-pds`, `5.4.0-ck1`, `5.10-muqss`): a bare substring test would
/// take e.g. "ck" inside an unrelated word.
const BFS_MARKERS: [&str; 6] = ["bfs", "ck", "muqss", "pds", "bmq", "prjc"];

/// The scheduler family of kernel release `release` (`uname -r`): a release naming a
/// BFS-family patch is "BFS family"; otherwise mainline 6.6 and later is EEVDF, 2.6.23
/// to 6.5 CFS; anything else (older, unparsable) is unknown.
pub fn scheduler_family(release: &str) -> SchedulerFamily {
    let lower = release.to_ascii_lowercase();
    let words = lower.split(|c: char| !c.is_ascii_alphanumeric());
    for word in words {
        // "ck1", "bfs512": a marker followed by a patch number.
        let letters = word.trim_end_matches(|c: char| c.is_ascii_digit());
        if BFS_MARKERS.contains(&letters) {
            return SchedulerFamily::BfsFamily;
        }
    }
    let numbers: Vec<u32> = release
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|s| !s.is_empty())
        .take(3)
        .map(|s| s.parse().unwrap_or(u32::MAX))
        .collect();
    let version = match numbers[..] {
        [a, b, c, ..] => (a, b, c),
        [a, b] => (a, b, 0),
        _ => return SchedulerFamily::Unknown,
    };
    if version >= (6, 6, 0) {
        SchedulerFamily::Eevdf
    } else if version >= (2, 6, 23) {
        SchedulerFamily::Cfs
    } else {
        SchedulerFamily::Unknown
    }
}

/// Whether a run was predicted by a model rather than traced: `schedtrace replay --as`
/// writes the model's release with the word `predicted` (`6.12.0-predicted-eevdf`,
/// `6.1.0-prjc-bmq-predicted`), and every header that shows a run says so.
pub fn is_predicted(release: &str) -> bool {
    release
        .to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == "predicted")
}

/// The scheduler's own name where the release says which one it is: the BFS-family patch
/// sets name themselves in the local version (`6.1.192-prjc-pds`, `-prjc-bmq`, `-muqss`,
/// `-bfs512`, `-ck1` which carries MuQSS from 4.7 on and BFS before), mainline is CFS or
/// EEVDF by version, and a sched_ext kernel says `scx` or `sched-ext`. Project C's release
/// names PDS or BMQ; a bare `prjc` (either) and anything unknown give the family name.
pub fn scheduler_name(release: &str) -> String {
    let lower = release.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(|w| w.trim_end_matches(|c: char| c.is_ascii_digit()))
        .collect();
    let has = |w: &str| words.contains(&w);
    let family = scheduler_family(release);
    let name = if has("pds") {
        "PDS"
    } else if has("bmq") {
        "BMQ"
    } else if has("muqss") {
        "MuQSS"
    } else if has("bfs") {
        "BFS"
    } else if has("ck") {
        // -ck patches carried BFS until 4.7 and MuQSS after it.
        if ck_version_at_least_4_8(release) {
            "MuQSS"
        } else {
            "BFS"
        }
    } else if has("scx") || lower.contains("sched-ext") || lower.contains("sched_ext") {
        "sched_ext"
    } else {
        family.name()
    };
    name.to_string()
}

/// Whether the release's version is 4.8 or later (MuQSS replaced BFS in -ck at 4.8).
fn ck_version_at_least_4_8(release: &str) -> bool {
    let mut numbers = release
        .split(|c: char| !c.is_ascii_digit())
        .take(2)
        .map(|s| s.parse::<u32>().unwrap_or(0));
    let (a, b) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    (a, b) >= (4, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uname_release(path: &str) -> String {
        let full = fixtures::trace(path);
        let text =
            std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
        // `uname -a`: "Linux (none) RELEASE #1 ..."
        text.split_whitespace().nth(2).unwrap().to_string()
    }

    #[test]
    fn releases_of_the_shared_traces() {
        use SchedulerFamily::*;
        assert_eq!(scheduler_family("6.1.0-57-amd64"), Cfs);
        assert_eq!(scheduler_family("6.12.95+deb12-amd64"), Eevdf);
        assert_eq!(scheduler_family("6.18.44-fc-v657"), Eevdf);
        let pds = uname_release("pds-6.1-vm/evidence/uname.txt");
        let bmq = uname_release("bmq-6.1-vm/evidence/uname.txt");
        assert_eq!(pds, "6.1.192-prjc-pds");
        assert_eq!(bmq, "6.1.192-prjc-bmq");
        assert_eq!(scheduler_family(&pds), BfsFamily);
        assert_eq!(scheduler_family(&bmq), BfsFamily);
        assert_eq!(scheduler_name(&pds), "PDS");
        assert_eq!(scheduler_name(&bmq), "BMQ");
        assert_eq!(scheduler_name("6.1.0-57-amd64"), "CFS");
        assert_eq!(scheduler_name("6.12.95+deb12-amd64"), "EEVDF");
    }

    #[test]
    fn names_of_other_patch_sets() {
        assert_eq!(scheduler_name("4.14.5-MuQSS"), "MuQSS");
        assert_eq!(scheduler_name("2.6.32-bfs363"), "BFS");
        assert_eq!(scheduler_name("4.4.0-ck1"), "BFS");
        assert_eq!(scheduler_name("5.4.0-ck1"), "MuQSS");
        assert_eq!(scheduler_name("6.1.0-prjc"), "BFS family");
        assert_eq!(scheduler_name("6.12.0-scx"), "sched_ext");
        assert_eq!(scheduler_name("linux"), "unknown");
    }

    #[test]
    fn boundaries_and_other_patch_sets() {
        use SchedulerFamily::*;
        assert_eq!(scheduler_family("6.6.0"), Eevdf);
        assert_eq!(scheduler_family("6.5.13-generic"), Cfs);
        assert_eq!(scheduler_family("2.6.23"), Cfs);
        assert_eq!(scheduler_family("2.6.22-rc1"), Unknown);
        assert_eq!(scheduler_family("5.4.0-ck1"), BfsFamily);
        assert_eq!(scheduler_family("4.14.5-MuQSS"), BfsFamily);
        assert_eq!(scheduler_family("2.6.32-bfs363"), BfsFamily);
        assert_eq!(scheduler_family("6.10"), Eevdf);
        // "ck" only as a word: "stack" is not a marker.
        assert_eq!(scheduler_family("6.1.0-stack"), Cfs);
        assert_eq!(scheduler_family(""), Unknown);
        assert_eq!(scheduler_family("linux"), Unknown);
    }
}
