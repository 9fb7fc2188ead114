//! The inputs of a session and their loading on worker threads. Every run argument
//! (`[LABEL=]FILE[,FILE...]`, as for `compare`) becomes labelled runs; every file of a run
//! is one [`Input`], a trace analysed like `analyze` does or a JSON report read as it is.
//!
//! Loading runs off the UI thread and reports per-input progress over a channel, so the
//! first frame appears at once; each input's readers move an [`ingest::Progress`] (bytes
//! read, total, events) that its gauge shows, and that cancels the read. Each load has a
//! generation number: a newer request (`:time`, `:cpu`) makes the results of older ones
//! stale, and they are dropped.

use analysis::compare::{self, RunSpec};
use analysis::{Config, Report, Timeline};
use ingest::Progress;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Instant;

/// Window of the series behind the sparklines and the Jain-over-time line.
pub(crate) const SERIES_WINDOW_NS: u64 = 10_000_000;

/// What to load and how to analyse it.
#[derive(Debug, Clone)]
pub struct Sources {
    pub runs: Vec<RunSpec>,
    /// Names for runs given without `LABEL=` (`--label`), in order.
    pub labels: Vec<String>,
    pub config: Config,
    /// `--kernel-release` for traces that do not record one.
    pub kernel_release: Option<String>,
    /// `--strict` and `--max-inflate` of this run.
    pub read: ingest::ReadOptions,
}

/// One loaded file.
#[derive(Debug, Clone)]
pub struct Input {
    /// The run label, with ` [N]` for the N-th repeat of a run of several.
    pub label: String,
    pub path: String,
    /// Shared with the comparison's runs.
    pub report: Arc<Report>,
    /// A JSON report has no exact samples and no timeline.
    pub from_json_report: bool,
    /// The timeline store (per task intervals, per CPU summaries): `None` for a JSON
    /// report, the reason when it could not be built (over its memory limit).
    pub timeline: Option<Result<Arc<Timeline>, String>>,
}

/// What loading one file gives.
struct Loaded {
    report: Report,
    from_json_report: bool,
    timeline: Option<Result<Arc<Timeline>, String>>,
}

/// Everything loaded: the inputs in argument order and the same as compare's runs (the
/// typed reports, shared: `compare` reads them as they are).
#[derive(Debug, Clone)]
pub struct Data {
    pub inputs: Vec<Input>,
    pub runs: Vec<compare::Run<Arc<Report>>>,
}

/// Where one input's load stands (drives its gauge).
#[derive(Debug, Clone)]
pub enum Stage {
    Waiting,
    /// Reading and analysing since `since`; the readers move `progress`.
    Working {
        progress: Arc<Progress>,
        since: Instant,
    },
    Done {
        seconds: f64,
        events: u64,
    },
    Failed(String),
}

/// Messages of the loader to the UI.
#[derive(Debug)]
pub enum Message {
    Stage {
        generation: u64,
        input: usize,
        stage: Stage,
    },
    Loaded {
        generation: u64,
        result: Result<Data, String>,
    },
}

/// The file paths of `sources`, in argument order.
pub fn paths(sources: &Sources) -> Vec<std::path::PathBuf> {
    sources.runs.iter().flat_map(|r| r.paths.clone()).collect()
}

/// A fresh progress counter for each input of `sources`.
pub(crate) fn progress_counters(sources: &Sources) -> Vec<Arc<Progress>> {
    paths(sources).iter().map(|_| Arc::default()).collect()
}

/// Starts loading `sources` on worker threads; progress and the result arrive on `tx`.
/// `current` holds the newest generation: a worker stops early once it is outdated.
/// `progress`: one counter per input (see [`progress_counters`]); cancelling one stops
/// its read.
pub fn start(
    sources: Sources,
    generation: u64,
    current: Arc<AtomicU64>,
    progress: Vec<Arc<Progress>>,
    tx: Sender<Message>,
) {
    std::thread::spawn(move || {
        let result = load(&sources, generation, &current, &progress, &tx);
        let _ = tx.send(Message::Loaded { generation, result });
    });
}

/// Loads synchronously (for `--print` and tests): waits for the result.
pub(crate) fn load_now(sources: &Sources) -> Result<Data, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    let result = load(
        sources,
        0,
        &AtomicU64::new(0),
        &progress_counters(sources),
        &tx,
    );
    drop(rx);
    result
}

fn load(
    sources: &Sources,
    generation: u64,
    current: &AtomicU64,
    progress: &[Arc<Progress>],
    tx: &Sender<Message>,
) -> Result<Data, String> {
    let paths = paths(sources);
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len())
        .max(1);
    let started = Instant::now();
    let mut slots: Vec<Option<Result<Loaded, String>>> = (0..paths.len()).map(|_| None).collect();
    let slots_lock = std::sync::Mutex::new(&mut slots);
    // A shared counter hands out inputs, so a few large ones do not wait behind each other.
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= paths.len() || current.load(Ordering::Relaxed) != generation {
                    break;
                }
                let Some(counter) = progress.get(i).cloned() else {
                    break;
                };
                let stage = Stage::Working {
                    progress: counter.clone(),
                    since: Instant::now(),
                };
                let _ = tx.send(Message::Stage {
                    generation,
                    input: i,
                    stage,
                });
                let result = load_one(&paths[i], sources, &counter);
                let stage = match &result {
                    Ok(Loaded { report, .. }) => Stage::Done {
                        seconds: started.elapsed().as_secs_f64(),
                        events: report.quality.events.values().sum(),
                    },
                    Err(e) => Stage::Failed(e.clone()),
                };
                let _ = tx.send(Message::Stage {
                    generation,
                    input: i,
                    stage,
                });
                if let Ok(mut slots) = slots_lock.lock() {
                    slots[i] = Some(result);
                }
            });
        }
    });
    if current.load(Ordering::Relaxed) != generation {
        return Err("superseded".into());
    }
    let loaded: Vec<Loaded> = slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err("not loaded".into())))
        .collect::<Result<_, _>>()?;
    assemble(sources, paths, loaded)
}

/// One input's report, shared, and what came with it.
type Typed = (
    String,
    Arc<Report>,
    bool,
    Option<Result<Arc<Timeline>, String>>,
);

/// Labels the loaded reports the way `compare` does.
fn assemble(
    sources: &Sources,
    paths: Vec<std::path::PathBuf>,
    loaded: Vec<Loaded>,
) -> Result<Data, String> {
    let mut loaded = paths.iter().zip(loaded);
    let mut repeats = Vec::with_capacity(sources.runs.len());
    let mut typed: Vec<Vec<Typed>> = Vec::new();
    for spec in &sources.runs {
        let mut run = Vec::new();
        let mut reports = Vec::new();
        for (path, one) in loaded.by_ref().take(spec.paths.len()) {
            let shown = path.display().to_string();
            let report = Arc::new(one.report);
            // The typed report as it is, its exact samples in its rows.
            run.push(compare::Repeat {
                path: shown.clone(),
                report: report.clone(),
                from_json_report: one.from_json_report,
                samples: None,
            });
            reports.push((shown, report, one.from_json_report, one.timeline));
        }
        repeats.push(run);
        typed.push(reports);
    }
    let runs = compare::assemble(&sources.runs, repeats, &sources.labels);
    // `assemble` merges runs given the same LABEL=: walk its runs to label every input.
    let mut inputs: Vec<Input> = typed
        .into_iter()
        .flatten()
        .map(|(path, report, from_json_report, timeline)| Input {
            label: String::new(),
            path,
            report,
            from_json_report,
            timeline,
        })
        .collect();
    for run in &runs {
        let several = run.repeats.len() > 1;
        for (k, repeat) in run.repeats.iter().enumerate() {
            if let Some(input) = inputs
                .iter_mut()
                .find(|i| i.label.is_empty() && i.path == repeat.path)
            {
                input.label = if several {
                    format!("{} [{}]", run.label, k + 1)
                } else {
                    run.label.clone()
                };
            }
        }
    }
    Ok(Data { inputs, runs })
}

/// One input: a JSON report as it is, or a trace analysed like `analyze` does, counting
/// in `progress`.
fn load_one(path: &Path, sources: &Sources, progress: &Progress) -> Result<Loaded, String> {
    let shown = path.display().to_string();
    // A plain trace is read straight from its file (mapped, its pages given back as the
    // readers pass); a compressed file or JSON is loaded whole first.
    // A file that cannot be opened takes the second way, whose error names the cause.
    let bytes = if plain_trace(path).unwrap_or(false) {
        None
    } else {
        let bytes =
            ingest::source::load_with(path, progress, sources.read).map_err(|e| e.to_string())?;
        if let Some(value) =
            analysis::pipeline::json_report(&bytes).map_err(|e| format!("{shown}: {e}"))?
        {
            let report: Report =
                serde_json::from_value(value).map_err(|e| format!("{shown}: not a report: {e}"))?;
            return Ok(Loaded {
                report,
                from_json_report: true,
                timeline: None,
            });
        }
        Some(bytes)
    };
    // The TUI always builds the timeline store and the series (the timeline view, the
    // sparklines); `--timeline-mem` may have set the store's limit already.
    // With what the trace's recording kept beside it (allowed CPUs, topology), as `analyze`.
    let mut config =
        analysis::pipeline::with_recording(path, &sources.config).map_err(|e| e.to_string())?;
    config.timeline.get_or_insert_with(Default::default);
    config.series.get_or_insert(SERIES_WINDOW_NS);
    let mut analyzer = analysis::Analyzer::new(config);
    let mut sink = ingest::meta::WithDefaults::new(&mut analyzer, sources.kernel_release.clone());
    let mut ingested = match &bytes {
        None => ingest::read_path_opts(path, &mut sink, progress, sources.read),
        Some(bytes) => ingest::read_bytes_opts(bytes, &mut sink, progress, sources.read)
            .map_err(|e| e.in_file(path)),
    }
    .map_err(|e| e.to_string())?;
    ingested.meta = sink.complete(&ingested.meta);
    drop(bytes);
    // The timeline view's per-CPU summaries are built after the first frame (by the
    // terminal's driver, or when the view is first drawn), not before it.
    let (report, timeline) = analyzer.finish_with_timeline(&ingested, &shown);
    Ok(Loaded {
        report,
        from_json_report: false,
        timeline: timeline.map(|t| t.map(Arc::new).map_err(|e| e.to_string())),
    })
}

/// True when `path` is a regular file that starts like neither a compressed file nor JSON (the
/// usual trace). A stream (a FIFO, `<(...)`) is not peeked at: it can be read only once, and
/// opening a FIFO here would wait for its writer.
fn plain_trace(path: &Path) -> std::io::Result<bool> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() && !meta.is_dir() {
        return Ok(false);
    }
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)?.take(64).read_to_end(&mut head)?;
    let json = head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    Ok(!json && ingest::source::Wrapper::detect(&head).is_none())
}
