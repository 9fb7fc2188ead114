//! Raw event record (starting at `common_type`) → normalized [`EventKind`].
//!
//! Built once per trace: for every event id the needed fields are looked up by
//! name in its format (never fixed offsets), so each record costs only a table
//! lookup and a few bounded reads.

use super::endian::Endian;
use super::format::{EventFormat, Field, FieldKind};
use super::prev_state::PrevStateDecoder;
use crate::event::{Comm, EventKind, PrevState, TaskRef};
use std::collections::HashMap;

/// Result of decoding one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
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

/// Where one field is and how to read it.
#[derive(Clone, Copy, Debug)]
struct Loc {
    offset: usize,
    size: usize,
    /// Sign extension of a read integer: `(v << shift) >> shift` (0 = none).
    shift: u32,
    kind: FieldKind,
}

impl Loc {
    fn of(format: &EventFormat, name: &str) -> Option<Loc> {
        format.field(name).map(|f: &Field| Loc {
            offset: f.offset,
            size: f.size,
            shift: if f.signed && (1..8).contains(&f.size) {
                64 - 8 * f.size as u32
            } else {
                0
            },
            kind: f.kind,
        })
    }
}

/// Byte order as a type, so that the per-record code is compiled once per order with no
/// branch on it per field (the decoder is on the hot path of every binary format).
trait Order {
    fn u16(b: [u8; 2]) -> u16;
    fn u32(b: [u8; 4]) -> u32;
    fn u64(b: [u8; 8]) -> u64;
}

struct Le;
struct Be;

impl Order for Le {
    #[inline(always)]
    fn u16(b: [u8; 2]) -> u16 {
        u16::from_le_bytes(b)
    }
    #[inline(always)]
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_le_bytes(b)
    }
    #[inline(always)]
    fn u64(b: [u8; 8]) -> u64 {
        u64::from_le_bytes(b)
    }
}

impl Order for Be {
    #[inline(always)]
    fn u16(b: [u8; 2]) -> u16 {
        u16::from_be_bytes(b)
    }
    #[inline(always)]
    fn u32(b: [u8; 4]) -> u32 {
        u32::from_be_bytes(b)
    }
    #[inline(always)]
    fn u64(b: [u8; 8]) -> u64 {
        u64::from_be_bytes(b)
    }
}

/// Sched fields of one event id, looked up once.
#[derive(Clone, Debug)]
enum Plan {
    Switch {
        prev_comm: Option<Loc>,
        prev_pid: Loc,
        prev_prio: Option<Loc>,
        prev_state: Loc,
        next_comm: Option<Loc>,
        next_pid: Loc,
        next_prio: Option<Loc>,
    },
    Wake {
        which: WakeKind,
        comm: Option<Loc>,
        pid: Loc,
        prio: Option<Loc>,
        target_cpu: Option<Loc>,
    },
    Migrate {
        comm: Option<Loc>,
        pid: Loc,
        prio: Option<Loc>,
        orig_cpu: Option<Loc>,
        dest_cpu: Loc,
    },
    Fork {
        parent_pid: Loc,
        child_pid: Loc,
        child_comm: Option<Loc>,
    },
    Exit {
        pid: Loc,
    },
    Free {
        pid: Loc,
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
    common_pid: Option<Loc>,
    plan: Plan,
}

/// Decodes records of one trace (one set of formats, one byte order).
#[derive(Clone, Debug)]
pub struct Decoder {
    endian: Endian,
    /// Indexed by `common_type` (a u16, so at most 65536 entries).
    slots: Vec<Option<Slot>>,
    names: Vec<String>,
    prev_state: PrevStateDecoder,
    /// `prev_state.decode(v)` for every `v < PREV_STATE_TABLE` (all values of current
    /// kernels), so that a switch costs a load instead of a walk of the letter table.
    prev_state_table: Vec<PrevState>,
}

const PREV_STATE_TABLE: u64 = 1024;

impl Decoder {
    pub fn new(formats: &[EventFormat], endian: Endian, kernel_release: Option<&str>) -> Decoder {
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
            slots[id] = Some(Slot {
                name,
                common_pid: Loc::of(format, "common_pid"),
                plan: plan_for(format),
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
        }
    }

    /// Name of the dense event index from [`Decoded::Event`] / [`Decoded::Malformed`].
    pub fn event_name(&self, name: u32) -> &str {
        self.names.get(name as usize).map_or("?", String::as_str)
    }

    /// Number of distinct event names.
    pub fn event_count(&self) -> usize {
        self.names.len()
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Decodes one record (ring-buffer payload or perf RAW data).
    #[inline]
    pub fn decode(&self, record: &[u8]) -> Decoded {
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
        let current_pid = match slot.common_pid {
            Some(loc) => match int::<O>(record, loc) {
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

    #[inline(always)]
    fn kind<O: Order>(&self, r: &[u8], plan: &Plan) -> Option<EventKind> {
        Some(match *plan {
            Plan::Other => EventKind::Other,
            Plan::Switch {
                prev_comm,
                prev_pid,
                prev_prio,
                prev_state,
                next_comm,
                next_pid,
                next_prio,
            } => {
                let raw_state = int::<O>(r, prev_state)? as u64;
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
                dest_cpu: int::<O>(r, dest_cpu)? as i32,
            },
            Plan::Fork {
                parent_pid,
                child_pid,
                child_comm,
            } => EventKind::Fork {
                parent_pid: int::<O>(r, parent_pid)? as i32,
                child_pid: int::<O>(r, child_pid)? as i32,
                child_comm: opt_comm::<O>(r, child_comm)?,
            },
            Plan::Exit { pid } => EventKind::Exit {
                pid: int::<O>(r, pid)? as i32,
            },
            Plan::Free { pid } => EventKind::Free {
                pid: int::<O>(r, pid)? as i32,
            },
        })
    }

    /// Decodes a raw `prev_state` with this trace's encoding.
    #[inline]
    pub fn decode_prev_state(&self, raw: u64) -> PrevState {
        match self.prev_state_table.get(raw as usize) {
            Some(&state) => state,
            None => self.prev_state.decode(raw),
        }
    }
}

/// An integer field of 1, 2, 4 or 8 bytes, sign-extended if signed; `None` when the record
/// is too short or the size is unusual.
#[inline(always)]
fn int<O: Order>(r: &[u8], loc: Loc) -> Option<i64> {
    let v = match *r.get(loc.offset..loc.offset.checked_add(loc.size)?)? {
        [a] => a as u64,
        [a, b] => O::u16([a, b]) as u64,
        [a, b, c, d] => O::u32([a, b, c, d]) as u64,
        [a, b, c, d, e, f, g, h] => O::u64([a, b, c, d, e, f, g, h]),
        _ => return None,
    };
    Some(((v << loc.shift) as i64) >> loc.shift)
}

/// A field that old kernels may lack: -1 when absent, `None` when present but cut off.
#[inline(always)]
fn opt_int<O: Order>(r: &[u8], loc: Option<Loc>) -> Option<i32> {
    match loc {
        Some(loc) => int::<O>(r, loc).map(|v| v as i32),
        None => Some(-1),
    }
}

#[inline(always)]
fn task<O: Order>(r: &[u8], comm: Option<Loc>, pid: Loc, prio: Option<Loc>) -> Option<TaskRef> {
    Some(TaskRef {
        pid: int::<O>(r, pid)? as i32,
        comm: opt_comm::<O>(r, comm)?,
        prio: opt_int::<O>(r, prio)?,
    })
}

#[inline(always)]
fn opt_comm<O: Order>(r: &[u8], loc: Option<Loc>) -> Option<Comm> {
    match loc {
        Some(loc) => comm::<O>(r, loc),
        None => Some(Comm::default()),
    }
}

/// A string field: fixed `char[N]`, `__data_loc`, `__rel_loc` or flexible tail.
#[inline]
fn comm<O: Order>(r: &[u8], loc: Loc) -> Option<Comm> {
    let bytes = match loc.kind {
        FieldKind::CharArray | FieldKind::Int => {
            r.get(loc.offset..loc.offset.checked_add(loc.size)?)?
        }
        FieldKind::Flex => r.get(loc.offset..)?,
        FieldKind::DataLoc | FieldKind::RelLoc => {
            let (start, len) = if loc.size == 2 {
                // Very old kernels: a u16 offset only; the string runs to the record end.
                let &[a, b] = r.get(loc.offset..loc.offset.checked_add(2)?)? else {
                    return None;
                };
                let start = O::u16([a, b]) as usize;
                (start, r.len().checked_sub(start)?)
            } else {
                let &[a, b, c, d] = r.get(loc.offset..loc.offset.checked_add(4)?)? else {
                    return None;
                };
                let v = O::u32([a, b, c, d]);
                ((v & 0xffff) as usize, (v >> 16) as usize)
            };
            let start = if loc.kind == FieldKind::RelLoc {
                start + loc.offset + loc.size
            } else {
                start
            };
            r.get(start..start.checked_add(len)?)?
        }
    };
    Some(Comm::from_bytes(bytes))
}

fn plan_for(f: &EventFormat) -> Plan {
    let l = |n: &str| Loc::of(f, n);
    let planned = match (f.system.as_str(), f.name.as_str()) {
        ("sched", "sched_switch") => (|| {
            Some(Plan::Switch {
                prev_comm: l("prev_comm"),
                prev_pid: l("prev_pid")?,
                prev_prio: l("prev_prio"),
                prev_state: l("prev_state")?,
                next_comm: l("next_comm"),
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
                comm: l("comm"),
                pid,
                prio: l("prio"),
                target_cpu: l("target_cpu"),
            })
        }
        ("sched", "sched_migrate_task") => (|| {
            Some(Plan::Migrate {
                comm: l("comm"),
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
                child_comm: l("child_comm"),
            })
        })(),
        ("sched", "sched_process_exit") => l("pid").map(|pid| Plan::Exit { pid }),
        ("sched", "sched_process_free") => l("pid").map(|pid| Plan::Free { pid }),
        _ => None,
    };
    // A sched event without its key fields (a vendor variant) is still counted, as Other.
    planned.unwrap_or(Plan::Other)
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
