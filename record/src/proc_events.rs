//! The kernel's process events (the netlink proc connector): each fork and exec as it
//! happens, so that a task living less than the sample interval is still read from /proc —
//! at its exec, after a `taskset` or a benchmark's launcher set its allowed CPUs.
//!
//! Why not a faster /proc scan: a listing every 10 ms still saw only 4 of 101 processes of
//! 5 ms (measured: `docs/guide.md`, "How to record"); an event costs nothing until a
//! process starts. Where the kernel has no connector (`CONFIG_PROC_EVENTS`) or refuses it,
//! the periodic scans are all there is, and the sidecar is no worse than before.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const CN_IDX_PROC: u32 = 1;
const CN_VAL_PROC: u32 = 1;
const PROC_CN_MCAST_LISTEN: u32 = 1;
const PROC_EVENT_FORK: u32 = 1;
const PROC_EVENT_EXEC: u32 = 2;
const NLMSG_DONE: u16 = 3;
/// `struct nlmsghdr` and `struct cn_msg` (without its data).
const NLMSG_HDR: usize = 16;
const CN_MSG_HDR: usize = 20;

/// A subscription to the process events.
pub(crate) struct ProcEvents {
    fd: OwnedFd,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

impl ProcEvents {
    /// Subscribes; None where the kernel has no proc connector or refuses it.
    pub(crate) fn open() -> Option<ProcEvents> {
        let raw = unsafe {
            libc::socket(
                libc::AF_NETLINK,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                libc::NETLINK_CONNECTOR,
            )
        };
        if raw < 0 {
            return None;
        }
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as u16;
        addr.nl_groups = CN_IDX_PROC;
        let len = std::mem::size_of::<libc::sockaddr_nl>() as u32;
        let sa = &addr as *const libc::sockaddr_nl as *const libc::sockaddr;
        if unsafe { libc::bind(fd.as_raw_fd(), sa, len) } != 0 {
            return None;
        }
        // nlmsghdr, cn_msg {idx, val, seq, ack, len, flags}, then the listen op.
        let mut msg = Vec::with_capacity(NLMSG_HDR + CN_MSG_HDR + 4);
        let total = (NLMSG_HDR + CN_MSG_HDR + 4) as u32;
        msg.extend_from_slice(&total.to_ne_bytes());
        msg.extend_from_slice(&NLMSG_DONE.to_ne_bytes());
        msg.extend_from_slice(&0u16.to_ne_bytes());
        msg.extend_from_slice(&0u32.to_ne_bytes());
        msg.extend_from_slice(&std::process::id().to_ne_bytes());
        for v in [CN_IDX_PROC, CN_VAL_PROC, 0, 0] {
            msg.extend_from_slice(&v.to_ne_bytes());
        }
        msg.extend_from_slice(&4u16.to_ne_bytes());
        msg.extend_from_slice(&0u16.to_ne_bytes());
        msg.extend_from_slice(&PROC_CN_MCAST_LISTEN.to_ne_bytes());
        let sent = unsafe { libc::send(fd.as_raw_fd(), msg.as_ptr().cast(), msg.len(), 0) };
        (sent == msg.len() as isize).then_some(ProcEvents { fd })
    }

    /// Waits for the next events and hands every fork's child and every exec'd task (by
    /// tid) to `on`, in order; returns false when the socket failed for good.
    pub(crate) fn next(&mut self, mut on: impl FnMut(i32)) -> bool {
        let mut buf = [0u8; 8192];
        {
            let n =
                unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n <= 0 {
                // ENOBUFS (events dropped while we read /proc) is not fatal: the periodic
                // scans still run.
                let e = std::io::Error::last_os_error().raw_os_error();
                return n == 0 || matches!(e, Some(libc::ENOBUFS) | Some(libc::EINTR));
            }
            let mut at = 0;
            let got = &buf[..n as usize];
            while let Some(len) = u32_at(got, at).map(|l| l as usize) {
                if len < NLMSG_HDR || at + len > got.len() {
                    break;
                }
                let event = &got[at + NLMSG_HDR + CN_MSG_HDR..at + len];
                // proc_event {what, cpu, u64 timestamp, data}: fork {parent pid, tgid,
                // child pid, tgid}; exec {pid, tgid}.
                match u32_at(event, 0) {
                    Some(PROC_EVENT_FORK) => {
                        u32_at(event, 24).into_iter().for_each(|t| on(t as i32))
                    }
                    Some(PROC_EVENT_EXEC) => {
                        u32_at(event, 16).into_iter().for_each(|t| on(t as i32))
                    }
                    _ => {}
                }
                at += len.next_multiple_of(4);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As root on a kernel with the connector: a process started now is reported, by its
    /// exec, with its own pid.
    #[test]
    fn an_exec_is_reported() {
        let Some(mut events) = ProcEvents::open() else {
            println!("skipped an_exec_is_reported: no proc connector here (not root?)");
            return;
        };
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        let mut seen = Vec::new();
        // Other processes of the machine come too; a bounded number of reads.
        for _ in 0..10_000 {
            if seen.contains(&pid) || !events.next(|t| seen.push(t)) {
                break;
            }
        }
        let _ = child.wait();
        assert!(seen.contains(&pid), "{pid} not in {seen:?}");
    }
}
