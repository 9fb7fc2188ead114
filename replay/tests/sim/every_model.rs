//! Rules every model shares: a ping-pong pair on one CPU never waits.
use super::build::*;
use replay::sim::model::ModelName;
use replay::sim::schedule::{Left, Record};
use replay::sim::simulate;

#[test]
fn ping_pong_pair_alternates_without_waiting() {
    // P runs 1 ms and wakes Q as it blocks; Q runs 1 ms and wakes P. On one CPU each
    // wakeup finds the CPU idle: P 0-1, Q 1-2, P 2-3, ... 100 round trips in 200 ms,
    // every switch voluntary, each task 100 ms of CPU, under every model.
    let mut p_phases = Vec::new();
    let mut q_phases = Vec::new();
    for k in 0..100u32 {
        p_phases.push(burst(MS));
        p_phases.push(wait_for(1, k + 1, 0));
        q_phases.push(wait_for(0, k + 1, 0));
        q_phases.push(burst(MS));
    }
    let d = demand(
        1,
        300 * MS,
        vec![
            task(0, "ping", 0, &[0], p_phases),
            task(1, "pong", 0, &[0], q_phases),
        ],
    );
    for model in ModelName::ALL {
        let p = simulate(&d, model, at_zero()).unwrap();
        assert_eq!(p.schedule.runtimes(2), vec![100 * MS, 100 * MS], "{model}");
        assert!(
            !p.schedule.records.iter().any(|r| matches!(
                r,
                Record::Switch {
                    left: Left::Preempted,
                    prev: Some(_),
                    ..
                }
            )),
            "{model}"
        );
        let sw = switches(&p.schedule);
        assert_eq!(sw[1], (MS, Some(0), None), "{model}");
        assert_eq!(sw[2], (MS, None, Some(1)), "{model}");
        assert_eq!(sw.last().unwrap(), &(200 * MS, Some(1), None), "{model}");
    }
}
