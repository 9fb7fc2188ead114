//! `schedtrace`: the command-line front end. Argument parsing and wiring only:
//! bytes -> events (`ingest`) -> timelines, metrics, report (`analysis`) -> text / JSON.

mod args;
mod progress_bar;

use args::{AnalyzeArgs, Cli, Command, CompareArgs, ConvertArgs};
use clap::Parser;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

/// Exit code for unreadable or malformed input (like grep/ripgrep's "error" code).
const EXIT_BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Analyze(a) => analyze(&a),
        Command::Convert(c) => convert(&c),
        Command::Compare(c) => compare(&c),
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

fn analyze(a: &AnalyzeArgs) -> Result<(), Failure> {
    let progress = Arc::new(ingest::Progress::new());
    let options = analysis::pipeline::Options {
        config: a.analysis_config().map_err(Failure::Message)?,
        kernel_release: a.kernel_release.clone(),
        progress: Some(Arc::clone(&progress)),
    };
    let shown = progress_bar::show(&progress, a.quiet);
    let report = analysis::pipeline::analyze(&a.file, &options);
    drop(shown);
    let report = report?;
    let shaped = report.select(&a.selection().map_err(Failure::Message)?);

    if let Some(path) = &a.json {
        let json =
            serde_json::to_string_pretty(&shaped).map_err(|e| Failure::Message(e.to_string()))?;
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

fn convert(c: &ConvertArgs) -> Result<(), Failure> {
    let opts = ingest::perfetto::WriterOptions {
        compact_sched: c.compact_sched,
        ..Default::default()
    };
    let done = ingest::perfetto::convert(&c.file, &c.output, opts)?;
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

fn compare(c: &CompareArgs) -> Result<(), Failure> {
    use analysis::compare;
    let unlabelled = c.runs.iter().filter(|r| r.label.is_none()).count();
    if c.labels.len() > unlabelled {
        return Err(Failure::Message(format!(
            "{} --label names for {unlabelled} runs without LABEL=",
            c.labels.len()
        )));
    }
    // Every input in one parallel batch, then regrouped per run argument.
    let paths: Vec<std::path::PathBuf> = c.runs.iter().flat_map(|r| r.paths.clone()).collect();
    let progress = Arc::new(ingest::Progress::new());
    let options = analysis::pipeline::Options {
        progress: Some(Arc::clone(&progress)),
        ..Default::default()
    };
    let shown = progress_bar::show(&progress, c.quiet);
    let loaded = compare::load::load_all(&paths, &options);
    drop(shown);
    let mut loaded = loaded.into_iter();
    let mut repeats = Vec::with_capacity(c.runs.len());
    for spec in &c.runs {
        let run: Result<Vec<_>, String> = loaded.by_ref().take(spec.paths.len()).collect();
        repeats.push(run.map_err(Failure::Message)?);
    }
    let runs = compare::assemble(&c.runs, repeats, &c.labels);
    let options = compare::Options {
        base: c.base.clone(),
        threshold_pct: c.threshold,
        top: c.top,
        sort: c.sort,
    };
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
    let text = compare::text::render(&comparison, &c.task_metrics);
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}
