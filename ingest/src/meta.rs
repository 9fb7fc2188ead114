//! What a reader tells about a trace besides its events: where it came from
//! (format, kernel, CPUs, clock) and what it read (events per kind, rejects, order).

use std::collections::BTreeMap;

/// Input formats, detected from the content (never from the file name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    TraceDat,
    PerfData,
    Text,
    Perfetto,
    /// A schedviz capture packed in a tar archive (a capture folder is told apart by path).
    SchedViz,
}

impl Format {
    /// Name used in reports and JSON (`source.format`).
    pub fn name(self) -> &'static str {
        match self {
            Format::TraceDat => "trace.dat",
            Format::PerfData => "perf.data",
            Format::Text => "text",
            Format::Perfetto => "perfetto",
            Format::SchedViz => "schedviz",
        }
    }
}

/// Metadata of a trace (JSON `source`).
#[derive(Debug, Clone, Default)]
pub struct TraceMeta {
    pub format: Option<Format>,
    /// e.g. "6", "7 (zstd)" for trace.dat, "file"/"pipe" for perf.data.
    pub format_version: String,
    /// Kernel release (`uname -r`), used to detect the scheduler family.
    pub kernel_release: Option<String>,
    /// Number of CPUs of the traced system (or with data, when that is all we know).
    pub cpus: Option<u32>,
    /// Trace clock name (`local`, `global`, `perf`, ...).
    pub clock: Option<String>,
    /// Other metadata worth showing (trace-cmd version, hostname, uname, cmdline...).
    pub extra: BTreeMap<String, String>,
    /// CPU topology (cores, caches, NUMA nodes) when the trace records it (perf.data).
    pub topology: Option<crate::topology::Topology>,
}

/// What the reader saw while reading (JSON `quality`, together with the analysis' own checks).
#[derive(Debug, Clone, Default)]
pub struct IngestStats {
    /// Events read, by event name (`sched_switch`, `print`, ...), as `trace-cmd report` counts them.
    pub events: BTreeMap<String, u64>,
    /// Records that could not be decoded, by reason.
    pub rejected: BTreeMap<String, u64>,
    /// Events that arrived out of timestamp order and had to be sorted.
    pub out_of_order: u64,
    /// A few examples of rejected input with their location, for the report.
    pub reject_examples: Vec<String>,
    /// Damaged stretches stepped over (see [`crate::damage`]), in input order per CPU.
    pub skipped: Vec<crate::damage::Skipped>,
}

impl IngestStats {
    pub fn count_event(&mut self, name: &str) {
        *self.events.entry(name.to_string()).or_insert(0) += 1;
    }

    pub fn reject(&mut self, reason: &str, example: impl FnOnce() -> String) {
        *self.rejected.entry(reason.to_string()).or_insert(0) += 1;
        if self.reject_examples.len() < 5 {
            self.reject_examples.push(example());
        }
    }

    /// Adds what another part of the same reader saw (another thread's share).
    pub fn merge(&mut self, other: IngestStats) {
        for (name, n) in other.events {
            *self.events.entry(name).or_insert(0) += n;
        }
        for (reason, n) in other.rejected {
            *self.rejected.entry(reason).or_insert(0) += n;
        }
        self.out_of_order += other.out_of_order;
        self.skipped.extend(other.skipped);
        let room = 5usize.saturating_sub(self.reject_examples.len());
        self.reject_examples
            .extend(other.reject_examples.into_iter().take(room));
    }
}

/// The result of reading one trace.
#[derive(Debug, Clone, Default)]
pub struct Ingested {
    pub meta: TraceMeta,
    pub stats: IngestStats,
    /// The texts of the trace's `print` markers: this read's table (see [`crate::Mark`]),
    /// attached by the read functions of the crate as the read ends (the readers of each format
    /// leave it empty).
    pub marks: crate::Marks,
}

/// Wraps a sink and supplies metadata the trace itself lacks (a text trace has no kernel
/// release, which the analysis needs for the scheduler family and PDS/BMQ priorities). The
/// sink is told the metadata before the first event, whether or not the reader tells it.
pub struct WithDefaults<'a> {
    sink: &'a mut dyn crate::EventSink,
    kernel_release: Option<String>,
    told: bool,
}

impl<'a> WithDefaults<'a> {
    pub fn new(
        sink: &'a mut dyn crate::EventSink,
        kernel_release: Option<String>,
    ) -> WithDefaults<'a> {
        WithDefaults {
            sink,
            kernel_release,
            told: false,
        }
    }

    /// `meta` with the defaults filled in where the trace said nothing.
    pub fn complete(&self, meta: &TraceMeta) -> TraceMeta {
        let mut meta = meta.clone();
        if meta.kernel_release.is_none() {
            meta.kernel_release = self.kernel_release.clone();
        }
        meta
    }
}

impl crate::EventSink for WithDefaults<'_> {
    fn event(&mut self, event: &crate::Event) {
        if !self.told {
            let meta = self.complete(&TraceMeta::default());
            self.meta(&meta);
        }
        self.sink.event(event);
    }

    fn events(&mut self, events: &[crate::Event]) {
        if !self.told && !events.is_empty() {
            let meta = self.complete(&TraceMeta::default());
            self.meta(&meta);
        }
        self.sink.events(events);
    }

    fn meta(&mut self, meta: &TraceMeta) {
        self.told = true;
        let meta = self.complete(meta);
        self.sink.meta(&meta);
    }

    fn marks(&mut self, marks: &crate::Marks) {
        self.sink.marks(marks);
    }
}
