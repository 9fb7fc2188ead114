//! The one way from an input to a report, used by `analyze`, `compare` (and the TUI and
//! export): read the input, run the one-pass analysis over its events, build the report.
//!
//! An input is a trace in any format ingest reads, or a JSON report written by
//! `analyze --json` (told apart by content, so a big trace can be analysed once and
//! compared many times). Traces are read through `ingest::read_path`, which maps the file
//! and gives pages back as it goes; compressed text streams as it inflates, and only a
//! compressed binary trace (or JSON report) is held whole.

use crate::timeline_store::TimelineError;
use crate::{Analyzer, Config, Report, Timeline};
use ingest::Progress;
use serde_json::Value;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// What to compute, besides the analysis' own [`Config`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub config: Config,
    /// `--kernel-release`: assumed when the trace does not record one (text traces): it
    /// decides the scheduler family and how PDS/BMQ priorities map to weights.
    pub kernel_release: Option<String>,
    /// Moved forward as the input is read (bytes, events), for a progress line or the TUI,
    /// and able to cancel the read; several inputs may share one (`compare`).
    pub progress: Option<Arc<Progress>>,
    /// `--strict` and `--max-inflate` of this run.
    pub read: ingest::ReadOptions,
}

impl Options {
    /// The progress to count in: the caller's, or one nobody looks at.
    fn with_progress<T>(&self, read: impl FnOnce(&Progress) -> T) -> T {
        match &self.progress {
            Some(progress) => read(progress),
            None => read(&Progress::new()),
        }
    }
}

/// What an input turned out to be.
#[derive(Debug, Clone)]
pub enum Loaded {
    /// A trace, analysed now.
    Trace(Box<Report>),
    /// A report written earlier by `analyze --json`, as it was written (a report of an
    /// older or newer schedtrace keeps the fields this one does not know).
    JsonReport(Value),
}

/// Analyses the trace at `path` (`-`: stdin). The report names the file as given.
pub fn analyze(path: &Path, options: &Options) -> Result<Report, ingest::Error> {
    analyze_with_timeline(path, options).map(|(report, _)| report)
}

/// The timeline store of an analysis: None when `Config::timeline` did not ask for it, an
/// error when it outgrew its memory limit.
pub type TimelineResult = Option<Result<Timeline, TimelineError>>;

/// [`analyze`], and the timeline store when `options.config.timeline` asks for it.
pub fn analyze_with_timeline(
    path: &Path,
    options: &Options,
) -> Result<(Report, TimelineResult), ingest::Error> {
    let config = with_recording(path, &options.config)?;
    read_with(path, options, Analyzer::new(config))
}

/// The configuration for the trace at `path`: `config` plus what its recording's sidecar
/// holds ([`crate::recording::find`]): the recorded allowed CPUs, joined to the `--affinity`
/// rules, and its topology where no `--topology` was given (the trace's own still comes
/// first). An unreadable sidecar is an error naming it: a recording half-read would report
/// affinity as unknown with no word why.
pub fn with_recording(path: &Path, config: &Config) -> Result<Config, ingest::Error> {
    let Some((sidecar, rec)) = crate::recording::find(path).map_err(ingest::Error::whole)? else {
        return Ok(config.clone());
    };
    let mut config = config.clone();
    let mut affinity = config.affinity.as_deref().cloned().unwrap_or_default();
    rec.fill(&mut affinity);
    config.affinity = Some(Arc::new(affinity));
    if let (None, Some(t)) = (&config.topology, &rec.topology) {
        let t = t
            .to_topology()
            .map_err(|e| ingest::Error::whole(format!("{}: {e}", sidecar.display())))?;
        config.topology = Some((t, format!("recording {}", sidecar.display())));
    }
    config.recording = Some(Arc::new((sidecar.display().to_string(), rec)));
    Ok(config)
}

/// [`analyze`], handing the timeline store's intervals and the per-event records to
/// `drain` as the trace is read ([`crate::drain`]: what `export` writes its tables from).
pub fn analyze_draining(
    path: &Path,
    options: &Options,
    drain: Box<dyn crate::drain::Drain>,
) -> Result<Report, ingest::Error> {
    let mut analyzer = Analyzer::new(with_recording(path, &options.config)?);
    analyzer.drain_into(drain);
    read_with(path, options, analyzer).map(|(report, _)| report)
}

/// [`analyze_with_timeline`], with every event also handed to `observer` in the same pass
/// (the replay's demand extraction records forks, exits and priorities beside the
/// analysis), and the trace's metadata as read (defaults filled in).
pub fn analyze_observing(
    path: &Path,
    options: &Options,
    observer: &mut dyn ingest::EventSink,
) -> Result<(Report, TimelineResult, ingest::TraceMeta), ingest::Error> {
    let mut analyzer = Analyzer::new(options.config.clone());
    let mut both = Both {
        analyzer: &mut analyzer,
        observer,
    };
    let meta = read_into(path, options, &mut both)?;
    let (report, timeline) = analyzer.finish_with_timeline(&meta, &path.display().to_string());
    Ok((report, timeline, meta.meta))
}

/// Hands each event to the analyzer, then to an observer.
struct Both<'a> {
    analyzer: &'a mut Analyzer,
    observer: &'a mut dyn ingest::EventSink,
}

impl ingest::EventSink for Both<'_> {
    fn event(&mut self, event: &ingest::Event) {
        self.analyzer.event(event);
        self.observer.event(event);
    }

    fn meta(&mut self, meta: &ingest::TraceMeta) {
        self.analyzer.meta(meta);
        self.observer.meta(meta);
    }

    fn marks(&mut self, marks: &ingest::Marks) {
        self.analyzer.marks(marks);
        self.observer.marks(marks);
    }
}

/// Reads the trace at `path` through `analyzer`.
fn read_with(
    path: &Path,
    options: &Options,
    mut analyzer: Analyzer,
) -> Result<(Report, TimelineResult), ingest::Error> {
    let ingested = read_into(path, options, &mut analyzer)?;
    Ok(analyzer.finish_with_timeline(&ingested, &path.display().to_string()))
}

/// Reads the trace at `path` into `sink`, with `--kernel-release` supplied where the trace
/// lacks one.
fn read_into(
    path: &Path,
    options: &Options,
    sink: &mut dyn ingest::EventSink,
) -> Result<ingest::Ingested, ingest::Error> {
    let mut sink = ingest::meta::WithDefaults::new(sink, options.kernel_release.clone());
    let mut ingested = options.with_progress(|progress| {
        ingest::read_path_opts(path, &mut sink, progress, options.read)
    })?;
    ingested.meta = sink.complete(&ingested.meta);
    Ok(ingested)
}

/// Reads `path` as a JSON report or analyses it as a trace; errors name the file.
pub fn load(path: &Path, options: &Options) -> Result<Loaded, String> {
    let shown = path.display().to_string();
    // A stream (stdin, a FIFO, `<(...)`) is read once: its head is not peeked at here, it goes
    // to the reader whole (a JSON report in one is read as trace text, and refused).
    let stream = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
    if path.as_os_str() == "-" || stream {
        return analyze(path, options)
            .map(|r| Loaded::Trace(Box::new(r)))
            .map_err(|e| e.to_string());
    }
    let head = read_head(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let wrapper = ingest::source::Wrapper::detect(&head);
    let json = match wrapper {
        None => starts_like_json(&head),
        // Only the head is inflated to tell a compressed report from a compressed trace: a
        // trace goes through `analyze` like a plain one, so compressed text streams as it
        // inflates instead of being held whole (`compare` of several inputs at once).
        Some(wrapper) => inflated_head(path, wrapper).is_ok_and(|h| starts_like_json(&h)),
    };
    if !json {
        // The usual case: a trace, mapped and read in one pass.
        return analyze(path, options)
            .map(|r| Loaded::Trace(Box::new(r)))
            .map_err(|e| e.to_string());
    }
    let bytes = options
        .with_progress(|progress| ingest::source::load_with(path, progress, options.read))
        .map_err(|e| e.to_string())?;
    // The head starts like JSON, so the whole is a report or an error.
    json_report(&bytes)
        .map_err(|e| format!("{shown}: {e}"))?
        .map(Loaded::JsonReport)
        .ok_or_else(|| format!("{shown}: starts like JSON but is not"))
}

/// The first bytes of a file (enough to tell JSON and the compression wrappers).
fn read_head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)?.take(64).read_to_end(&mut head)?;
    Ok(head)
}

/// The first inflated bytes of a file compressed with `wrapper`.
fn inflated_head(path: &Path, wrapper: ingest::source::Wrapper) -> std::io::Result<Vec<u8>> {
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut head = Vec::with_capacity(64);
    ingest::source::decoder(wrapper, file)?
        .take(64)
        .read_to_end(&mut head)?;
    Ok(head)
}

fn starts_like_json(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// `Some(report)` when `bytes` are a schedtrace JSON report, `None` when they are not
/// JSON at all (a trace), an error when they are JSON but not a report.
pub fn json_report(bytes: &[u8]) -> Result<Option<Value>, String> {
    if !starts_like_json(bytes) {
        return Ok(None);
    }
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("starts like JSON but does not parse: {e}"))?;
    match value.get("schema_version").and_then(Value::as_u64) {
        Some(_) if value.get("tasks").is_some_and(Value::is_array) => Ok(Some(value)),
        Some(_) => Err("JSON with schema_version but no tasks array: not a schedtrace report (a comparison cannot be compared again)".into()),
        None => Err("JSON without schema_version: not a report written by `schedtrace analyze --json`".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_detection() {
        assert_eq!(json_report(b"\x17\x08Dtracing").unwrap(), None);
        assert_eq!(json_report(b"  ").unwrap(), None);
        assert!(json_report(b"{\"schema_version\": 1, \"tasks\": []}")
            .unwrap()
            .is_some());
        assert!(json_report(b"{\"a\": 1}").is_err());
        assert!(json_report(b"{ broken").is_err());
    }
}
