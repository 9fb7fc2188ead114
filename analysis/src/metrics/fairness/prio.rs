//! Scheduling priority to fairness weight: the kernel's nice-to-weight table and how each
//! scheduler's traced `prio` maps to nice.

/// The kernel's nice-to-weight table, `sched_prio_to_weight[]` in kernel/sched/core.c:
/// nice -20 .. 19, 1024 at nice 0, each step about 1.25×.
pub(super) const SCHED_PRIO_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, // -20
    29154, 23254, 18705, 14949, 11916, // -15
    9548, 7620, 6100, 4904, 3906, // -10
    3121, 2501, 1991, 1586, 1277, // -5
    1024, 820, 655, 526, 423, // 0
    335, 272, 215, 172, 137, // 5
    110, 87, 70, 56, 45, // 10
    36, 29, 23, 18, 15, // 15
];

/// How a kernel's `prio` (as the sched tracepoints print it) maps to nice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PrioScale {
    /// Mainline CFS / EEVDF: 100..139 = nice -20..19, below 100 real-time.
    #[default]
    Mainline,
    /// Project C PDS: normal prios 152..191, nice 0 = 172 (`MIN_NORMAL_PRIO` 128 +
    /// `NORMAL_PRIO_NUM` 64 − 20); no dynamic adjustment (`MAX_PRIORITY_ADJ` 0).
    Pds,
    /// Project C BMQ: `prio = 120 + nice + boost`, boost in -7..7 and not traced. Taken
    /// at +7 (a CPU-bound task's penalty): exact for CPU hogs, too low a nice for
    /// interactive tasks. An approximation, said in the report.
    Bmq,
}

impl PrioScale {
    pub fn of_release(release: Option<&str>) -> PrioScale {
        let Some(r) = release.map(str::to_ascii_lowercase) else {
            return PrioScale::Mainline;
        };
        let words: Vec<&str> = r.split(|c: char| !c.is_ascii_alphanumeric()).collect();
        if words.contains(&"pds") {
            PrioScale::Pds
        } else if words.contains(&"bmq") {
            PrioScale::Bmq
        } else {
            PrioScale::Mainline
        }
    }

    /// nice of a fair-class task, `None` for real-time, idle-class or unknown prios.
    pub fn nice(self, prio: i32) -> Option<i32> {
        match self {
            PrioScale::Mainline => (100..=139).contains(&prio).then(|| prio - 120),
            PrioScale::Pds => (152..=191).contains(&prio).then(|| prio - 172),
            PrioScale::Bmq => (100..=146)
                .contains(&prio)
                .then(|| (prio - 127).clamp(-20, 19)),
        }
    }

    /// Whether `prio` may not give the nice exactly (the BFS family's scales: BMQ's untraced
    /// boost), so a recorded nice is the better source.
    pub(crate) fn prio_ambiguous(self) -> bool {
        self != PrioScale::Mainline
    }

    /// The kernel's weight of a fair-class task at `nice` (-20..=19).
    pub(crate) fn weight_of_nice(nice: i32) -> u32 {
        SCHED_PRIO_TO_WEIGHT[(nice.clamp(-20, 19) + 20) as usize]
    }

    /// Fairness weight of a task at `prio`; `None` = left out of fairness.
    pub fn weight(self, prio: i32) -> Option<u32> {
        self.nice(prio)
            .map(|n| SCHED_PRIO_TO_WEIGHT[(n + 20) as usize])
    }

    pub fn name(self) -> &'static str {
        match self {
            PrioScale::Mainline => "mainline (prio 100..139 = nice -20..19)",
            PrioScale::Pds => "PDS (prio 152..191 = nice -20..19)",
            PrioScale::Bmq => "BMQ (nice = prio - 127, boost assumed +7: approximate)",
        }
    }
}
