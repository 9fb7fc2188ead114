//! Whether a task is a kernel thread, by name: the trace says nothing else about it (a
//! kernel thread's pid is not special and its process id is often not traced). Used where
//! a kernel thread's wakeup means "a timer or deferred work fired", not "a peer finished".

/// Name prefixes of the kernel threads that wake tasks or run beside a workload.
const PREFIXES: [&str; 14] = [
    "kworker/",
    "ksoftirqd/",
    "rcu_",
    "rcuc/",
    "rcuog/",
    "rcuop/",
    "migration/",
    "kthreadd",
    "irq/",
    "watchdog",
    "kcompactd",
    "kswapd",
    "cpuhp/",
    "khugepaged",
];

pub(crate) fn is_kernel_thread(comm: &str) -> bool {
    PREFIXES.iter().any(|p| comm.starts_with(p))
}

#[cfg(test)]
mod tests {
    #[test]
    fn names() {
        assert!(super::is_kernel_thread("kworker/u8:0"));
        assert!(super::is_kernel_thread("rcu_preempt"));
        assert!(!super::is_kernel_thread("nice-n0"));
        assert!(!super::is_kernel_thread("schedwl"));
    }
}
