//! The simulator: a trace's demand run through a model of a scheduler, giving the schedule
//! that scheduler would have made of it.
//!
//! Modules, one concept each: [`model`] (the trait every scheduler implements, and what a
//! model says about itself), `engine` (the event loop: clock, ticks, CPUs, wakeups, the
//! idle pull), `progress` (each task's place in its demand and the dependency points),
//! `placement` (which CPU a waking task goes to), `wall_clock` (a spinner's last burst run
//! for a wall-clock time), [`schedule`] (what comes out), and one
//! module per scheduler: `cfs` (CFS of 6.1), `eevdf` (EEVDF of 6.12), over the fair
//! runqueue they share (`fair_rq`), and Project C
//! v6.1-r4's `pds` and `bmq` over their shared runqueue (`projectc`); above every model,
//! the real-time class (`rt`).

mod bmq;
mod cfs;
mod eevdf;
mod engine;
mod fair_rq;
pub mod model;
mod pds;
mod placement;
mod progress;
mod projectc;
mod rt;
pub mod schedule;
pub(crate) mod wall_clock;

use crate::demand::Demand;
use model::{ModelInfo, ModelName, SchedulerModel};
use rand_pcg::rand_core::{Rng, SeedableRng};
use schedule::Schedule;

/// How to run a simulation.
#[derive(Debug, Clone, Copy)]
pub struct SimOptions {
    /// Seeds what the trace cannot tell (the phase of the tick grid against the workload):
    /// the same demand, model and seed give the same schedule.
    pub seed: u64,
    /// The simulated kernel's tick rate; None: the model's kernel's (Debian's 250 for CFS
    /// and EEVDF, 1000 for the Project C kernels).
    pub hz: Option<u32>,
    /// The tick grid's offset from the window's start, instead of the seed's (tests that
    /// work a schedule out by hand put the ticks at known times).
    pub tick_offset_ns: Option<u64>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 1,
            hz: None,
            tick_offset_ns: None,
        }
    }
}

/// A predicted run: the model that made it and its schedule.
#[derive(Debug, Clone)]
pub struct Prediction {
    pub model: ModelInfo,
    pub schedule: Schedule,
}

/// The tick rate of the kernel a model follows, as built for the fixtures' VMs.
pub fn default_hz(name: ModelName) -> u32 {
    match name {
        ModelName::Cfs | ModelName::Eevdf => 250,
        ModelName::Pds | ModelName::Bmq => 1000,
    }
}

fn build(name: ModelName, cpus: usize, hz: u32) -> Result<Box<dyn SchedulerModel>, String> {
    match name {
        ModelName::Cfs => Ok(Box::new(cfs::Cfs::new(
            cpus,
            cfs::CfsParams::linux_6_1(cpus),
        ))),
        ModelName::Eevdf => Ok(Box::new(eevdf::Eevdf::new(
            cpus,
            eevdf::EevdfParams::linux_6_12(cpus, hz),
        ))),
        ModelName::Pds => Ok(Box::new(projectc::ProjectC::new(cpus, pds::Pds))),
        ModelName::Bmq => Ok(Box::new(projectc::ProjectC::new(cpus, bmq::Bmq))),
    }
}

/// Runs `demand` through the model `name`.
pub fn simulate(demand: &Demand, name: ModelName, opts: SimOptions) -> Result<Prediction, String> {
    let cpus = (demand.cpus as usize).max(1);
    let hz = opts.hz.unwrap_or_else(|| default_hz(name));
    let rr = match name {
        ModelName::Cfs | ModelName::Eevdf => rt::RrSlice::mainline(hz),
        ModelName::Pds | ModelName::Bmq => rt::RrSlice::project_c(),
    };
    let model = Box::new(rt::WithRt::new(build(name, cpus, hz)?, demand, cpus, rr));
    let info = model.info();
    let tick_ns = 1_000_000_000 / u64::from(hz.max(1));
    let offset = opts
        .tick_offset_ns
        .unwrap_or_else(|| rand_pcg::Pcg64::seed_from_u64(opts.seed).next_u64())
        % tick_ns;
    let schedule = engine::Engine::new(demand, model, hz).run(hz, offset);
    Ok(Prediction {
        model: info,
        schedule,
    })
}
