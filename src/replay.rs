//! `schedtrace replay`: a trace's demand extracted (the `replay` crate), written as JSON or
//! rt-app JSON, with a one-line summary on stderr; with `--as`, the demand run through a
//! scheduler model, written as a predicted Perfetto trace, and both runs' headlines side by
//! side.

use crate::args::ReplayArgs;
use replay::demand::{Demand, Phase, Wake};
use std::io::Write;

pub(crate) fn run(r: &ReplayArgs, read: ingest::ReadOptions) -> Result<(), String> {
    let affinity = match r.affinity.as_slice() {
        [] => None,
        rules => Some(std::sync::Arc::new(
            analysis::affinity::Affinity::from_rules(rules)?,
        )),
    };
    let options = replay::Options {
        analysis: analysis::pipeline::Options {
            config: analysis::Config {
                affinity,
                ..Default::default()
            },
            kernel_release: r.kernel_release.clone(),
            read,
            ..Default::default()
        },
        hz: r.hz,
    };
    if let Some(out) = &r.output {
        // Checked before the trace is read: reading it first would be time thrown away.
        if let (Ok(a), Ok(b)) = (r.file.canonicalize(), out.canonicalize()) {
            if a == b {
                return Err(format!(
                    "{}: the output would overwrite the input",
                    out.display()
                ));
            }
        }
    }
    let extracted = replay::extract(&r.file, &options)?;
    let demand = &extracted.demand;
    eprintln!("schedtrace: {}", summary(demand));
    if let Some(path) = &r.demand_json {
        write_json(path, demand)?;
    }
    if let Some(path) = &r.rt_app {
        let window_s = (demand.end_ns - demand.start_ns).div_ceil(1_000_000_000);
        let duration = r.rt_app_duration.unwrap_or(window_s.max(1) as u32);
        write_out(
            path,
            replay::rtapp::write(demand, duration, r.rt_app_cpus.unwrap_or(demand.cpus)).as_bytes(),
            "rt-app JSON",
        )?;
    }
    if let (Some(model), Some(out)) = (r.model, &r.output) {
        predict(r, model, out, extracted)?;
    }
    Ok(())
}

/// Runs the demand through `model`, writes the predicted trace, analyses it like any trace
/// and prints its headline beside the input's.
///
/// Takes the extraction whole so that the demand and the schedule can be let go before
/// the predicted trace is read back: that read holds the whole file and its events, and
/// the headline needs of the rest only the workload's names and pids.
fn predict(
    r: &ReplayArgs,
    model: replay::sim::model::ModelName,
    out: &std::path::Path,
    extracted: replay::Extracted,
) -> Result<(), String> {
    let demand = &extracted.demand;
    let opts = replay::sim::SimOptions {
        seed: r.seed,
        hz: r.model_hz,
        tick_offset_ns: None,
    };
    if let Some(note) = policy_note(demand) {
        eprintln!("schedtrace: {note}");
    }
    let started = std::time::Instant::now();
    let prediction = replay::sim::simulate(demand, model, opts)?;
    let took = started.elapsed().as_secs_f64();
    replay::predicted::write_file(demand, &prediction, out)?;
    let s = &prediction.schedule;
    eprintln!(
        "schedtrace: predicted by {}; HZ {}, seed {}: {} events in {:.3} s ({:.0} events/s), {} pulls, \
         {} dependencies released at their waker's end, {} waits for a peer's answer, {} tasks still \
         waiting on a dependency at the end; \
         wrote {}",
        prediction.model.describe(),
        s.hz,
        r.seed,
        s.stats.events,
        took,
        s.stats.events as f64 / took.max(1e-9),
        s.stats.pulls,
        s.stats.released_at_waker_end,
        s.stats.answer_waits,
        s.stats.stuck_on_dependency,
        out.display()
    );
    drop(prediction);
    let workload = workload(demand);
    let replay::Extracted { demand, report } = extracted;
    drop(demand);
    let predicted = analysis::pipeline::analyze(out, &analysis::pipeline::Options::default())
        .map_err(|e| e.to_string())?;
    print!("{}", headline(&workload, &report, &predicted));
    Ok(())
}

/// The workload's tasks whose policy the simulator does not implement and runs as another
/// (`replayed_as`: SCHED_DEADLINE, a traced real-time task, SCHED_EXT), by name; None when
/// there are none (kernel threads, such as the traced real-time `migration/N`, are counted
/// only beside them).
fn policy_note(d: &Demand) -> Option<String> {
    let other = || d.tasks.iter().filter(|t| t.sched.replayed_as.is_some());
    let named: Vec<String> = other()
        .filter(|t| replay::rtapp::in_workload(t))
        .map(|t| {
            format!(
                "{} {} ({:?}, {:?}) as {}",
                t.comm,
                t.pid,
                t.policy,
                t.sched.policy_from,
                t.sched.replayed_as.as_deref().unwrap_or("?")
            )
        })
        .collect();
    if named.is_empty() {
        return None;
    }
    Some(format!(
        "policies replayed as another: {}; and {} other tasks",
        named.join(", "),
        other().count() - named.len()
    ))
}

/// The workload's tasks (`rtapp::in_workload`) as the headline names them: comm and pid.
fn workload(d: &Demand) -> Vec<(String, i32)> {
    d.tasks
        .iter()
        .filter(|t| replay::rtapp::in_workload(t))
        .map(|t| (t.comm.clone(), t.pid))
        .collect()
}

/// Per workload task: its share of the workload's CPU time, involuntary switches per
/// second, median slice and median wakeup latency, in the input and in the prediction.
fn headline(
    workload: &[(String, i32)],
    input: &analysis::Report,
    predicted: &analysis::Report,
) -> String {
    let label = |r: &analysis::Report| {
        format!(
            "{} ({})",
            r.source.scheduler_name,
            r.source.kernel_release.as_deref().unwrap_or("?")
        )
    };
    let rows = |r: &analysis::Report| -> Vec<Option<[String; 4]>> {
        let row_of = |pid| r.tasks.iter().find(|row| row.pid == pid);
        let total: u64 = workload
            .iter()
            .filter_map(|(_, pid)| row_of(*pid))
            .map(|row| row.runtime_ns)
            .sum();
        let secs = r.window.len_ns() as f64 / 1e9;
        workload
            .iter()
            .map(|(_, pid)| {
                row_of(*pid).map(|row| {
                    [
                        format!(
                            "{:.1}%",
                            100.0 * row.runtime_ns as f64 / total.max(1) as f64
                        ),
                        format!("{:.1}", row.switches.involuntary as f64 / secs.max(1e-9)),
                        format!("{:.2}", row.slices.p50_ns as f64 / 1e6),
                        format!("{:.3}", row.wakeup_latency.p50_ns as f64 / 1e6),
                    ]
                })
            })
            .collect()
    };
    let (a, b) = (rows(input), rows(predicted));
    let mut out = format!(
        "{:<24} {:>38} | {:>38}\n{:<24} {:>7} {:>9} {:>10} {:>9} | {:>7} {:>9} {:>10} {:>9}\n",
        "",
        format!("input: {}", label(input)),
        format!("predicted: {}", label(predicted)),
        "task",
        "share",
        "invol/s",
        "slice p50",
        "wake p50",
        "share",
        "invol/s",
        "slice p50",
        "wake p50"
    );
    let dash = || ["-".to_string(), "-".into(), "-".into(), "-".into()];
    for ((comm, pid), (x, y)) in workload.iter().zip(a.into_iter().zip(b)) {
        let (x, y) = (x.unwrap_or_else(dash), y.unwrap_or_else(dash));
        out.push_str(&format!(
            "{:<24} {:>7} {:>9} {:>10} {:>9} | {:>7} {:>9} {:>10} {:>9}\n",
            format!("{comm} {pid}"),
            x[0],
            x[1],
            x[2],
            x[3],
            y[0],
            y[1],
            y[2],
            y[3]
        ));
    }
    out.push_str("(slice and wakeup latency medians in ms)\n");
    out
}

/// `demand` as pretty JSON to `path` (`-`: stdout), written as it is serialized: the
/// demand of a large trace is millions of phases, and its text several times their size.
fn write_json(path: &std::path::Path, demand: &Demand) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| {
        if path.as_os_str() == "-" {
            format!("cannot write the demand: {e}")
        } else {
            format!("{}: cannot write the demand: {e}", path.display())
        }
    };
    let write = |out: &mut dyn Write| -> Result<(), String> {
        let mut out = std::io::BufWriter::new(out);
        serde_json::to_writer_pretty(&mut out, demand).map_err(|e| fail(&e))?;
        out.write_all(b"\n").map_err(|e| fail(&e))?;
        out.flush().map_err(|e| fail(&e))
    };
    if path.as_os_str() == "-" {
        return write(&mut std::io::stdout().lock());
    }
    let mut file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    write(&mut file)
}

/// `-` is stdout; a file is written whole.
fn write_out(path: &std::path::Path, bytes: &[u8], what: &str) -> Result<(), String> {
    if path.as_os_str() == "-" {
        return std::io::stdout()
            .lock()
            .write_all(bytes)
            .map_err(|e| format!("cannot write the {what}: {e}"));
    }
    std::fs::write(path, bytes)
        .map_err(|e| format!("{}: cannot write the {what}: {e}", path.display()))
}

fn summary(d: &Demand) -> String {
    let phases = d.tasks.iter().flat_map(|t| &t.phases);
    let (mut bursts, mut timed, mut deps) = (0u64, 0u64, 0u64);
    for p in phases {
        match p {
            Phase::Burst { .. } => bursts += 1,
            Phase::Block {
                wake: Wake::Timed { .. },
                ..
            } => timed += 1,
            Phase::Block {
                wake: Wake::Dependency { .. },
                ..
            } => deps += 1,
        }
    }
    let workload = d
        .tasks
        .iter()
        .filter(|t| replay::rtapp::in_workload(t))
        .count();
    format!(
        "demand of {}: {} tasks ({workload} in the workload), {bursts} bursts, {timed} timed blocks, \
         {deps} dependencies; {} CPUs, HZ {} ({:?}); {} lost blocks, {} unknown wakers",
        d.source,
        d.tasks.len(),
        d.cpus,
        d.hz.value,
        d.hz.source,
        d.ledger.lost_blocks,
        d.ledger.unknown_wakers
    )
}
