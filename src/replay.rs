//! `schedtrace replay`: a trace's demand extracted (the `replay` crate), written as JSON or
//! rt-app JSON, with a one-line summary on stderr.

use crate::args::ReplayArgs;
use replay::demand::{Demand, Phase, Wake};
use std::io::Write;

pub(crate) fn run(r: &ReplayArgs, read: ingest::ReadOptions) -> Result<(), String> {
    let options = replay::Options {
        analysis: analysis::pipeline::Options {
            kernel_release: r.kernel_release.clone(),
            read,
            ..Default::default()
        },
        hz: r.hz,
    };
    let extracted = replay::extract(&r.file, &options)?;
    let demand = &extracted.demand;
    eprintln!("schedtrace: {}", summary(demand));
    if let Some(path) = &r.demand_json {
        let json = serde_json::to_string_pretty(demand).map_err(|e| e.to_string())? + "\n";
        write_out(path, json.as_bytes(), "demand")?;
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
    Ok(())
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
