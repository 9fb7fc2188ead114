//! The rt-app JSON of the `mi` fixtures: the workers, busy for a wall-clock time per burst
//! (`wall_budget`), are written as `runtime` of their budget per burst, the spinner's last
//! burst (bounded by its exit) as `runtime` from its first run to the exit, and every other
//! burst as `run` of its traced CPU. The expected events are rebuilt here from the demand,
//! phase by phase, apart from `rtapp::write`.

use replay::demand::{Demand, Phase, TaskDemand, TaskEnd, Wake};
use std::collections::BTreeSet;

/// A task's events in the order rt-app runs them (by the number in each key), as
/// (kind, value); barriers as ("barrier", 0).
fn events(json: &serde_json::Value, name: &str) -> Vec<(String, u64)> {
    let p0 = json["tasks"][name]["phases"]["p0"]
        .as_object()
        .unwrap_or_else(|| panic!("no thread {name}"));
    let mut keyed: Vec<(usize, String, u64)> = p0
        .iter()
        .filter(|(k, _)| *k != "loop")
        .map(|(k, v)| {
            let at = k.find(|c: char| c.is_ascii_digit()).unwrap();
            (
                k[at..].parse().unwrap(),
                k[..at].to_string(),
                v.as_u64().unwrap_or(0),
            )
        })
        .collect();
    keyed.sort();
    keyed.into_iter().map(|(_, k, v)| (k, v)).collect()
}

/// What `task`'s events must be, when it wakes no task of the workload (its bursts uncut).
fn expected(task: &TaskDemand, kept: &BTreeSet<usize>) -> Vec<(String, u64)> {
    let last = task.phases.len() - 1;
    let mut out = Vec::new();
    for (i, phase) in task.phases.iter().enumerate() {
        let event = match (*phase, task.end, task.last_burst_ran_ns) {
            // The last burst of a task that spun to its exit, 100 ms of CPU or more.
            (Phase::Burst { ns }, TaskEnd::Exit { at_ns }, Some(ran))
                if i == last && ns >= 100_000_000 =>
            {
                ("runtime", (at_ns - ran) / 1000)
            }
            (Phase::Burst { ns }, ..) => match task.wall_budget {
                Some(b) => ("runtime", b.budget_ns / 1000),
                None => ("run", (ns / 1000).max(1)),
            },
            (
                Phase::Block {
                    wake: Wake::Dependency { task: w, .. },
                    ..
                },
                ..,
            ) if kept.contains(&w) => ("barrier", 0),
            (Phase::Block { ns, .. }, ..) => ("sleep", (ns / 1000).max(1)),
        };
        out.push((event.0.to_string(), event.1));
    }
    out
}

fn wakes_someone(demand: &Demand, kept: &BTreeSet<usize>, task: &TaskDemand) -> bool {
    demand
        .tasks
        .iter()
        .filter(|t| kept.contains(&t.id))
        .flat_map(|t| &t.phases)
        .any(|p| matches!(p, Phase::Block { wake: Wake::Dependency { task: w, .. }, .. } if *w == task.id))
}

#[test]
fn mi_workers_run_their_budget_by_the_wall_clock() {
    for (kernel, workers, spinner) in [
        ("cfs-6.1-vm", "mi-work", "mi-spin"),
        ("eevdf-6.12-vm", "mi-work", "mi-spin"),
        ("pds-6.1-vm", "mintr", "mspin"),
    ] {
        let path = fixtures::trace(&format!("{kernel}/mi/trace-v6.dat.xz"));
        let demand = replay::extract(&path, &replay::Options::default())
            .unwrap()
            .demand;
        let json: serde_json::Value =
            serde_json::from_str(&replay::rtapp::write(&demand, 4, 4)).unwrap();
        let workload: Vec<&TaskDemand> = demand
            .tasks
            .iter()
            .filter(|t| replay::rtapp::in_workload(t))
            .collect();
        let kept: BTreeSet<usize> = workload.iter().map(|t| t.id).collect();
        let mut with_runtime = Vec::new();
        for task in &workload {
            let name = replay::rtapp::thread_name(task);
            let got = events(&json, &name);
            if got.iter().any(|(k, _)| k == "runtime") {
                with_runtime.push(task.comm.clone());
            }
            if wakes_someone(&demand, &kept, task) {
                // A waker's bursts are cut at its rendezvous; none of them has a budget.
                assert!(task.wall_budget.is_none(), "{kernel}: {name}");
                assert!(
                    got.iter().all(|(k, _)| k != "runtime"),
                    "{kernel}: {name}: {got:?}"
                );
                continue;
            }
            assert_eq!(got, expected(task, &kept), "{kernel}: {name}");
        }
        // Exactly the three workers and the spinner (its last burst only) are wall-clock.
        with_runtime.sort();
        let mut want: Vec<String> = (0..3)
            .map(|i| format!("{workers}{i}"))
            .chain([spinner.to_string()])
            .collect();
        want.sort();
        assert_eq!(with_runtime, want, "{kernel}");
        for task in &workload {
            let got = events(&json, &replay::rtapp::thread_name(task));
            let runtimes = got.iter().filter(|(k, _)| k == "runtime").count();
            let bursts = task.bursts().count();
            if task.comm == spinner {
                assert_eq!(runtimes, 1, "{kernel}: {}", task.comm);
                assert!(task.wall_budget.is_none());
            } else if task.comm.starts_with(workers) {
                let budget = task.wall_budget.unwrap().budget_ns / 1000;
                assert!((8000..8500).contains(&budget), "{kernel}: {budget}");
                assert_eq!(runtimes, bursts, "{kernel}: {}", task.comm);
                assert!(bursts > 80, "{kernel}: {} has {bursts} bursts", task.comm);
            }
        }
    }
}
