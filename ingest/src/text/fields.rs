//! The text after `name: ` of the sched events -> [`EventKind`] (formats.md §3.2, §5).
//!
//! Each event has up to three renderings: the kernel print fmt (`comm=X pid=N ...`),
//! `trace-cmd report -R` (the same `field=value` list, numbers raw, no `==>`), and the
//! libtraceevent sched plugin (`comm:pid [prio] S ==> comm:pid [prio]`,
//! `comm:pid [prio] CPU:003`). Comms can contain spaces, `:` and `=`: values are cut at
//! the next expected ` key=`, plugin tasks are split at their last `:pid [prio]`.

use super::prefix::{parse_u64, Reject};
use super::state::{kernel_letters, plugin_value, StateSrc};
use crate::event::{Comm, EventKind, PrevState, TaskRef};

/// Decodes the text of a sched event; `Ok(None)` for events we only count.
pub(super) fn decode(name: &[u8], body: &[u8]) -> Result<Option<(EventKind, StateSrc)>, Reject> {
    let done = |kind| Ok(Some((kind, StateSrc::Done)));
    match name {
        b"sched_switch" => match switch(body) {
            Some(Ok(decoded)) => Ok(Some(decoded)),
            Some(Err(reason)) => Err(reason),
            None => Err("malformed sched_switch"),
        },
        b"sched_waking" => match wakeup(body) {
            Some((task, target_cpu)) => done(EventKind::Waking { task, target_cpu }),
            None => Err("malformed sched_waking"),
        },
        b"sched_wakeup" => match wakeup(body) {
            Some((task, target_cpu)) => done(EventKind::Wakeup { task, target_cpu }),
            None => Err("malformed sched_wakeup"),
        },
        b"sched_wakeup_new" => match wakeup(body) {
            Some((task, target_cpu)) => done(EventKind::WakeupNew { task, target_cpu }),
            None => Err("malformed sched_wakeup_new"),
        },
        b"sched_migrate_task" => migrate(body).map_or(Err("malformed sched_migrate_task"), done),
        b"sched_process_fork" => fork(body).map_or(Err("malformed sched_process_fork"), done),
        b"sched_process_exit" => match comm_pid(body) {
            Some(pid) => done(EventKind::Exit { pid }),
            None => Err("malformed sched_process_exit"),
        },
        b"sched_process_free" => match comm_pid(body) {
            Some(pid) => done(EventKind::Free { pid }),
            None => Err("malformed sched_process_free"),
        },
        b"cpu_idle" => cpu_idle(body).map_or(Err("malformed cpu_idle"), done),
        _ => Ok(None),
    }
}

/// A cursor over `key=value` text.
struct Fields<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    /// `text` must begin with `first` (e.g. `comm=`).
    fn start(text: &'a [u8], first: &[u8]) -> Option<Fields<'a>> {
        text.starts_with(first).then_some(Fields {
            text,
            pos: first.len(),
        })
    }

    fn rest(&self) -> &'a [u8] {
        &self.text[self.pos..]
    }

    /// The value up to the first following `next` (e.g. ` pid=`), which is consumed.
    fn text_until(&mut self, next: &[u8]) -> Option<&'a [u8]> {
        let at = memchr::memmem::find(self.rest(), next)?;
        let value = &self.rest()[..at];
        self.pos += at + next.len();
        Some(value)
    }

    /// `next` must follow right here.
    fn expect(&mut self, next: &[u8]) -> Option<()> {
        self.rest()
            .starts_with(next)
            .then(|| self.pos += next.len())
    }

    /// Skips to after the next `key` (optional fields like `success=1` in between).
    fn seek(&mut self, key: &[u8]) -> Option<()> {
        let at = memchr::memmem::find(self.rest(), key)?;
        self.pos += at + key.len();
        Some(())
    }

    /// The value up to the next space.
    fn word(&mut self) -> &'a [u8] {
        let rest = self.rest();
        let end = memchr::memchr(b' ', rest).unwrap_or(rest.len());
        self.pos += end;
        &rest[..end]
    }

    /// A decimal integer (maybe negative) ending at a space or the end.
    fn int(&mut self) -> Option<i32> {
        parse_i32(self.word())
    }
}

fn parse_i32(s: &[u8]) -> Option<i32> {
    match s.strip_prefix(b"-") {
        Some(digits) => i32::try_from(-i64::try_from(parse_u64(digits)?).ok()?).ok(),
        None => i32::try_from(parse_u64(s)?).ok(),
    }
}

fn task(comm: &[u8], pid: i32, prio: i32) -> TaskRef {
    TaskRef {
        pid,
        comm: Comm::from_bytes(comm),
        prio,
    }
}

/// `None` when the fields do not parse, `Some(Err)` for an unknown `prev_state`.
fn switch(body: &[u8]) -> Option<Result<(EventKind, StateSrc), Reject>> {
    if body.starts_with(b"prev_comm=") {
        switch_fields(body)
    } else {
        switch_plugin(body).map(Ok)
    }
}

/// `prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120`,
/// and the `-R` form with a number for the state and no `==>`.
fn switch_fields(body: &[u8]) -> Option<Result<(EventKind, StateSrc), Reject>> {
    let mut f = Fields::start(body, b"prev_comm=")?;
    let prev_comm = f.text_until(b" prev_pid=")?;
    let prev_pid = f.int()?;
    f.expect(b" prev_prio=")?;
    let prev_prio = f.int()?;
    f.expect(b" prev_state=")?;
    let state_text = f.word();
    if f.expect(b" ==> next_comm=").is_none() {
        f.expect(b" next_comm=")?;
    }
    let next_comm = f.text_until(b" next_pid=")?;
    let next_pid = f.int()?;
    f.expect(b" next_prio=")?;
    let next_prio = f.int()?;
    let (prev_state, src) = match parse_u64(state_text) {
        Some(value) => (PrevState::Runnable, StateSrc::Value(value)),
        None => match kernel_letters(state_text) {
            Some(state) => (state, StateSrc::Done),
            None => return Some(Err("unknown sched_switch prev_state letters")),
        },
    };
    let kind = EventKind::Switch {
        prev: task(prev_comm, prev_pid, prev_prio),
        prev_state,
        next: task(next_comm, next_pid, next_prio),
    };
    Some(Ok((kind, src)))
}

/// `prev:1 [120] S ==> next:2 [120]` (libtraceevent plugin).
fn switch_plugin(body: &[u8]) -> Option<(EventKind, StateSrc)> {
    for arrow in memchr::memmem::find_iter(body, b" ==> ") {
        let (left, right) = (&body[..arrow], &body[arrow + 5..]);
        let Some(space) = memchr::memrchr(b' ', left) else {
            continue;
        };
        let Some(value) = plugin_value(&left[space + 1..]) else {
            continue;
        };
        let (Some(prev), Some(next)) = (plugin_task(&left[..space]), plugin_task(right)) else {
            continue;
        };
        let kind = EventKind::Switch {
            prev,
            prev_state: PrevState::Runnable,
            next,
        };
        return Some((kind, StateSrc::Value(value)));
    }
    None
}

/// `comm:pid [prio]`, split at the last `:` before the `[prio]`.
fn plugin_task(s: &[u8]) -> Option<TaskRef> {
    let inner = s.strip_suffix(b"]")?;
    let open = memchr::memmem::rfind(inner, b" [")?;
    let prio = parse_i32(&inner[open + 2..])?;
    let head = &inner[..open];
    let colon = memchr::memrchr(b':', head)?;
    let pid = parse_i32(&head[colon + 1..])?;
    Some(task(&head[..colon], pid, prio))
}

/// `comm=a pid=1 prio=120 [success=1 ]target_cpu=002[ vendor=...]` or plugin
/// `a:1 [120][ success=1] CPU:002`. Very old kernels have no target CPU: -1.
fn wakeup(body: &[u8]) -> Option<(TaskRef, i32)> {
    if let Some(mut f) = Fields::start(body, b"comm=") {
        let comm = f.text_until(b" pid=")?;
        let pid = f.int()?;
        f.expect(b" prio=")?;
        let prio = f.int()?;
        let target_cpu = match f.seek(b" target_cpu=") {
            Some(()) => f.int()?,
            None => -1,
        };
        return Some((task(comm, pid, prio), target_cpu));
    }
    let (mut rest, target_cpu) = match memchr::memmem::rfind(body, b" CPU:") {
        Some(at) => (&body[..at], parse_i32(&body[at + 5..])?),
        None => (body, -1),
    };
    if let Some(at) = memchr::memmem::rfind(rest, b" success=") {
        parse_i32(&rest[at + 9..])?;
        rest = &rest[..at];
    }
    Some((plugin_task(rest)?, target_cpu))
}

/// `comm=a pid=1 prio=120 orig_cpu=0 dest_cpu=1[ vendor fields]`.
fn migrate(body: &[u8]) -> Option<EventKind> {
    let mut f = Fields::start(body, b"comm=")?;
    let comm = f.text_until(b" pid=")?;
    let pid = f.int()?;
    f.expect(b" prio=")?;
    let prio = f.int()?;
    f.expect(b" orig_cpu=")?;
    let orig_cpu = f.int()?;
    f.expect(b" dest_cpu=")?;
    let dest_cpu = f.int()?;
    Some(EventKind::Migrate {
        task: task(comm, pid, prio),
        orig_cpu,
        dest_cpu,
    })
}

/// `comm=a pid=1 child_comm=b child_pid=2`.
fn fork(body: &[u8]) -> Option<EventKind> {
    let mut f = Fields::start(body, b"comm=")?;
    f.text_until(b" pid=")?;
    let parent_pid = f.int()?;
    f.expect(b" child_comm=")?;
    let child_comm = f.text_until(b" child_pid=")?;
    let child_pid = f.int()?;
    Some(EventKind::Fork {
        parent_pid,
        child_pid,
        child_comm: Comm::from_bytes(child_comm),
    })
}

/// `state=1 cpu_id=0`; the exit state prints as `4294967295` (or `-1` where a tool prints it
/// signed): both are the u32 the kernel wrote.
fn cpu_idle(body: &[u8]) -> Option<EventKind> {
    let mut f = Fields::start(body, b"state=")?;
    let state = u32_or_signed(f.word())?;
    f.expect(b" cpu_id=")?;
    let cpu_id = u32_or_signed(f.word())?;
    Some(EventKind::CpuIdle { state, cpu_id })
}

/// A u32 printed unsigned, or as its signed twin.
fn u32_or_signed(s: &[u8]) -> Option<u32> {
    match s.strip_prefix(b"-") {
        Some(_) => parse_i32(s).map(|v| v as u32),
        None => u32::try_from(parse_u64(s)?).ok(),
    }
}

/// The pid of `comm=a pid=1 ...` (sched_process_exit / _free).
fn comm_pid(body: &[u8]) -> Option<i32> {
    let mut f = Fields::start(body, b"comm=")?;
    f.text_until(b" pid=")?;
    f.int()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_switch_with_colon_comm() {
        let (kind, src) = switch(b"kworker/2:1:2923 [120] D ==> opt cgu.0:17910 [120]")
            .unwrap()
            .unwrap();
        let EventKind::Switch { prev, next, .. } = kind else {
            panic!()
        };
        assert_eq!(
            (prev.pid, prev.comm, prev.prio),
            (2923, Comm::from("kworker/2:1"), 120)
        );
        assert_eq!((next.pid, next.comm), (17910, Comm::from("opt cgu.0")));
        assert_eq!(src, StateSrc::Value(2));
    }

    #[test]
    fn cpu_idle_forms() {
        let idle = |state, cpu_id| Ok(Some((EventKind::CpuIdle { state, cpu_id }, StateSrc::Done)));
        assert_eq!(decode(b"cpu_idle", b"state=1 cpu_id=3"), idle(1, 3));
        assert_eq!(
            decode(b"cpu_idle", b"state=4294967295 cpu_id=0"),
            idle(u32::MAX, 0)
        );
        assert_eq!(decode(b"cpu_idle", b"state=-1 cpu_id=0"), idle(u32::MAX, 0));
        assert_eq!(
            decode(b"cpu_idle", b"state=4294967296 cpu_id=0"),
            Err("malformed cpu_idle")
        );
        assert_eq!(decode(b"cpu_idle", b"state=1"), Err("malformed cpu_idle"));
    }

    #[test]
    fn wakeup_forms() {
        let (t, cpu) =
            wakeup(b"comm=Binder_5 pid=679 prio=120 success=1 target_cpu=001 state=W").unwrap();
        assert_eq!((t.pid, t.prio, cpu), (679, 120, 1));
        let (t, cpu) = wakeup(b"rcu_preempt:15 [120] CPU:001").unwrap();
        assert_eq!((t.pid, t.comm, cpu), (15, Comm::from("rcu_preempt"), 1));
        let (t, cpu) = wakeup(b"sh:9 [120] success=1 CPU:002").unwrap();
        assert_eq!((t.pid, cpu), (9, 2));
    }
}
