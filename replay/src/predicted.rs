//! A predicted schedule written as a trace: the records turned into the ingest's normalized
//! events and fed to the one Perfetto writer `convert` uses (`ingest::perfetto::Writer`),
//! so `analyze`, `compare`, the TUI, export and the Perfetto UI read a prediction like any
//! recorded run.
//!
//! How it says "predicted": the kernel release in `SystemInfo` is the model's
//! (`6.12.0-predicted-eevdf`): the readers show it in every header and take the scheduler
//! (and PDS / BMQ's priority scale) from it. Tasks keep their traced pids and names, so
//! `compare` matches them with the real run's.

use crate::demand::Demand;
use crate::sim::schedule::{Left, Record, Who};
use crate::sim::Prediction;
use ingest::perfetto::{WriteStats, Writer, WriterOptions};
use ingest::{Comm, Event, EventKind, EventSink, PrevState, TaskRef, TraceMeta};
use std::io::Write;
use std::path::Path;

/// Hands each event of `prediction` to `out`, in time order, as a reader would produce
/// them. Handed over one by one rather than collected: a schedule of millions of records
/// makes twice as many events, and the writer needs only one at a time.
fn each_event(demand: &Demand, prediction: &Prediction, mut out: impl FnMut(&Event)) {
    let s = &prediction.schedule;
    let task_ref = |w: Who| {
        let t = &demand.tasks[w.task];
        TaskRef {
            pid: t.pid,
            comm: Comm::from(t.comm.as_str()),
            prio: w.prio,
        }
    };
    let idle = |cpu: usize| TaskRef {
        pid: 0,
        comm: Comm::from(format!("swapper/{cpu}").as_str()),
        prio: 120,
    };
    // The window's first and last events: the predicted run covers the input's window.
    out(&Event {
        ts: s.start_ns,
        cpu: 0,
        current_pid: 0,
        kind: EventKind::Other,
    });
    for t in &demand.tasks {
        out(&Event {
            ts: s.start_ns,
            cpu: 0,
            current_pid: 0,
            kind: EventKind::TaskName {
                pid: t.pid,
                tgid: t.tgid.unwrap_or(-1),
                comm: Comm::from(t.comm.as_str()),
            },
        });
    }
    for r in &s.records {
        match *r {
            Record::Switch {
                ts,
                cpu,
                prev,
                left,
                next,
            } => {
                let prev_ref = prev.map_or_else(|| idle(cpu), task_ref);
                out(&Event {
                    ts,
                    cpu: cpu as u32,
                    current_pid: prev_ref.pid,
                    kind: EventKind::Switch {
                        prev: prev_ref,
                        prev_state: match (prev, left) {
                            // The idle task leaves runnable, as the kernel traces it (`R`).
                            (None, _) => PrevState::Runnable,
                            (_, Left::Preempted) => PrevState::Preempted,
                            (_, Left::Blocked) => PrevState::Sleeping,
                            (_, Left::Exited) => PrevState::Dead,
                        },
                        next: next.map_or_else(|| idle(cpu), task_ref),
                    },
                });
            }
            Record::Wakeup {
                ts,
                cpu,
                task,
                waker,
                waker_cpu,
                new,
            } => {
                let wakee = task_ref(task);
                let waker_pid = waker.map_or(0, |w| demand.tasks[w].pid);
                out(&Event {
                    ts,
                    cpu: waker_cpu.unwrap_or(cpu) as u32,
                    current_pid: waker_pid,
                    kind: EventKind::Waking {
                        task: wakee,
                        target_cpu: cpu as i32,
                    },
                });
                out(&Event {
                    ts,
                    cpu: cpu as u32,
                    current_pid: waker_pid,
                    kind: if new {
                        EventKind::WakeupNew {
                            task: wakee,
                            target_cpu: cpu as i32,
                        }
                    } else {
                        EventKind::Wakeup {
                            task: wakee,
                            target_cpu: cpu as i32,
                        }
                    },
                });
            }
            Record::Exit { ts, cpu, task } => out(&Event {
                ts,
                cpu: cpu as u32,
                current_pid: demand.tasks[task].pid,
                kind: EventKind::Exit {
                    pid: demand.tasks[task].pid,
                },
            }),
        }
    }
    out(&Event {
        ts: s.end_ns,
        cpu: 0,
        current_pid: 0,
        kind: EventKind::Other,
    });
}

/// Writes `prediction` as a Perfetto trace to `out`.
pub fn write_perfetto<W: Write>(
    demand: &Demand,
    prediction: &Prediction,
    out: W,
) -> std::io::Result<WriteStats> {
    let mut writer = Writer::new(out, WriterOptions::default());
    each_event(demand, prediction, |e| writer.event(e));
    let meta = TraceMeta {
        kernel_release: Some(prediction.model.release.to_string()),
        cpus: Some(demand.cpus.max(1)),
        ..Default::default()
    };
    let (_, stats) = writer.finish(&meta)?;
    Ok(stats)
}

/// Writes `prediction` to the file `path` (whole: a temporary file renamed over it).
pub fn write_file(
    demand: &Demand,
    prediction: &Prediction,
    path: &Path,
) -> Result<WriteStats, String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = std::path::PathBuf::from(tmp);
    let file = std::fs::File::create(&tmp)
        .map_err(|e| format!("{}: cannot create: {e}", tmp.display()))?;
    let written = write_perfetto(demand, prediction, std::io::BufWriter::new(file))
        .and_then(|stats| std::fs::rename(&tmp, path).map(|()| stats));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: cannot write the predicted trace: {e}", path.display())
    })
}
