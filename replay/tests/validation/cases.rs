//! What is validated: the fixtures' workloads, the kernels that ran each, and how a task of
//! one capture is matched with its counterpart in another (`compare`'s role matching).
//!
//! The mainline captures (CFS 6.1, EEVDF 6.12) and the Project C ones (PDS, BMQ) were made
//! by two versions of the workload tool, which name the same tasks differently
//! (`nice-n0` / `nice0`, `mi-spin` / `mspin`, `pp1-ping` / `pp1_a`): aliases give every
//! task its mainline name, and `mi`'s three workers are one role.

use analysis::compare::matching::{MatchBy, Matching};
use regex::Regex;
use replay::sim::model::ModelName;

/// A kernel whose captures are in `fixtures/traces/<dir>/`, and the model of its scheduler.
#[derive(Debug, Clone, Copy)]
pub struct Kernel {
    pub dir: &'static str,
    pub model: ModelName,
}

pub const KERNELS: [Kernel; 4] = [
    Kernel {
        dir: "cfs-6.1-vm",
        model: ModelName::Cfs,
    },
    Kernel {
        dir: "eevdf-6.12-vm",
        model: ModelName::Eevdf,
    },
    Kernel {
        dir: "pds-6.1-vm",
        model: ModelName::Pds,
    },
    Kernel {
        dir: "bmq-6.1-vm",
        model: ModelName::Bmq,
    },
];

/// A workload and how its tasks are matched.
pub struct Workload {
    pub name: &'static str,
    /// The workload's tasks (every name either tool gives them): shares are of their
    /// runtime, and only they are roles.
    tasks: &'static str,
    /// Project C capture name = mainline name.
    aliases: &'static [(&'static str, &'static str)],
    /// Tasks gathered into one role: the first capture group is its name.
    merged: Option<&'static str>,
}

pub const WORKLOADS: [Workload; 4] = [
    Workload {
        name: "nice",
        tasks: r"^nice-?n?\d$",
        aliases: &[("nice0", "nice-n0"), ("nice5", "nice-n5")],
        merged: None,
    },
    Workload {
        name: "mi",
        tasks: r"^(mi-work\d|mintr\d|mi-spin|mspin)$",
        aliases: &[
            ("mintr0", "mi-work0"),
            ("mintr1", "mi-work1"),
            ("mintr2", "mi-work2"),
            ("mspin", "mi-spin"),
        ],
        merged: Some(r"^(mi-work)\d$"),
    },
    Workload {
        name: "pp1",
        tasks: r"^pp1[-_]",
        aliases: &[("pp1_a", "pp1-ping"), ("pp1_b", "pp1-pong")],
        merged: None,
    },
    Workload {
        name: "pp2",
        tasks: r"^pp2[-_]",
        aliases: &[("pp2_a", "pp2-ping"), ("pp2_b", "pp2-pong")],
        merged: None,
    },
];

impl Workload {
    pub fn tasks(&self) -> Regex {
        Regex::new(self.tasks).unwrap()
    }

    pub fn matching(&self) -> Matching {
        Matching {
            by: self
                .merged
                .map_or(MatchBy::Exact, |re| MatchBy::Regex(Regex::new(re).unwrap())),
            aliases: self
                .aliases
                .iter()
                .map(|&(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        }
    }

    /// The kernels with a capture of this workload.
    pub fn kernels(&self) -> Vec<Kernel> {
        KERNELS
            .into_iter()
            .filter(|k| self.trace(k).is_file())
            .collect()
    }

    pub fn trace(&self, k: &Kernel) -> std::path::PathBuf {
        fixtures::trace(&format!("{}/{}/trace-v6.dat.xz", k.dir, self.name))
    }
}
