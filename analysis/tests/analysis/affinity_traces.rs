//! Allowed CPUs and idle-while-runnable on the `mi` captures, whose four tasks ran once on
//! another CPU before they were pinned (fixtures/traces/*/MANIFEST.md: `CPU_A`): affinity
//! unknown, the rule counts the idle CPUs against them (71.8 % on CFS) and names them as
//! looking pinned; told their CPU with `--affinity`, the loss is what the other tasks left.

use analysis::affinity::Affinity;
use analysis::pipeline::{analyze, Options};
use std::sync::Arc;

fn with_rules(rules: &[&str]) -> Options {
    let rules: Vec<String> = rules.iter().map(|r| r.to_string()).collect();
    let mut o = Options::default();
    o.config.affinity = Some(Arc::new(Affinity::from_rules(&rules).unwrap()));
    o
}

#[test]
fn pinned_mi_tasks_are_named_then_settled_by_their_affinity() {
    // (capture, the tasks' name pattern, their CPU, share unknown, share with --affinity)
    for (kernel, names, cpu, unknown, known) in [
        ("cfs-6.1-vm", "^mi-", 1, 0.7179, 0.0076),
        ("eevdf-6.12-vm", "^mi-", 1, 0.7107, 0.0071),
        ("pds-6.1-vm", "^m(intr|spin)", 2, 0.7116, 0.0087),
    ] {
        let path = fixtures::trace(&format!("{kernel}/mi/trace-v6.dat.xz"));
        let before = analyze(&path, &Options::default()).unwrap();
        let w = &before.system.work_conservation;
        assert!(
            (w.idle_while_runnable_share - unknown).abs() < 1e-4,
            "{kernel}: {}",
            w.idle_while_runnable_share
        );
        assert_eq!(w.affinity.source, "unknown");
        // Exactly the four workers and spinners look pinned, to their CPU.
        let re = regex::Regex::new(names).unwrap();
        let named: Vec<_> = w
            .affinity
            .looks_pinned
            .iter()
            .filter(|p| re.is_match(&p.comm))
            .collect();
        assert_eq!(named.len(), 4, "{kernel}: {:?}", w.affinity.looks_pinned);
        assert!(named.iter().all(|p| p.cpu == cpu), "{kernel}");
        assert!(before.tasks.iter().all(|t| t.allowed_cpus.is_none()));

        // Placement that cost a wait, by the CPUs they ran on: the CPU they ran on once
        // before being pinned idled while they waited (174, 307 and 505 such wakeups).
        let idle_allowed = |r: &analysis::Report| -> u64 {
            r.tasks
                .iter()
                .filter(|t| re.is_match(&t.comm))
                .map(|t| {
                    t.wait_causes.placement.idle_allowed_llc
                        + t.wait_causes.placement.idle_allowed_other
                })
                .sum()
        };
        let guessed = idle_allowed(&before);
        assert!(guessed > 0, "{kernel}");

        let rule = format!("{names}={cpu}");
        let after = analyze(&path, &with_rules(&[&rule])).unwrap();
        let w = &after.system.work_conservation;
        assert!(
            w.idle_while_runnable_share < 0.01,
            "{kernel}: {}",
            w.idle_while_runnable_share
        );
        assert!(
            (w.idle_while_runnable_share - known).abs() < 1e-3,
            "{kernel}: {}",
            w.idle_while_runnable_share
        );
        assert!(w.idle_while_runnable_ns < before.system.work_conservation.idle_while_runnable_ns);
        assert_eq!(
            (w.affinity.source.as_str(), w.affinity.tasks_known),
            ("--affinity", 4)
        );
        assert!(
            w.affinity
                .looks_pinned
                .iter()
                .all(|p| !re.is_match(&p.comm)),
            "{kernel}"
        );
        // Told their one CPU, no other CPU could have taken them.
        assert_eq!(
            idle_allowed(&after),
            0,
            "{kernel}: {guessed} by the CPUs they ran on"
        );
        let cpu_text = cpu.to_string();
        for t in after.tasks.iter().filter(|t| re.is_match(&t.comm)) {
            assert_eq!(
                t.allowed_cpus.as_deref(),
                Some(cpu_text.as_str()),
                "{kernel} {}",
                t.comm
            );
        }
    }
}

/// A rule that names every CPU changes nothing: such a set is no constraint.
#[test]
fn an_every_cpu_rule_is_the_unknown_rule() {
    let path = fixtures::trace("cfs-6.1-vm/mi/trace-v6.dat.xz");
    let before = analyze(&path, &Options::default()).unwrap();
    let cpus = before.source.cpus.unwrap();
    let every = format!(".=0-{}", cpus - 1);
    let after = analyze(&path, &with_rules(&[&every])).unwrap();
    assert_eq!(
        after.system.work_conservation.idle_while_runnable_ns,
        before.system.work_conservation.idle_while_runnable_ns
    );
}
