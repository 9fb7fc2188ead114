//! `schedtrace`: the command-line front end. Argument parsing and wiring only:
//! bytes -> events (`ingest`) -> timelines, metrics, report (`analysis`) -> text / JSON.

mod advice;
mod args;
mod progress_bar;
mod replay;

use args::{AnalyzeArgs, Cli, Command, CompareArgs, ConvertArgs, ExportArgs, TuiArgs};
use clap::Parser;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Exit code for unreadable or malformed input (like grep/ripgrep's "error" code).
const EXIT_BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Carried into every read of this run, never set process-wide.
    let read = ingest::ReadOptions {
        strict: cli.strict,
        max_inflate: cli.max_inflate,
        ..Default::default()
    };
    let result = match cli.command {
        Command::Analyze(a) => analyze(&a, read),
        Command::Convert(c) => convert(&c, read),
        Command::Compare(c) => compare(&c, read),
        Command::Tui(t) => tui(t, read),
        Command::Export(e) => export(&e, read),
        // The recorded command's own exit status passes through.
        Command::Record(r) => return record(&r),
        Command::Replay(r) => replay::run(&r, read).map_err(Failure::Message),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
        Err(Failure::Message(msg)) => {
            eprintln!("schedtrace: {msg}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

fn record(r: &args::RecordArgs) -> ExitCode {
    match record::run(&r.options()) {
        Ok(code) => ExitCode::from(code),
        Err(msg) => {
            eprintln!("schedtrace: {msg}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

enum Failure {
    /// The reader of our output went away (`| head`): not an error.
    BrokenPipe,
    Message(String),
}

impl From<ingest::Error> for Failure {
    fn from(e: ingest::Error) -> Failure {
        Failure::Message(e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Message(e.to_string())
        }
    }
}

fn analyze(a: &AnalyzeArgs, read: ingest::ReadOptions) -> Result<(), Failure> {
    // Checked before the trace is read: a bad --comm should not cost the analysis first.
    let selection = a.selection().map_err(Failure::Message)?;
    let options = analysis::pipeline::Options {
        config: a.analysis_config().map_err(Failure::Message)?,
        kernel_release: a.analysis.kernel_release.clone(),
        progress: Some(Arc::new(ingest::Progress::new())),
        read,
    };
    let shown = progress_bar::show(options.progress.as_ref().unwrap(), a.quiet);
    let analysed = analysis::pipeline::analyze_with_timeline(&a.file, &options);
    drop(shown);
    let (report, timeline) = analysed?;
    if let Some(timeline) = timeline {
        // The store is for the TUI and exports; here it is built (for --timeline and for the
        // series) and, with --timeline, sized.
        let t = timeline.map_err(|e| Failure::Message(e.to_string()))?;
        if a.timeline {
            let intervals: usize = t.tasks().iter().map(|task| task.len()).sum();
            eprintln!(
                "schedtrace: timeline: {intervals} intervals of {} tasks on {} CPUs, {:.1} MiB",
                t.tasks().len(),
                t.cpu_count(),
                t.memory_bytes() as f64 / (1 << 20) as f64
            );
        }
    }
    // One rule for every format (text already applies it while reading): an input without a
    // single event is an error; events but no scheduler events give a report and a warning.
    if report.quality.events.values().all(|&n| n == 0) {
        return Err(Failure::Message(format!(
            "{}: no events: a {} trace with no event in it (cut short, or nothing traced?)",
            a.file.display(),
            report.source.format.as_deref().unwrap_or("well-formed")
        )));
    }
    let shaped = report.select(&selection);
    for warning in advice::warnings(a, &report, &shaped) {
        eprintln!("schedtrace: warning: {warning}");
    }

    if let Some(path) = &a.json {
        // `--top` shortens the text table only: the JSON keeps every (filtered, grouped) row.
        let all_rows = report.select(&analysis::Selection {
            top: None,
            ..selection.clone()
        });
        let json =
            serde_json::to_string_pretty(&all_rows).map_err(|e| Failure::Message(e.to_string()))?;
        if path.as_os_str() == "-" {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{json}")?;
            return Ok(());
        }
        std::fs::write(path, json + "\n").map_err(|e| {
            Failure::Message(format!("{}: cannot write JSON report: {e}", path.display()))
        })?;
    }
    let text = render::report(&shaped, &a.text_options());
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

fn convert(c: &ConvertArgs, read: ingest::ReadOptions) -> Result<(), Failure> {
    let opts = ingest::perfetto::WriterOptions {
        compact_sched: c.compact_sched,
        ..Default::default()
    };
    let done = ingest::perfetto::convert(&c.file, &c.output, opts, read)?;
    if let Some(sidecar) =
        analysis::recording::copy_beside(&c.file, &c.output).map_err(Failure::Message)?
    {
        eprintln!(
            "schedtrace: the recording's sidecar goes along: {}",
            sidecar.display()
        );
    }
    let w = &done.written;
    eprintln!(
        "schedtrace: wrote {} ({} packets, {} bytes): {} events, {} compact switches, {} compact wakings, \
         {} task names, {} loss marks",
        c.output.display(),
        w.packets,
        w.bytes,
        w.regular_events,
        w.compact_switches,
        w.compact_wakings,
        w.task_names,
        w.lost_marks
    );
    for (what, n) in &w.not_written {
        eprintln!("schedtrace: not written: {n} {what}");
    }
    for note in &w.notes {
        eprintln!("schedtrace: note: {note}");
    }
    Ok(())
}

fn compare(c: &CompareArgs, read: ingest::ReadOptions) -> Result<(), Failure> {
    use analysis::compare;
    let unlabelled = c.runs.iter().filter(|r| r.label.is_none()).count();
    if c.labels.len() > unlabelled {
        return Err(Failure::Message(format!(
            "{} --label names for {unlabelled} runs without LABEL=",
            c.labels.len()
        )));
    }
    let (config, _) = c.analysis_config().map_err(Failure::Message)?;
    let options = c.options().map_err(Failure::Message)?;
    // Every input in one parallel batch, then regrouped per run argument. A run's
    // `--kernel-release LABEL=` default is known from its own label or its --label name.
    let progress = Arc::new(ingest::Progress::new());
    let inputs = args::run_inputs(
        &c.runs,
        &c.labels,
        &config,
        &c.scope.kernel_release,
        &progress,
        read,
    );
    let shown = progress_bar::show(&progress, c.quiet);
    let loaded = compare::load::load_all(&inputs);
    drop(shown);
    let mut loaded = loaded.into_iter();
    let mut repeats = Vec::with_capacity(c.runs.len());
    for spec in &c.runs {
        let run: Result<Vec<_>, String> = loaded.by_ref().take(spec.paths.len()).collect();
        repeats.push(run.map_err(Failure::Message)?);
    }
    let runs = compare::assemble(&c.runs, repeats, &c.labels);
    let scoped = c.scope.time.is_some()
        || c.scope.fair_set.is_some()
        || c.scope.topology.is_some()
        || !c.scope.affinity.is_empty();
    if let Some(json) = runs
        .iter()
        .flat_map(|r| &r.repeats)
        .find(|r| scoped && r.from_json_report)
    {
        return Err(Failure::Message(format!(
            "{}: a JSON report is already analysed; --time, --fair-set, --topology and --affinity apply to traces only \
             (run `analyze` on the trace with them, or give the trace)",
            json.path
        )));
    }
    let comparison = compare::compare(&runs, &options).map_err(Failure::Message)?;

    if let Some(path) = &c.json {
        let json = serde_json::to_string_pretty(&comparison)
            .map_err(|e| Failure::Message(e.to_string()))?;
        if path.as_os_str() == "-" {
            writeln!(std::io::stdout().lock(), "{json}")?;
            return Ok(());
        }
        std::fs::write(path, json + "\n").map_err(|e| {
            Failure::Message(format!(
                "{}: cannot write the comparison: {e}",
                path.display()
            ))
        })?;
    }
    let layout = render::compare::Layout {
        task_metrics: c.task_metrics.clone(),
        wide: c.wide,
        width: c.width,
        explain: c.explained(),
    };
    let text = match c.format {
        args::CompareFormat::Text => render::compare::text::render(&comparison, &layout),
        args::CompareFormat::Lkml => render::compare::lkml::render(&comparison, &layout),
        args::CompareFormat::Markdown => render::compare::markdown::render(&comparison, &layout),
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

fn export(e: &ExportArgs, read: ingest::ReadOptions) -> Result<(), Failure> {
    let progress = Arc::new(ingest::Progress::new());
    let request = e.request(&progress, read).map_err(Failure::Message)?;
    let shown = progress_bar::show(&progress, e.quiet);
    // Without the progress line (not a terminal), one line per input done, unless --quiet.
    let lines = shown.is_none() && !e.quiet;
    let done = |line: &str| {
        if lines {
            eprintln!("schedtrace: export {line}");
        }
    };
    let summary = export::export(&request, &done);
    drop(shown);
    let summary = summary.map_err(Failure::Message)?;
    let labels: Vec<&str> = summary.runs.iter().map(|r| r.label.as_str()).collect();
    eprintln!(
        "schedtrace: wrote {} rows of {} runs ({}) to {} as {}",
        summary.rows,
        summary.runs.len(),
        labels.join(", "),
        request.dir.display(),
        request.format.name()
    );
    Ok(())
}

fn tui(t: TuiArgs, read: ingest::ReadOptions) -> Result<(), Failure> {
    let options = tui::Options {
        sources: tui::Sources {
            runs: t.runs,
            labels: t.labels,
            config: analysis::Config {
                timeline: Some(t.analysis.timeline_options()),
                ..t.analysis.analysis_config().map_err(Failure::Message)?
            },
            kernel_release: t.analysis.kernel_release,
            read,
        },
        restore: tui::Restore {
            view: t.view,
            sort: t.sort,
            filter: t.filter,
            base: t.base,
            threshold_pct: Some(t.threshold),
            group: Some(t.group.group_by()),
        },
        mouse: t.mouse,
        ascii: t.ascii,
    };
    if t.print {
        let (width, height) = t.size;
        let frame = tui::print(options, width, height, &t.keys).map_err(Failure::Message)?;
        std::io::stdout().lock().write_all(frame.as_bytes())?;
        return Ok(());
    }
    tui::run(options).map_err(Failure::Message)
}
