//! Raw event record (starting at `common_type`) → normalized [`EventKind`].
//!
//! Built once per trace: for every event id the needed fields are looked up by
//! name in its format (never assumed offsets), so each record costs only a table
//! lookup and a few bounded reads. sched_switch and the wakeups, nearly every record
//! of a sched trace, also get a path for their usual field sizes ([`Usual`]): one
//! length check, then fixed-size reads.

use super::endian::{Be, ByteOrder as Order, Endian, Le};
use super::field::{array, i32_at, Int, Str, Width};
use super::format::EventFormat;
use super::prev_state::PrevStateDecoder;
use crate::event::{Comm, EventKind, Marks, PrevState, TaskRef, COMM_LEN};
use std::collections::HashMap;

/// Result of decoding one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decoded {
    /// `name` is a dense index, see [`Decoder::event_name`].
    Event {
        name: u32,
        current_pid: i32,
        kind: EventKind,
    },
    /// No format for this `common_type` (or the record is too short to hold one:
    /// then `id` is `u32::MAX`).
    Unknown { id: u32 },
    /// The record is too short for a field its format declares.
    Malformed { name: u32, reason: &'static str },
}

/// Sched fields of one event id, looked up once.
#[derive(Clone, Debug)]
enum Plan {
    Switch {
        prev_comm: Option<Str>,
        prev_pid: Int,
        prev_prio: Option<Int>,
        prev_state: Int,
        next_comm: Option<Str>,
        next_pid: Int,
        next_prio: Option<Int>,
    },
    Wake {
        which: WakeKind,
        comm: Option<Str>,
        pid: Int,
        prio: Option<Int>,
        target_cpu: Option<Int>,
    },
    Migrate {
        comm: Option<Str>,
        pid: Int,
        prio: Option<Int>,
        orig_cpu: Option<Int>,
        dest_cpu: Int,
    },
    Fork {
        parent_pid: Int,
        child_pid: Int,
        child_comm: Option<Str>,
    },
    Exit {
        pid: Int,
    },
    Free {
        pid: Int,
    },
    /// `ftrace/print`: a `trace_marker` write, its text in `buf`.
    Print {
        buf: Str,
    },
    /// `power/cpu_idle`.
    CpuIdle {
        state: Int,
        cpu_id: Int,
    },
    Other,
}

#[derive(Clone, Copy, Debug)]
enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

#[derive(Clone, Debug)]
struct Slot {
    name: u32,
    common_pid: Option<Int>,
    plan: Plan,
    /// The same fields in their usual layout, when the format has it.
    usual: Option<Usual>,
}

/// A task as every kernel lays it out in sched_switch and the wakeup events: `char comm[16]`
/// (or longer), 4-byte pid and prio.
#[derive(Clone, Copy, Debug)]
struct UsualTask {
    comm: usize,
    pid: usize,
    prio: usize,
}

/// The two events that make up nearly every record of a sched trace, in their usual layout
/// (4-byte integers, 16-byte names). A record at least `end` bytes long holds every field, so
/// it is decoded with fixed-size reads and no per-field dispatch; a shorter one goes through
/// the general [`Plan`], which says what is missing.
#[derive(Clone, Copy, Debug)]
struct Usual {
    end: usize,
    common_pid: usize,
    kind: UsualKind,
}

#[derive(Clone, Copy, Debug)]
enum UsualKind {
    Switch {
        prev: UsualTask,
        prev_state: Int,
        next: UsualTask,
    },
    Wake {
        which: WakeKind,
        task: UsualTask,
        target_cpu: usize,
    },
}

impl Usual {
    /// `None` unless every field the plan reads has the usual size.
    fn of(common_pid: Option<Int>, plan: &Plan) -> Option<Usual> {
        // `end` grows to cover each field taken.
        let mut end = 0;
        let common_pid = int4(common_pid, &mut end)?;
        let mut task = |comm: Option<Str>, pid: Int, prio: Option<Int>| -> Option<UsualTask> {
            let Some(Str::Fixed { offset, size }) = comm else {
                return None;
            };
            (size >= COMM_LEN).then_some(())?;
            end = end.max(offset.checked_add(size)?);
            Some(UsualTask {
                comm: offset,
                pid: int4(Some(pid), &mut end)?,
                prio: int4(prio, &mut end)?,
            })
        };
        let kind = match *plan {
            Plan::Switch {
                prev_comm,
                prev_pid,
                prev_prio,
                prev_state,
                next_comm,
                next_pid,
                next_prio,
            } => {
                let prev = task(prev_comm, prev_pid, prev_prio)?;
                let next = task(next_comm, next_pid, next_prio)?;
                let size = match prev_state.width {
                    Width::U32 | Width::I32 => 4,
                    Width::W64 => 8,
                    _ => return None,
                };
                end = end.max(prev_state.offset.checked_add(size)?);
                UsualKind::Switch {
                    prev,
                    prev_state,
                    next,
                }
            }
            Plan::Wake {
                which,
                comm,
                pid,
                prio,
                target_cpu,
            } => {
                let task = task(comm, pid, prio)?;
                UsualKind::Wake {
                    which,
                    task,
                    target_cpu: int4(target_cpu, &mut end)?,
                }
            }
            _ => return None,
        };
        Some(Usual {
            end,
            common_pid,
            kind,
        })
    }
}

/// The offset of a 4-byte integer field (its sign does not matter once cut to i32), growing
/// `end` to cover it.
fn int4(field: Option<Int>, end: &mut usize) -> Option<usize> {
    let field = field?;
    matches!(field.width, Width::I32 | Width::U32).then_some(())?;
    *end = (*end).max(field.offset.checked_add(4)?);
    Some(field.offset)
}

/// Decodes records of one trace (one set of formats, one byte order).
#[derive(Clone, Debug)]
pub(crate) struct Decoder {
    endian: Endian,
    /// Indexed by `common_type` (a u16, so at most 65536 entries).
    slots: Vec<Option<Slot>>,
    names: Vec<String>,
    prev_state: PrevStateDecoder,
    /// `prev_state.decode(v)` for every `v < PREV_STATE_TABLE` (all values of current
    /// kernels), so that a switch costs a load instead of a walk of the letter table.
    prev_state_table: Vec<PrevState>,
    /// Where the texts of `print` events go: the read's table.
    marks: Marks,
}

const PREV_STATE_TABLE: u64 = 1024;

impl Decoder {
    /// The decoder of records described by `formats`, whose `print` texts go into `marks`.
    pub(crate) fn new(
        formats: &[EventFormat],
        endian: Endian,
        kernel_release: Option<&str>,
        marks: &Marks,
    ) -> Decoder {
        let mut names: Vec<String> = Vec::new();
        let mut name_index: HashMap<String, u32> = HashMap::new();
        let mut slots: Vec<Option<Slot>> = Vec::new();
        let mut switch_fmt = None;
        for format in formats {
            let Ok(id) = u16::try_from(format.id) else {
                continue; // common_type is a u16: such an id can never appear in a record.
            };
            let name = *name_index.entry(format.name.clone()).or_insert_with(|| {
                names.push(format.name.clone());
                (names.len() - 1) as u32
            });
            if format.name == "sched_switch" && format.system == "sched" {
                switch_fmt = Some(format.print_fmt.as_str());
            }
            let id = id as usize;
            if slots.len() <= id {
                slots.resize(id + 1, None);
            }
            let common_pid = Int::of(format, "common_pid");
            let plan = plan_for(format);
            slots[id] = Some(Slot {
                name,
                common_pid,
                usual: Usual::of(common_pid, &plan),
                plan,
            });
        }
        let prev_state = PrevStateDecoder::for_kernel(switch_fmt, kernel_release);
        Decoder {
            endian,
            slots,
            names,
            prev_state_table: (0..PREV_STATE_TABLE)
                .map(|v| prev_state.decode(v))
                .collect(),
            prev_state,
            marks: marks.clone(),
        }
    }

    /// Name of the dense event index from [`Decoded::Event`] / [`Decoded::Malformed`].
    pub(crate) fn event_name(&self, name: u32) -> &str {
        self.names.get(name as usize).map_or("?", String::as_str)
    }

    /// Number of distinct event names.
    pub(crate) fn event_count(&self) -> usize {
        self.names.len()
    }

    /// Decodes one record (ring-buffer payload or perf RAW data).
    #[inline]
    pub(crate) fn decode(&self, record: &[u8]) -> Decoded {
        match self.endian {
            Endian::Little => self.decode_as::<Le>(record),
            Endian::Big => self.decode_as::<Be>(record),
        }
    }

    #[inline]
    fn decode_as<O: Order>(&self, record: &[u8]) -> Decoded {
        let Some(&[a, b]) = record.get(..2) else {
            return Decoded::Unknown { id: u32::MAX };
        };
        let id = O::u16([a, b]);
        let Some(Some(slot)) = self.slots.get(id as usize) else {
            return Decoded::Unknown { id: id as u32 };
        };
        if let Some(usual) = &slot.usual {
            if record.len() >= usual.end {
                if let Some(decoded) = self.decode_usual::<O>(record, slot.name, usual) {
                    return decoded;
                }
            }
        }
        let current_pid = match slot.common_pid {
            Some(field) => match field.read::<O>(record) {
                Some(v) => v as i32,
                None => {
                    return Decoded::Malformed {
                        name: slot.name,
                        reason: "record shorter than its common fields",
                    }
                }
            },
            None => -1,
        };
        match self.kind::<O>(record, &slot.plan) {
            Some(kind) => Decoded::Event {
                name: slot.name,
                current_pid,
                kind,
            },
            None => Decoded::Malformed {
                name: slot.name,
                reason: "record shorter than its format",
            },
        }
    }

    /// The record holds every field (`usual.end` was checked): fixed-size reads only.
    #[inline(always)]
    fn decode_usual<O: Order>(&self, r: &[u8], name: u32, usual: &Usual) -> Option<Decoded> {
        let kind = match usual.kind {
            UsualKind::Switch {
                prev,
                prev_state,
                next,
            } => {
                let raw_state = prev_state.read::<O>(r)? as u64;
                EventKind::Switch {
                    prev: usual_task::<O>(r, prev)?,
                    prev_state: self.decode_prev_state(raw_state),
                    next: usual_task::<O>(r, next)?,
                }
            }
            UsualKind::Wake {
                which,
                task: t,
                target_cpu,
            } => {
                let task = usual_task::<O>(r, t)?;
                let target_cpu = i32_at::<O>(r, target_cpu)?;
                match which {
                    WakeKind::Waking => EventKind::Waking { task, target_cpu },
                    WakeKind::Wakeup => EventKind::Wakeup { task, target_cpu },
                    WakeKind::WakeupNew => EventKind::WakeupNew { task, target_cpu },
                }
            }
        };
        Some(Decoded::Event {
            name,
            current_pid: i32_at::<O>(r, usual.common_pid)?,
            kind,
        })
    }

    #[inline(always)]
    fn kind<O: Order>(&self, r: &[u8], plan: &Plan) -> Option<EventKind> {
        Some(match *plan {
            Plan::Other => EventKind::Other,
            Plan::Print { buf } => EventKind::Print {
                text: self.marks.intern(buf.bytes::<O>(r)?),
            },
            Plan::Switch {
                prev_comm,
                prev_pid,
                prev_prio,
                prev_state,
                next_comm,
                next_pid,
                next_prio,
            } => {
                let raw_state = prev_state.read::<O>(r)? as u64;
                EventKind::Switch {
                    prev: task::<O>(r, prev_comm, prev_pid, prev_prio)?,
                    prev_state: self.decode_prev_state(raw_state),
                    next: task::<O>(r, next_comm, next_pid, next_prio)?,
                }
            }
            Plan::Wake {
                which,
                comm,
                pid,
                prio,
                target_cpu,
            } => {
                let task = task::<O>(r, comm, pid, prio)?;
                let target_cpu = opt_int::<O>(r, target_cpu)?;
                match which {
                    WakeKind::Waking => EventKind::Waking { task, target_cpu },
                    WakeKind::Wakeup => EventKind::Wakeup { task, target_cpu },
                    WakeKind::WakeupNew => EventKind::WakeupNew { task, target_cpu },
                }
            }
            Plan::Migrate {
                comm,
                pid,
                prio,
                orig_cpu,
                dest_cpu,
            } => EventKind::Migrate {
                task: task::<O>(r, comm, pid, prio)?,
                orig_cpu: opt_int::<O>(r, orig_cpu)?,
                dest_cpu: dest_cpu.read::<O>(r)? as i32,
            },
            Plan::Fork {
                parent_pid,
                child_pid,
                child_comm,
            } => EventKind::Fork {
                parent_pid: parent_pid.read::<O>(r)? as i32,
                child_pid: child_pid.read::<O>(r)? as i32,
                child_comm: opt_comm::<O>(r, child_comm)?,
            },
            Plan::Exit { pid } => EventKind::Exit {
                pid: pid.read::<O>(r)? as i32,
            },
            Plan::Free { pid } => EventKind::Free {
                pid: pid.read::<O>(r)? as i32,
            },
            Plan::CpuIdle { state, cpu_id } => EventKind::CpuIdle {
                state: state.read::<O>(r)? as u32,
                cpu_id: cpu_id.read::<O>(r)? as u32,
            },
        })
    }

    /// Decodes a raw `prev_state` with this trace's encoding.
    #[inline]
    pub(crate) fn decode_prev_state(&self, raw: u64) -> PrevState {
        match self.prev_state_table.get(raw as usize) {
            Some(&state) => state,
            None => self.prev_state.decode(raw),
        }
    }
}

#[inline(always)]
fn usual_task<O: Order>(r: &[u8], t: UsualTask) -> Option<TaskRef> {
    Some(TaskRef {
        pid: i32_at::<O>(r, t.pid)?,
        comm: Comm::from_bytes(&array::<COMM_LEN>(r, t.comm)?),
        prio: i32_at::<O>(r, t.prio)?,
    })
}

/// A field that old kernels may lack: -1 when absent, `None` when present but cut off.
#[inline(always)]
fn opt_int<O: Order>(r: &[u8], field: Option<Int>) -> Option<i32> {
    match field {
        Some(field) => field.read::<O>(r).map(|v| v as i32),
        None => Some(-1),
    }
}

#[inline(always)]
fn task<O: Order>(r: &[u8], comm: Option<Str>, pid: Int, prio: Option<Int>) -> Option<TaskRef> {
    Some(TaskRef {
        pid: pid.read::<O>(r)? as i32,
        comm: opt_comm::<O>(r, comm)?,
        prio: opt_int::<O>(r, prio)?,
    })
}

#[inline(always)]
fn opt_comm<O: Order>(r: &[u8], field: Option<Str>) -> Option<Comm> {
    match field {
        Some(field) => field.read::<O>(r),
        None => Some(Comm::default()),
    }
}

fn plan_for(f: &EventFormat) -> Plan {
    let l = |n: &str| Int::of(f, n);
    let s = |n: &str| Str::of(f, n);
    let planned = match (f.system.as_str(), f.name.as_str()) {
        ("sched", "sched_switch") => (|| {
            Some(Plan::Switch {
                prev_comm: s("prev_comm"),
                prev_pid: l("prev_pid")?,
                prev_prio: l("prev_prio"),
                prev_state: l("prev_state")?,
                next_comm: s("next_comm"),
                next_pid: l("next_pid")?,
                next_prio: l("next_prio"),
            })
        })(),
        ("sched", name @ ("sched_waking" | "sched_wakeup" | "sched_wakeup_new")) => {
            let which = match name {
                "sched_waking" => WakeKind::Waking,
                "sched_wakeup" => WakeKind::Wakeup,
                _ => WakeKind::WakeupNew,
            };
            l("pid").map(|pid| Plan::Wake {
                which,
                comm: s("comm"),
                pid,
                prio: l("prio"),
                target_cpu: l("target_cpu"),
            })
        }
        ("sched", "sched_migrate_task") => (|| {
            Some(Plan::Migrate {
                comm: s("comm"),
                pid: l("pid")?,
                prio: l("prio"),
                orig_cpu: l("orig_cpu"),
                dest_cpu: l("dest_cpu")?,
            })
        })(),
        ("sched", "sched_process_fork") => (|| {
            Some(Plan::Fork {
                parent_pid: l("parent_pid")?,
                child_pid: l("child_pid")?,
                child_comm: s("child_comm"),
            })
        })(),
        ("sched", "sched_process_exit") => l("pid").map(|pid| Plan::Exit { pid }),
        ("sched", "sched_process_free") => l("pid").map(|pid| Plan::Free { pid }),
        ("ftrace", "print") => s("buf").map(|buf| Plan::Print { buf }),
        ("power", "cpu_idle") => (|| {
            Some(Plan::CpuIdle {
                state: l("state")?,
                cpu_id: l("cpu_id")?,
            })
        })(),
        _ => None,
    };
    // A sched event without its key fields (a vendor variant) is still counted, as Other.
    planned.unwrap_or(Plan::Other)
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
