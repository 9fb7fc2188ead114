//! Raw event record (starting at `common_type`) → normalized [`EventKind`].
//!
//! Built once per trace: for every event id the needed fields are looked up by
//! name in its format (never fixed offsets), so each record costs only a table
//! lookup and a few bounded reads.

use super::endian::{Be, ByteOrder as Order, Endian, Le};
use super::format::{EventFormat, Field, FieldKind};
use super::prev_state::PrevStateDecoder;
use crate::event::{Comm, EventKind, PrevState, TaskRef, COMM_LEN};
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

/// An integer field: where it is and, decided once from its size and sign, how to read it.
#[derive(Clone, Copy, Debug)]
struct Int {
    offset: usize,
    width: Width,
}

/// Integer encodings a format can declare. The per-record read is one match on this instead of
/// a length match, a shift pair and a sign test per field.
#[derive(Clone, Copy, Debug)]
enum Width {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    /// Sign does not matter at 64 bits: the bits are kept as they are.
    W64,
    /// Any other size (0, 3, 16, ...): never readable as an integer.
    Unreadable,
}

impl Int {
    fn of(format: &EventFormat, name: &str) -> Option<Int> {
        format.field(name).map(|f: &Field| Int {
            offset: f.offset,
            width: match (f.size, f.signed) {
                (1, false) => Width::U8,
                (1, true) => Width::I8,
                (2, false) => Width::U16,
                (2, true) => Width::I16,
                (4, false) => Width::U32,
                (4, true) => Width::I32,
                (8, _) => Width::W64,
                _ => Width::Unreadable,
            },
        })
    }

    /// The value, sign-extended if signed; `None` when the record is too short for it.
    #[inline(always)]
    fn read<O: Order>(self, r: &[u8]) -> Option<i64> {
        let at = self.offset;
        Some(match self.width {
            Width::U8 => *r.get(at)? as i64,
            Width::I8 => *r.get(at)? as i8 as i64,
            Width::U16 => O::u16(array(r, at)?) as i64,
            Width::I16 => O::u16(array(r, at)?) as i16 as i64,
            Width::U32 => O::u32(array(r, at)?) as i64,
            Width::I32 => O::u32(array(r, at)?) as i32 as i64,
            Width::W64 => O::u64(array(r, at)?) as i64,
            Width::Unreadable => return None,
        })
    }
}

/// `N` bytes at `at`, `None` when they do not fit (a fixed-size copy, no length match).
#[inline(always)]
fn array<const N: usize>(r: &[u8], at: usize) -> Option<[u8; N]> {
    r.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// A task-name field and how its bytes are found.
#[derive(Clone, Copy, Debug)]
enum Str {
    /// `char comm[N]` (or an integer-typed field): the N bytes at `offset`.
    Fixed { offset: usize, size: usize },
    /// `TYPE name[]` of size 0: the rest of the record.
    Flex { offset: usize },
    /// `__data_loc` / `__rel_loc`: a u32 (u16 on very old kernels) locating the string.
    Loc {
        offset: usize,
        size: usize,
        relative: bool,
    },
}

impl Str {
    fn of(format: &EventFormat, name: &str) -> Option<Str> {
        format.field(name).map(|f: &Field| match f.kind {
            FieldKind::CharArray | FieldKind::Int => Str::Fixed {
                offset: f.offset,
                size: f.size,
            },
            FieldKind::Flex => Str::Flex { offset: f.offset },
            FieldKind::DataLoc | FieldKind::RelLoc => Str::Loc {
                offset: f.offset,
                size: f.size,
                relative: f.kind == FieldKind::RelLoc,
            },
        })
    }
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
                common_pid: Int::of(format, "common_pid"),
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
        Some(field) => comm::<O>(r, field),
        None => Some(Comm::default()),
    }
}

/// A task name; `None` when its bytes lie outside the record.
#[inline(always)]
fn comm<O: Order>(r: &[u8], field: Str) -> Option<Comm> {
    let bytes = match field {
        Str::Fixed { offset, size } => {
            let bytes = r.get(offset..offset.checked_add(size)?)?;
            // `char comm[16]`, the usual case: a fixed 16-byte copy (a name keeps at most 16
            // bytes anyway) instead of a variable-length memcpy call per name.
            if let Some(head) = bytes.first_chunk::<COMM_LEN>() {
                return Some(Comm::from_bytes(head));
            }
            bytes
        }
        Str::Flex { offset } => r.get(offset..)?,
        Str::Loc {
            offset,
            size,
            relative,
        } => {
            let (start, len) = if size == 2 {
                // Very old kernels: a u16 offset only; the string runs to the record end.
                let start = O::u16(array(r, offset)?) as usize;
                (start, r.len().checked_sub(start)?)
            } else {
                let v = O::u32(array(r, offset)?);
                ((v & 0xffff) as usize, (v >> 16) as usize)
            };
            let start = if relative {
                start + offset + size
            } else {
                start
            };
            r.get(start..start.checked_add(len)?)?
        }
    };
    Some(Comm::from_bytes(bytes))
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
        _ => None,
    };
    // A sched event without its key fields (a vendor variant) is still counted, as Other.
    planned.unwrap_or(Plan::Other)
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
